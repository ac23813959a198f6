package io.gpudetect.record;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The record's status a pass wants, as a value: everything but {@code lastGoodPass}, which depends on the
 * status the record holds when it is written ({@link #after}).
 *
 * @param outcome     the pass's outcome
 * @param problems    the pass's warnings and errors
 * @param akashLabels who owns the node's Akash keys when it is not the agent, else null
 * @param now         when the pass ran
 * @param heartbeat   how often a complete pass refreshes {@code lastGoodPass}
 */
public record StatusUpdate(PassOutcome outcome, List<GpuCapacityStatus.Problem> problems, String akashLabels,
                           Instant now, Duration heartbeat) {

    public StatusUpdate {
        problems = List.copyOf(problems);
    }

    /**
     * The status to hold after this pass, given the one held now (null when none is known). {@code lastGoodPass}
     * moves to {@code now} (to the second) only on a complete pass and only once {@code heartbeat} has passed since
     * the value held, so repeated identical passes give an equal status and cause no write.
     */
    public GpuCapacityStatus after(GpuCapacityStatus held) {
        String lastGood = held == null ? null : held.lastGoodPass();
        if (outcome == PassOutcome.COMPLETE && !heartbeatDue(lastGood).isAfter(now)) {
            lastGood = now.truncatedTo(ChronoUnit.SECONDS).toString();
        }
        return new GpuCapacityStatus(outcome.id(), problems, lastGood, akashLabels);
    }

    /**
     * Until when {@link #after} gives the same status for {@code held} as it does at {@link #now}: a complete pass
     * moves {@code lastGoodPass} once the heartbeat has passed since it; an incomplete one never does.
     */
    public Instant sameUntil(GpuCapacityStatus held) {
        if (outcome != PassOutcome.COMPLETE) {
            return Instant.MAX;
        }
        Instant due = heartbeatDue(held == null ? null : held.lastGoodPass());
        return due.isAfter(now) ? due : now;
    }

    /** When a complete pass next moves {@code lastGoodPass}: a heartbeat after it; at once when it is absent or unreadable. */
    private Instant heartbeatDue(String lastGood) {
        if (lastGood == null) {
            return Instant.MIN;
        }
        try {
            return Instant.parse(lastGood).plus(heartbeat);
        } catch (DateTimeParseException e) {
            return Instant.MIN;
        }
    }
}
