package io.gpudetect.agent;

import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * Runs passes: one at start (after a random start-up delay, see {@link #withStartupDelay}), then one every
 * interval plus jitter, and one at once when {@link #trigger} is called (SIGHUP, {@code POST /detect}, the
 * agent's own record deleted, its Node recreated).
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
    private final LinkedBlockingQueue<String> triggers = new LinkedBlockingQueue<>();
    private final Duration startupDelay;
    private volatile boolean stopping;

    public AgentLoop(NodeAgent agent, Duration interval, double jitter, DoubleSupplier random) {
        this(agent, interval, jitter, random, Duration.ZERO);
    }

    private AgentLoop(NodeAgent agent, Duration interval, double jitter, DoubleSupplier random, Duration startupDelay) {
        this.startupDelay = startupDelay;
        this.agent = agent;
        this.interval = interval;
        this.jitter = jitter;
        this.random = random;
        agent.onExternalChange(this::trigger);
    }

    /**
     * A loop whose first pass waits {@code startupDelay}; a trigger or {@link #stop} ends the wait.
     * See {@link #startupDelay(Duration, double)}.
     */
    public static AgentLoop withStartupDelay(NodeAgent agent, Duration interval, double jitter, DoubleSupplier random,
                                             Duration startupDelay) {
        return new AgentLoop(agent, interval, jitter, random, startupDelay);
    }

    /**
     * A delay in [0, {@code maxJitter}) for r in [0, 1). When a DaemonSet rolls out (or a cluster restarts)
     * every node's agent starts at once; each start lists its Node and pods, opens two watches and reads
     * its record, so a random delay spreads that burst over {@code maxJitter} instead of one second.
     */
    public static Duration startupDelay(Duration maxJitter, double r) {
        return Duration.ofMillis((long) (maxJitter.toMillis() * r));
    }

    /** Asks for a pass now; several requests before it starts make one pass. */
    public void trigger(String why) {
        triggers.offer(why);
    }

    /** Ends the loop after the pass in progress; nothing is written on the way out. */
    public void stop() {
        stopping = true;
        triggers.offer("stop");
    }

    @Override
    public void run() {
        if (!startupDelay.isZero() && waitForTrigger(startupDelay)) {
            return;
        }
        agent.start();
        while (!stopping) {
            PassReport report = agent.pass();
            Duration wait = max(nextWait(interval, jitter, random.getAsDouble()), report.retryAfter());
            if (waitForTrigger(wait)) {
                return;
            }
        }
    }

    /** Waits for the time or a trigger; true when the loop is to end. */
    private boolean waitForTrigger(Duration wait) {
        try {
            String why = triggers.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
            triggers.clear();
            return "stop".equals(why);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
