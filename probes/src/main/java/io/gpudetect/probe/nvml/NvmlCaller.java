package io.gpudetect.probe.nvml;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The one thread NVML is asked on, and the hand-over to it: an ask waits for its answer up to a time limit, and a
 * native call that never comes back keeps this thread, not the asker's. Made at the first ask and kept; a daemon.
 *
 * <p>One slot, and {@link LockSupport#park}/{@link LockSupport#unpark} between the two threads: an ask puts its work in
 * the slot (a short {@code synchronized} section, never waited in) and wakes the thread; the thread takes it, runs it
 * and wakes the asker. This replaced a one-thread {@code ThreadPoolExecutor} and its {@code FutureTask}s, whose
 * queue's lock and condition, run in the agent's interpreter, were ~0.35 ms of the NVML thread's CPU at every steady
 * pass. Not a monitor's {@code wait} and {@code notify}: they inflate the monitor, and JDK 17 deflates an idle one
 * with a handshake of every thread, ~1 ms of the VM thread's CPU a pass (docs/performance.md, "The NVML pulse, fewer
 * calls and a lighter hand-over").
 *
 * <p>What a hung call leaves is what the executor left: the asks after it wait for the slot or for their answer,
 * each given up at its own time limit and taken back if the thread has not started it, so that the library is asked
 * once however many passes gave up behind it; the thread stays the one thread.
 */
final class NvmlCaller {

    /** How often an ask waiting for the slot looks again: only behind a call that has not come back. */
    private static final long SLOT_POLL_NANOS = 10_000_000L;

    /** One ask: its work and asker, and once done its answer or what it threw ({@link #done} published last). */
    private static final class Ask {
        final Callable<?> work;
        final Thread asker;
        Object value;
        Throwable failure;
        volatile boolean done;

        Ask(Callable<?> work, Thread asker) {
            this.work = work;
            this.asker = asker;
        }
    }

    private final String threadName;
    /** Guarded by this. */
    private Thread thread;
    /** The ask waiting for the thread; null when there is none. Guarded by this. */
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
        Ask ask = new Ask(work, Thread.currentThread());
        Thread serving;
        for (;;) {
            synchronized (this) {
                if (thread == null) {
                    thread = new Thread(this::serve, threadName);
                    thread.setDaemon(true);
                    thread.start();
                }
                serving = thread;
                if (waiting == null) {
                    waiting = ask;
                    break;
                }
            }
            // An ask before this one is not yet taken: a call that has not come back holds the thread.
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new TimeoutException();
            }
            LockSupport.parkNanos(this, Math.min(left, SLOT_POLL_NANOS));
            if (Thread.currentThread().isInterrupted()) {
                throw new TimeoutException("interrupted");
            }
        }
        LockSupport.unpark(serving);
        while (!ask.done) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                synchronized (this) {
                    if (waiting == ask) {
                        waiting = null; // not started: nobody will run it
                    }
                }
                if (!ask.done) {
                    throw new TimeoutException();
                }
                break;
            }
            LockSupport.parkNanos(this, left);
            if (Thread.interrupted()) {
                synchronized (this) {
                    if (waiting == ask) {
                        waiting = null;
                    }
                }
                Thread.currentThread().interrupt();
                throw new TimeoutException("interrupted");
            }
        }
        if (ask.failure != null) {
            throw new ExecutionException(ask.failure);
        }
        return (T) ask.value;
    }

    /** The thread: takes each ask from the slot and answers it. */
    private void serve() {
        for (;;) {
            Ask ask;
            synchronized (this) {
                ask = waiting;
                waiting = null;
            }
            if (ask == null) {
                LockSupport.park(this);
                continue;
            }
            try {
                ask.value = ask.work.call();
            } catch (Throwable t) {
                ask.failure = t;
            }
            ask.done = true;
            LockSupport.unpark(ask.asker);
        }
    }
}
