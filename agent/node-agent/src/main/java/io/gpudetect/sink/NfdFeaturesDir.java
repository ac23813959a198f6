package io.gpudetect.sink;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Makes a host's NFD {@code features.d} folder writable by the agent's group and readable by NFD's worker,
 * changing as little as it can: the owner stays (root, as kubelet and NFD create it), the group becomes the
 * agent's, and the mode gains group read/write/search and other read/search. Nothing else in the folder is
 * touched. Run as root with {@code CAP_CHOWN} alone (the chart's init container): giving a file to a group
 * one is not in takes that capability, and changing the mode of one's own folder takes none.
 */
public final class NfdFeaturesDir {

    /** Group read, write and search: the agent creates its temporary file here and renames it. */
    static final int GROUP_RWX = 0070;
    /** Other read and search: NFD's worker runs as another non-root user. */
    static final int OTHER_RX = 0005;

    private NfdFeaturesDir() {
    }

    /** What was found and what was done, in one line. */
    public record Outcome(Path dir, int gid, int modeBefore, int modeAfter, boolean changed) {
        public String summary() {
            return changed
                    ? String.format("%s: group %d, mode %04o (was %04o)", dir, gid, modeAfter, modeBefore)
                    : String.format("%s: group %d, mode %04o already; left as it is", dir, gid, modeAfter);
        }
    }

    /**
     * Gives {@code dir} to group {@code gid} and adds group rwx and other r-x to its mode; leaves it alone
     * when it already has both. Fails with the folder, the step and the system's reason in the message.
     */
    public static Outcome prepare(Path dir, int gid) throws IOException {
        if (gid < 0) {
            throw new IOException("group id must be 0 or more, got " + gid);
        }
        int mode;
        int currentGid;
        try {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw new IOException(dir + ": " + (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)
                        ? "not a folder" : "no such folder (the chart's hostPath volume creates it)"));
            }
            mode = (Integer) Files.getAttribute(dir, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
            currentGid = (Integer) Files.getAttribute(dir, "unix:gid", LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new IOException(dir + ": no such folder (the chart's hostPath volume creates it)");
        }
        int wanted = mode | GROUP_RWX | OTHER_RX;
        if (currentGid == gid && wanted == mode) {
            return new Outcome(dir, gid, mode, mode, false);
        }
        if (currentGid != gid) {
            try {
                Files.setAttribute(dir, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
            } catch (FileSystemException e) {
                throw new IOException(dir + ": cannot give the folder to group " + gid + ": " + reason(e)
                        + " (run as root with CAP_CHOWN)");
            }
        }
        if (wanted != mode) {
            try {
                Files.setAttribute(dir, "unix:mode", wanted, LinkOption.NOFOLLOW_LINKS);
            } catch (FileSystemException e) {
                throw new IOException(String.format("%s: cannot set mode %04o: %s (run as the folder's owner)",
                        dir, wanted, reason(e)));
            }
        }
        return new Outcome(dir, gid, mode, wanted, true);
    }

    private static String reason(FileSystemException e) {
        return e.getReason() != null ? e.getReason() : e.getClass().getSimpleName();
    }
}
