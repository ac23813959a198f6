package io.gpudetect.probe.nvml;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * The one thread NVML is asked on, and the hand-over to it: an ask waits for its answer up to a time limit, and a
 * native call that never comes back keeps this thread, not the asker's. Made at the first ask and kept; a daemon.
 *
 * <p>One slot, one monitor: an ask puts its work in the slot and waits on the monitor; the thread takes it, runs it
 * outside the monitor and hands the answer back. This replaced a one-thread {@code ThreadPoolExecutor} and its
 * {@code FutureTask}s: their queue's lock, condition and park and unpark were ~0.35 ms of the NVML thread's CPU at
 * every steady pass in the agent's interpreter, a sixth of the pulse they carried, where a monitor's wait and notify
 * run in the JVM itself (docs/performance.md, "The NVML pulse, fewer calls and a lighter hand-over").
 *
 * <p>What a hung call leaves is what the executor left: the asks after it wait for the slot or for their answer,
 * each given up at its own time limit and taken back if the thread has not started it, so that the library is asked
 * once however many passes gave up behind it; the thread stays the one thread.
 */
final class NvmlCaller {

    /** One ask: its work, and once done its answer or what it threw. Guarded by the caller's monitor. */
    private static final class Ask {
        final Callable<?> work;
        Object value;
        Throwable failure;
        boolean done;

        Ask(Callable<?> work) {
            this.work = work;
        }
    }

    private final String threadName;
    private Thread thread;
    /** The ask waiting for the thread; null when there is none. */
    private Ask waiting;

    NvmlCaller(String threadName) {
        this.threadName = threadName;
    }

    /**
     * {@code work}'s answer, run on this caller's thread; {@link TimeoutException} when it has not come within
     * {@code timeoutMs} (the work is then dropped if it had not started), {@link ExecutionException} when it threw.
     */
    @SuppressWarnings("unchecked")
    <T> T call(Callable<T> work, long timeoutMs) throws TimeoutException, ExecutionException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        Ask ask = new Ask(work);
        synchronized (this) {
            if (thread == null) {
                thread = new Thread(this::serve, threadName);
                thread.setDaemon(true);
                thread.start();
            }
            try {
                while (waiting != null) { // an ask before this one, not yet taken: a hung call holds the thread
                    waitUntil(deadline);
                }
                waiting = ask;
                notifyAll();
                while (!ask.done) {
                    waitUntil(deadline);
                }
            } catch (TimeoutException | InterruptedException e) {
                if (waiting == ask) {
                    waiting = null; // not started: nobody will run it
                    notifyAll();
                }
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                    throw new TimeoutException("interrupted");
                }
                throw (TimeoutException) e;
            }
        }
        if (ask.failure != null) {
            throw new ExecutionException(ask.failure);
        }
        return (T) ask.value;
    }

    /** Waits on the monitor (held) until notified or {@code deadline} ({@link System#nanoTime}) has passed. */
    private void waitUntil(long deadline) throws TimeoutException, InterruptedException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new TimeoutException();
        }
        wait(left / 1_000_000L, (int) (left % 1_000_000L));
    }

    /** The thread: takes each ask from the slot and answers it. */
    private void serve() {
        for (;;) {
            Ask ask;
            synchronized (this) {
                while (waiting == null) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        return; // nobody interrupts this thread; a daemon, it ends with the process
                    }
                }
                ask = waiting;
                waiting = null;
                notifyAll(); // the slot is free for an ask waiting behind this one
            }
            Object value = null;
            Throwable failure = null;
            try {
                value = ask.work.call();
            } catch (Throwable t) {
                failure = t;
            }
            synchronized (this) {
                ask.value = value;
                ask.failure = failure;
                ask.done = true;
                notifyAll();
            }
        }
    }
}
