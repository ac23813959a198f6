package io.gpudetect.agent;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * Runs passes: one at start (after a random start-up delay, see {@link #startupDelay(Duration, double)}), then one
 * every interval plus jitter, and one when {@link #trigger} is called (SIGHUP, {@code POST /detect}, the agent's own
 * record deleted, its Node recreated): at once, or, within {@link PassTriggers}' minimum interval after the last pass
 * started, at the end of that interval, however many triggers came meanwhile.
 *
 * <p>A failed pass is retried at the same pace, never sooner, and never before a {@code Retry-After} the
 * server sent: when the API server comes back from an outage or an upgrade, every node's agent that failed
 * meanwhile would otherwise hit it at once, and a pass that could not write changed nothing on the node,
 * so waiting the interval loses nothing the next pass does not repair. Passes run on one thread, one after
 * another: a trigger during a pass makes one more pass after it, however many triggers came.
 */
public final class AgentLoop implements Runnable {

    private final NodeAgent agent;
    private final Duration interval;
    private final double jitter;
    private final DoubleSupplier random;
    private final PassTriggers triggers;
    private final Duration startupDelay;
    /** Guards {@link #stopping}; the loop waits on it, triggers and {@link #stop} wake it. */
    private final Object wake = new Object();
    private boolean stopping;

    /**
     * @param triggers     bounds how often triggered passes start
     * @param startupDelay how long the first pass waits (see {@link #startupDelay(Duration, double)}); a trigger or
     *                     {@link #stop} ends the wait
     */
    public AgentLoop(NodeAgent agent, Duration interval, double jitter, DoubleSupplier random, PassTriggers triggers,
                     Duration startupDelay) {
        this.startupDelay = startupDelay;
        this.agent = agent;
        this.interval = interval;
        this.jitter = jitter;
        this.random = random;
        this.triggers = triggers;
        agent.onExternalChange(this::trigger);
    }

    /**
     * A delay in [0, {@code maxJitter}) for r in [0, 1). When a DaemonSet rolls out (or a cluster restarts)
     * every node's agent starts at once; each start lists its Node and pods, opens two watches and reads
     * its record, so a random delay spreads that burst over {@code maxJitter} instead of one second.
     */
    public static Duration startupDelay(Duration maxJitter, double r) {
        return Duration.ofMillis((long) (maxJitter.toMillis() * r));
    }

    /**
     * Asks for a pass; several requests before it starts make one pass. The answer says whether this request
     * scheduled (or joined) a pass or found one already waiting for the minimum interval to end; either way a
     * pass that starts after this call follows.
     */
    public PassTriggers.Decision trigger(String why) {
        PassTriggers.Decision decision = triggers.request();
        synchronized (wake) {
            wake.notifyAll();
        }
        return decision;
    }

    /** Ends the loop after the pass in progress; nothing is written on the way out. */
    public void stop() {
        synchronized (wake) {
            stopping = true;
            wake.notifyAll();
        }
    }

    @Override
    public void run() {
        if (!startupDelay.isZero() && waitForPass(startupDelay)) {
            return;
        }
        agent.start();
        while (!stopping()) {
            triggers.passStarted();
            PassReport report = agent.pass();
            Duration wait = max(nextWait(interval, jitter, random.getAsDouble()), report.retryAfter());
            if (waitForPass(wait)) {
                return;
            }
        }
    }

    private boolean stopping() {
        synchronized (wake) {
            return stopping;
        }
    }

    /**
     * Waits until {@code periodic} has passed or a requested pass is due, whichever comes first; true when
     * the loop is to end instead.
     */
    private boolean waitForPass(Duration periodic) {
        long deadline = System.nanoTime() + periodic.toNanos();
        synchronized (wake) {
            try {
                while (!stopping) {
                    long left = deadline - System.nanoTime();
                    Optional<Duration> requested = triggers.untilDue();
                    if (requested.isPresent()) {
                        left = Math.min(left, requested.get().toNanos());
                    }
                    if (left <= 0) {
                        return false;
                    }
                    TimeUnit.NANOSECONDS.timedWait(wake, left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return true;
        }
    }

    /** The interval plus {@code jitter * interval * r} for r in [0, 1). */
    static Duration nextWait(Duration interval, double jitter, double r) {
        return interval.plusMillis((long) (interval.toMillis() * jitter * r));
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

}
