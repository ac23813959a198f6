package io.gpudetect.probe.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The hand-over to NVML's one thread: answers, failures, time limits, and what a hung call leaves behind. */
class NvmlCallerTest {

    @Test
    void answersOnItsOwnThreadAgainAndAgain() throws Exception {
        NvmlCaller caller = new NvmlCaller("nvml-test");
        AtomicReference<Thread> first = new AtomicReference<>();
        for (int i = 0; i < 50; i++) {
            int n = i;
            assertEquals(n * 2, caller.call(() -> {
                first.compareAndSet(null, Thread.currentThread());
                assertSame(first.get(), Thread.currentThread(), "one thread for every ask");
                return n * 2;
            }, 5_000));
        }
        assertEquals("nvml-test", first.get().getName());
        assertTrue(first.get().isDaemon());
    }

    @Test
    void whatTheWorkThrowsIsAnExecutionException() {
        NvmlCaller caller = new NvmlCaller("nvml-test");
        ExecutionException e = assertThrows(ExecutionException.class, () -> caller.call(() -> {
            throw new IllegalStateException("boom");
        }, 5_000));
        assertEquals("boom", e.getCause().getMessage());
    }

    /**
     * A hung call times out its ask; the asks behind it time out each at its own limit without being run, and once the
     * call comes back the next ask is answered on the same thread.
     */
    @Test
    void aHungCallTimesOutAndTheAsksBehindItRunOnlyOnceItReturns() throws Exception {
        NvmlCaller caller = new NvmlCaller("nvml-test");
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        long start = System.nanoTime();
        assertThrows(TimeoutException.class, () -> caller.call(() -> {
            ran.incrementAndGet();
            release.await();
            return 0;
        }, 100));
        for (int i = 0; i < 3; i++) {
            assertThrows(TimeoutException.class, () -> caller.call(ran::incrementAndGet, 100));
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms >= 400 && ms < 4_000, "four asks of 100 ms each: " + ms);
        assertEquals(1, ran.get(), "the asks behind the hung call were dropped, not run");

        release.countDown();
        assertEquals(7, caller.call(() -> 7, 5_000), "the thread answers again once the call returned");
        assertEquals(1, ran.get());
    }

    /** Asks from several threads at once each get their own answer. */
    @Test
    void asksFromSeveralThreadsEachGetTheirOwn() throws Exception {
        NvmlCaller caller = new NvmlCaller("nvml-test");
        AtomicInteger wrong = new AtomicInteger();
        Thread[] askers = new Thread[4];
        for (int t = 0; t < askers.length; t++) {
            int base = t * 1000;
            askers[t] = new Thread(() -> {
                for (int i = 0; i < 200; i++) {
                    int n = base + i;
                    try {
                        if (caller.call(() -> n, 10_000) != n) {
                            wrong.incrementAndGet();
                        }
                    } catch (TimeoutException | ExecutionException e) {
                        wrong.incrementAndGet();
                    }
                }
            });
            askers[t].start();
        }
        for (Thread t : askers) {
            t.join();
        }
        assertEquals(0, wrong.get());
    }

    /** An interrupted asker stops waiting at once, keeps its interrupt, and its ask is not run. */
    @Test
    void anInterruptedAskerGivesUpAndKeepsItsInterrupt() throws Exception {
        NvmlCaller caller = new NvmlCaller("nvml-test");
        CountDownLatch release = new CountDownLatch(1);
        assertThrows(TimeoutException.class, () -> caller.call(() -> {
            release.await();
            return 0;
        }, 50));
        AtomicInteger ran = new AtomicInteger();
        Thread.currentThread().interrupt();
        long start = System.nanoTime();
        try {
            TimeoutException e = assertThrows(TimeoutException.class, () -> caller.call(ran::incrementAndGet, 5_000));
            assertEquals("interrupted", e.getMessage());
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
        assertTrue((System.nanoTime() - start) / 1_000_000 < 2_000);
        release.countDown();
        assertEquals(3, caller.call(() -> 3, 5_000));
        assertEquals(0, ran.get());
    }
}
