package io.gpudetect.cli;

/**
 * SIGHUP as "detect now", the way daemons reload. Uses {@code sun.misc.Signal} (module jdk.unsupported,
 * present in every JDK); where the signal cannot be handled the agent simply keeps its interval.
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
}
