package io.gpudetect.agent;

import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * Runs passes: one at start, then one every interval plus jitter, one at once when {@link #trigger} is
 * called (SIGHUP, {@code POST /detect}), and sooner after a failed pass, backing off 1 s, 2 s, 4 s ... up to
 * the interval, so the agent rides out an API-server outage and converges soon after it ends.
 */
public final class AgentLoop implements Runnable {

    static final Duration FIRST_RETRY = Duration.ofSeconds(1);

    private final NodeAgent agent;
    private final Duration interval;
    private final double jitter;
    private final DoubleSupplier random;
    private final LinkedBlockingQueue<String> triggers = new LinkedBlockingQueue<>();
    private volatile boolean stopping;

    public AgentLoop(NodeAgent agent, Duration interval, double jitter, DoubleSupplier random) {
        this.agent = agent;
        this.interval = interval;
        this.jitter = jitter;
        this.random = random;
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
        Duration retry = FIRST_RETRY;
        while (!stopping) {
            PassReport report = agent.pass();
            Duration wait;
            if (report.failed()) {
                wait = retry;
                retry = min(retry.multipliedBy(2), interval);
            } else {
                retry = FIRST_RETRY;
                wait = nextWait(interval, jitter, random.getAsDouble());
            }
            try {
                String why = triggers.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
                triggers.clear();
                if ("stop".equals(why)) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The interval plus {@code jitter * interval * r} for r in [0, 1). */
    static Duration nextWait(Duration interval, double jitter, double r) {
        return interval.plusMillis((long) (interval.toMillis() * jitter * r));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
