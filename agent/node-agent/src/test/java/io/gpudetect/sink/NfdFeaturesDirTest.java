package io.gpudetect.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpudetect.testing.Targets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The features folder as kubelet leaves it (root's, 0755) prepared for the agent's group; and, where the
 * tests run as root, a write by one unprivileged user and a read by another through the real kernel checks.
 */
class NfdFeaturesDirTest {

    /** The agent's user and group (the image's nonroot), and NFD's worker as some other user. */
    private static final int AGENT_UID = 65532;
    private static final int AGENT_GID = 65532;
    private static final int WORKER_UID = 65534;
    private static final int WORKER_GID = 65534;

    private static int mode(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:mode") & 07777;
    }

    private static int gid(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:gid");
    }

    @Test
    void aFolderAsKubeletCreatesItGoesToTheAgentsGroupGroupWritable(@TempDir Path tmp) throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("features.d"));
        Files.setAttribute(dir, "unix:mode", 0755);
        int ownerBefore = (Integer) Files.getAttribute(dir, "unix:uid");
        int group = gid(dir) + 1000;

        NfdFeaturesDir.Outcome first = NfdFeaturesDir.prepare(dir, group);
        assertTrue(first.changed());
        assertEquals(0775, mode(dir));
        assertEquals(group, gid(dir));
        assertEquals(ownerBefore, (Integer) Files.getAttribute(dir, "unix:uid"), "the owner stays");
        assertEquals(dir + ": group " + group + ", mode 0775 (was 0755)", first.summary());

        NfdFeaturesDir.Outcome again = NfdFeaturesDir.prepare(dir, group);
        assertFalse(again.changed(), "a prepared folder is left as it is");
        assertEquals(dir + ": group " + group + ", mode 0775 already; left as it is", again.summary());
    }

    @Test
    void onlyTheMissingBitsAreAddedAndOtherBitsAndFilesStay(@TempDir Path tmp) throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("features.d"));
        Path other = Files.writeString(dir.resolve("other-vendor"), "x=1\n");
        Files.setAttribute(other, "unix:mode", 0600);
        Files.setAttribute(dir, "unix:mode", 01700);

        NfdFeaturesDir.prepare(dir, gid(dir));
        assertEquals(01775, mode(dir), "sticky bit and owner bits kept; group rwx and other r-x added");
        assertEquals(0600, mode(other), "another tool's file is not touched");
        assertEquals("x=1\n", Files.readString(other));
    }

    @Test
    void aMissingFolderOrAFileIsNamedInTheError(@TempDir Path tmp) throws Exception {
        IOException missing = assertThrows(IOException.class, () -> NfdFeaturesDir.prepare(tmp.resolve("nope"), 1));
        assertEquals(tmp.resolve("nope") + ": no such folder (the chart's hostPath volume creates it)",
                missing.getMessage());
        Path file = Files.writeString(tmp.resolve("file"), "");
        IOException notDir = assertThrows(IOException.class, () -> NfdFeaturesDir.prepare(file, 1));
        assertEquals(file + ": not a folder", notDir.getMessage());
        assertThrows(IOException.class, () -> NfdFeaturesDir.prepare(tmp, -1));
    }

    /**
     * As root: the agent's user (not root, not the folder's owner, only its group) writes its file the way the
     * sink does, temporary file then rename, which it cannot before the folder is prepared; NFD's worker, yet
     * another user in neither group, reads the file the sink writes.
     */
    @Test
    void theAgentsUserWritesAndAnotherUserReads(@TempDir Path tmp) throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")),
                "skipped: switching users needs root (the tests run as " + System.getProperty("user.name") + ")");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "skipped: /usr/bin/setpriv (util-linux) missing");
        Files.setAttribute(tmp, "unix:mode", 0755);
        Path dir = Files.createDirectory(tmp.resolve("features.d"));
        Files.setAttribute(dir, "unix:mode", 0755);
        String write = "printf 'a=1\\n' > " + dir + "/.gpu-detect.tmp && mv " + dir + "/.gpu-detect.tmp " + dir
                + "/gpu-detect";

        Result before = runAs(AGENT_UID, AGENT_GID, "sh", "-c", write);
        assertNotEquals(0, before.status(), "root's 0755 folder: the agent cannot write");
        assertTrue(before.output().contains("Permission denied"), before.output());

        NfdFeaturesDir.prepare(dir, AGENT_GID);
        Result after = runAs(AGENT_UID, AGENT_GID, "sh", "-c", write);
        assertEquals(0, after.status(), after.output());
        assertEquals(AGENT_UID, (Integer) Files.getAttribute(dir.resolve("gpu-detect"), "unix:uid"));

        // The sink itself, with the mode a process's umask would give a temporary file (0600) overridden.
        NfdFileSink sink = new NfdFileSink(dir.resolve("gpu-detect"));
        sink.apply(Targets.decide(sink, Targets.labels(Map.of("amd.com/gpu.family", "AI"), true)));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("gpu-detect"))));
        Result read = runAs(WORKER_UID, WORKER_GID, "cat", dir + "/gpu-detect");
        assertEquals(0, read.status(), read.output());
        assertEquals(NfdFileSink.render(new TreeMap<>(Map.of("amd.com/gpu.family", "AI"))), read.output());
        Result list = runAs(WORKER_UID, WORKER_GID, "ls", dir.toString());
        assertEquals("gpu-detect\n", list.output(), "NFD's worker lists the folder; no temporary file is left");
    }

    private record Result(int status, String output) {
    }

    private static Result runAs(int uid, int gid, String... command) throws Exception {
        List<String> line = new ArrayList<>(List.of("/usr/bin/setpriv", "--reuid=" + uid, "--regid=" + gid,
                "--clear-groups", "--inh-caps=-all", "--"));
        line.addAll(List.of(command));
        Process p = new ProcessBuilder(line).redirectErrorStream(true).start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "timed out: " + line);
        return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
}
