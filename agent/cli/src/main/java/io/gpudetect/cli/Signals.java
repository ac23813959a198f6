package io.gpudetect.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * SIGHUP as "detect now", the way daemons reload; SIGTERM as "stop". Both use {@code sun.misc.Signal} (module jdk.unsupported,
 * present in every JDK); where SIGHUP cannot be handled the agent simply keeps its interval.
 */
final class Signals {

    private Signals() {
    }

    /**
     * Runs {@code action} on each SIGHUP. False where it cannot: no SIGHUP on the platform, or the process was started
     * with SIGHUP ignored ({@code nohup}, or a parent that ignores it). In that case the JVM accepts the handler without
     * a word and leaves the signal ignored (HotSpot installs no handler for a shutdown signal ignored at start), so
     * the kernel's own record of ignored signals is read after. POST /detect still works.
     */
    @SuppressWarnings("removal")
    static boolean onHangup(Runnable action) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("HUP"), s -> action.run());
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return false;
        }
        return !hangupIgnored(Path.of("/proc/self/status"));
    }

    /** Bit 0 of {@code SigIgn} in a {@code /proc/PID/status} is SIGHUP (signal 1); false where the file is unreadable. */
    static boolean hangupIgnored(Path status) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("SigIgn:")) {
                    return (Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16) & 1L) != 0;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // Not Linux, or a status file of another shape: take the handler as working, as before.
        }
        return false;
    }

    /** Undoes {@link #onTerminate}. */
    interface Restore extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * SIGTERM runs {@code action} instead of starting the JVM's shutdown, until the answer is closed: a JVM that
     * SIGTERM shuts down exits with status 143 whatever its program returns, and a stop on request (pod
     * deletion, {@code systemctl stop}) is not a failure. Where SIGTERM cannot be handled the JVM's shutdown
     * hooks still stop the agent, with status 143.
     */
    @SuppressWarnings("removal")
    static Restore onTerminate(Runnable action) {
        sun.misc.Signal term = new sun.misc.Signal("TERM");
        try {
            sun.misc.SignalHandler before = sun.misc.Signal.handle(term, s -> action.run());
            return () -> sun.misc.Signal.handle(term, before);
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return () -> { };
        }
    }
}
