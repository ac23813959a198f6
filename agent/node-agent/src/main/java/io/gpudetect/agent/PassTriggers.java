package io.gpudetect.agent;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Turns requests for a pass ({@code POST /detect}, SIGHUP, the agent's record deleted, its Node recreated)
 * into at most one pass per {@code minInterval}. {@code POST /detect} is unauthenticated on the pod network
 * and every pass runs the host's GPU tools, so whoever reaches the port must not be able to make the agent
 * detect in a loop.
 *
 * <p>A request when no pass is due schedules one: now, or, when a pass started less than {@code minInterval}
 * ago, at the end of that interval. A request while a pass is due joins it: the pass starts after the request,
 * so it sees whatever the request was about, and no request is lost. Such a request is {@link Throttled} when
 * the due pass is still waiting for its interval to end, which {@code POST /detect} answers with 429 and
 * {@code Retry-After}; triggers from inside the agent ignore the answer, since the due pass covers them.
 * Every pass counts, the periodic ones too, and its start satisfies every request made before it.
 *
 * <p>Thread-safe: requests arrive on the HTTP server's and the signal handler's threads, passes start on
 * the loop's.
 */
public final class PassTriggers {

    /** What became of one request. */
    public sealed interface Decision permits Accepted, Throttled {
    }

    /** The request scheduled a pass at {@code at} (now or the end of the interval), or joined one due now. */
    public record Accepted(Instant at) implements Decision {
    }

    /**
     * A pass is already scheduled for {@code at}, later than now, and covers this request, which adds nothing.
     *
     * @param retryAfterSeconds whole seconds until that pass is due, rounded up (at least 1): from then on a
     *                          new request is accepted again
     */
    public record Throttled(Instant at, long retryAfterSeconds) implements Decision {
    }

    private final Duration minInterval;
    private final Clock clock;
    private Instant lastPassStarted;
    private Instant due;

    /** {@code minInterval} zero or negative lets every request through (a pass as soon as the loop is free). */
    public PassTriggers(Duration minInterval, Clock clock) {
        this.minInterval = minInterval.isNegative() ? Duration.ZERO : minInterval;
        this.clock = clock;
    }

    /** Asks for a pass; see the class comment for what the answer means. */
    public synchronized Decision request() {
        Instant now = clock.instant();
        if (due == null) {
            Instant intervalEnds = lastPassStarted == null ? now : lastPassStarted.plus(minInterval);
            due = intervalEnds.isAfter(now) ? intervalEnds : now;
            return new Accepted(due);
        }
        if (!due.isAfter(now)) {
            return new Accepted(due);
        }
        return new Throttled(due, wholeSecondsUp(Duration.between(now, due)));
    }

    /** When the requested pass is due (possibly already past); empty when nothing was requested since the last pass. */
    public synchronized Optional<Instant> due() {
        return Optional.ofNullable(due);
    }

    /** How long until the requested pass is due, zero when it is due now; empty when none was requested. */
    public synchronized Optional<Duration> untilDue() {
        if (due == null) {
            return Optional.empty();
        }
        Duration left = Duration.between(clock.instant(), due);
        return Optional.of(left.isNegative() ? Duration.ZERO : left);
    }

    /** A pass, requested or periodic, starts now: it serves every request made so far and opens a new interval. */
    public synchronized void passStarted() {
        lastPassStarted = clock.instant();
        due = null;
    }

    static long wholeSecondsUp(Duration d) {
        long seconds = d.getSeconds() + (d.getNano() > 0 ? 1 : 0);
        return Math.max(1, seconds);
    }
}
