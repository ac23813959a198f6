package io.gpudetect.cli;

/**
 * SIGHUP as "detect now", the way daemons reload; SIGTERM as "stop". Both use {@code sun.misc.Signal} (module jdk.unsupported,
 * present in every JDK); where SIGHUP cannot be handled the agent simply keeps its interval.
 */
final class Signals {

    private Signals() {
    }

    @SuppressWarnings("removal")
    static void onHangup(Runnable action) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("HUP"), s -> action.run());
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            // No SIGHUP on this platform: POST /detect still works.
        }
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
