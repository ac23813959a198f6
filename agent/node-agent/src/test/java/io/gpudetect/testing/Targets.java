package io.gpudetect.testing;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.k8s.AkashCoexistence;
import io.gpudetect.k8s.health.GpuHealthState;
import io.gpudetect.record.CapacityRecords;
import io.gpudetect.record.PassOutcome;
import io.gpudetect.sink.Change;
import io.gpudetect.sink.DesiredState;
import io.gpudetect.sink.Sink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A target's read and decision in one call, as the agent's pass makes them, and desired states of labels alone. */
public final class Targets {

    private Targets() {
    }

    /** Reads what {@code target} holds and decides its change to {@code desired}. */
    public static <S, C extends Change> C decide(Sink<S, C> target, DesiredState desired) {
        try {
            return target.decide(target.read(desired), desired);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A pass on node {@code n1} that wants the record of {@code inventory} (no resources, host facts nor DRM cards)
     * and no labels; incomplete when {@code complete} is false whatever the inventory says.
     */
    public static DesiredState record(Inventory inventory, boolean complete, Instant now, Duration heartbeat) {
        PassOutcome outcome = complete ? PassOutcome.COMPLETE : PassOutcome.INCOMPLETE;
        return new DesiredState("n1", new TreeMap<>(), new AkashCoexistence.AgentOwns(), outcome,
                CapacityRecords.spec(inventory, Map.of(), Map.of(), null, null, "test"),
                CapacityRecords.status(inventory, outcome, now, heartbeat, null),
                GpuHealthState.of(inventory.realGpus()), now);
    }

    /** A pass on node {@code n1} that wants {@code labels} and nothing of the record; no Akash operator. */
    public static DesiredState labels(Map<String, String> labels, boolean complete) {
        return new DesiredState("n1", new TreeMap<>(labels), new AkashCoexistence.AgentOwns(),
                complete ? PassOutcome.COMPLETE : PassOutcome.INCOMPLETE, null, null, List.of(), Instant.EPOCH);
    }
}
