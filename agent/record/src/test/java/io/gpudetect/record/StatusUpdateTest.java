package io.gpudetect.record;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusUpdateTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:10:00Z");
    private static final Duration HEARTBEAT = Duration.ofMinutes(5);

    private static StatusUpdate update(PassOutcome outcome) {
        return new StatusUpdate(outcome, List.of(), null, NOW, HEARTBEAT);
    }

    private static GpuCapacityStatus held(String lastGoodPass) {
        return new GpuCapacityStatus("complete", List.of(), lastGoodPass, null);
    }

    @Test
    void aCompletePassKeepsTheStatusUntilTheHeartbeatFallsDue() {
        GpuCapacityStatus held = held("2026-01-01T00:07:00Z");
        assertEquals(held, update(PassOutcome.COMPLETE).after(held), "3 of 5 minutes: nothing moves");
        assertEquals(Instant.parse("2026-01-01T00:12:00Z"), update(PassOutcome.COMPLETE).sameUntil(held));
        // At that moment the status does move: sameUntil is the first instant after() differs.
        StatusUpdate due = new StatusUpdate(PassOutcome.COMPLETE, List.of(), null, Instant.parse("2026-01-01T00:12:00Z"),
                HEARTBEAT);
        assertEquals("2026-01-01T00:12:00Z", due.after(held).lastGoodPass());
    }

    @Test
    void aHeartbeatAlreadyDueOrUnreadableMovesNow() {
        assertEquals(NOW, update(PassOutcome.COMPLETE).sameUntil(held("2026-01-01T00:00:00Z")));
        assertEquals(NOW, update(PassOutcome.COMPLETE).sameUntil(held("yesterday")));
        assertEquals(NOW, update(PassOutcome.COMPLETE).sameUntil(held(null)));
        assertEquals(NOW, update(PassOutcome.COMPLETE).sameUntil(null));
    }

    @Test
    void anIncompletePassNeverMovesTheHeartbeat() {
        assertEquals(Instant.MAX, update(PassOutcome.INCOMPLETE).sameUntil(held("2026-01-01T00:00:00Z")));
    }
}
