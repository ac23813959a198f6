package io.gpudetect.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The coalescing rules of {@link PassTriggers}, on a clock the test moves. */
class PassTriggersTest {

    private static final Instant T0 = Instant.parse("2024-05-01T12:00:00Z");
    private final MutableClock clock = new MutableClock(T0);
    private final PassTriggers triggers = new PassTriggers(Duration.ofSeconds(10), clock);

    @Test
    void aRequestBeforeAnyPassIsScheduledNow() {
        assertEquals(new PassTriggers.Accepted(T0), triggers.request());
        assertEquals(Optional.of(T0), triggers.due());
        assertEquals(Optional.of(Duration.ZERO), triggers.untilDue());
    }

    @Test
    void aRequestWithinTheIntervalIsScheduledAtItsEndAndLaterOnesAreThrottledUntilThen() {
        triggers.passStarted();
        clock.advance(Duration.ofSeconds(3));
        assertEquals(new PassTriggers.Accepted(T0.plusSeconds(10)), triggers.request());
        assertEquals(Optional.of(Duration.ofSeconds(7)), triggers.untilDue());

        clock.advance(Duration.ofSeconds(1));
        assertEquals(new PassTriggers.Throttled(T0.plusSeconds(10), 6), triggers.request());
        clock.advance(Duration.ofMillis(200));
        assertEquals(new PassTriggers.Throttled(T0.plusSeconds(10), 6), triggers.request(), "5.8 s rounds up to 6");
        clock.advance(Duration.ofMillis(5_799));
        assertEquals(new PassTriggers.Throttled(T0.plusSeconds(10), 1), triggers.request(), "1 ms left is 1 s");
        assertEquals(Optional.of(T0.plusSeconds(10)), triggers.due(), "throttled requests do not move the pass");
    }

    @Test
    void aRequestWhenTheScheduledPassIsDueJoinsIt() {
        triggers.passStarted();
        clock.advance(Duration.ofSeconds(2));
        triggers.request();
        clock.advance(Duration.ofSeconds(9));
        assertEquals(new PassTriggers.Accepted(T0.plusSeconds(10)), triggers.request(),
                "the pass is due: the loop is about to run it, and it covers this request");
        assertEquals(Optional.of(Duration.ZERO), triggers.untilDue());
    }

    @Test
    void aPassStartingServesEveryRequestAndOpensTheNextInterval() {
        triggers.passStarted();
        clock.advance(Duration.ofSeconds(1));
        triggers.request();
        clock.advance(Duration.ofSeconds(9));
        triggers.passStarted();
        assertEquals(Optional.empty(), triggers.due());
        assertEquals(Optional.empty(), triggers.untilDue());

        clock.advance(Duration.ofMillis(500));
        assertEquals(new PassTriggers.Accepted(T0.plusSeconds(20)), triggers.request(),
                "measured from the pass that just started");
    }

    @Test
    void aPeriodicPassCountsAndServesAPendingRequest() {
        triggers.passStarted();
        clock.advance(Duration.ofSeconds(3));
        assertEquals(new PassTriggers.Accepted(T0.plusSeconds(10)), triggers.request());
        clock.advance(Duration.ofSeconds(2));
        triggers.passStarted(); // the interval's own pass, before the requested one was due
        assertEquals(Optional.empty(), triggers.due());
        clock.advance(Duration.ofSeconds(1));
        assertEquals(new PassTriggers.Accepted(T0.plusSeconds(15)), triggers.request());
    }

    @Test
    void aRequestAfterTheIntervalRunsNow() {
        triggers.passStarted();
        clock.advance(Duration.ofSeconds(10));
        assertEquals(new PassTriggers.Accepted(T0.plusSeconds(10)), triggers.request());
        triggers.passStarted();
        clock.advance(Duration.ofMinutes(5));
        assertEquals(new PassTriggers.Accepted(T0.plusSeconds(310)), triggers.request());
    }

    @Test
    void aBurstOfRequestsMakesOnePassPerInterval() {
        // 200 requests in one second, then every second for a minute: the loop runs a pass whenever one is due.
        int accepted = 0;
        int throttled = 0;
        int passes = 0;
        triggers.passStarted();
        for (int ms = 0; ms < 61_000; ms += 5) {
            if (triggers.untilDue().map(Duration::isZero).orElse(false)) {
                triggers.passStarted();
                passes++;
            }
            if (ms < 1_000 || ms % 1_000 == 0) {
                if (triggers.request() instanceof PassTriggers.Accepted) {
                    accepted++;
                } else {
                    throttled++;
                }
            }
            clock.advance(Duration.ofMillis(5));
        }
        assertEquals(6, passes, "at 10, 20, ... 60 s");
        assertEquals(7, accepted, "the first request after each pass started (0, 10, ... 60 s)");
        assertEquals(200 + 60 - 7, throttled);
    }

    @Test
    void withoutAMinimumEveryRequestIsScheduledNow() {
        PassTriggers unbounded = new PassTriggers(Duration.ZERO, clock);
        unbounded.passStarted();
        assertEquals(new PassTriggers.Accepted(T0), unbounded.request());
        assertEquals(new PassTriggers.Accepted(T0), unbounded.request());
    }

    @Test
    void retryAfterIsWholeSecondsRoundedUpAndAtLeastOne() {
        assertEquals(1, PassTriggers.wholeSecondsUp(Duration.ofNanos(1)));
        assertEquals(1, PassTriggers.wholeSecondsUp(Duration.ofSeconds(1)));
        assertEquals(2, PassTriggers.wholeSecondsUp(Duration.ofMillis(1_001)));
        assertEquals(10, PassTriggers.wholeSecondsUp(Duration.ofSeconds(10)));
        assertEquals(1, PassTriggers.wholeSecondsUp(Duration.ZERO));
    }
}
