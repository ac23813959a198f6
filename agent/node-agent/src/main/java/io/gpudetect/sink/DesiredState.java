package io.gpudetect.sink;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.k8s.AkashCoexistence;
import io.gpudetect.k8s.health.GpuHealthState;
import io.gpudetect.record.CapacityRecords;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.record.dra.DraObjects;
import io.gpudetect.record.dra.Handouts;
import io.gpudetect.record.PassOutcome;
import io.gpudetect.record.StatusUpdate;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What one pass wants every target to hold, computed once and purely ({@link #of}) from what it observed, and
 * handed to each target's decision.
 *
 * @param nodeName     the node the agent runs on
 * @param labels       the labels the enabled profiles produced, the Akash operator's keys left out where it runs
 * @param akash        who owns the node's Akash keys, decided once per pass from the Node as the pass read it (a
 *                     conflict's fresh read of the Node changes what the labels are decided from, not this; the
 *                     next pass decides again)
 * @param outcome      an incomplete pass keeps labels and the record's spec as they are
 * @param recordSpec   the {@code GpuCapacity} spec
 * @param recordStatus the {@code GpuCapacity} status, given the status held when it is written
 * @param health       each GPU's health, for the health outputs (condition, Events, taints)
 * @param now          when the pass decided: the time the health outputs stamp on what they write
 */
public record DesiredState(String nodeName, SortedMap<String, String> labels, AkashCoexistence akash,
                           PassOutcome outcome, GpuCapacitySpec recordSpec, StatusUpdate recordStatus,
                           List<GpuHealthState> health, Instant now) {

    public DesiredState {
        labels = Collections.unmodifiableSortedMap(new TreeMap<>(labels));
        health = List.copyOf(health);
    }

    /**
     * The desired state for a pass, with the {@link #outcome(Inventory, SortedMap)} it judged.
     *
     * @param dra      the node's DRA objects, from which the record's {@code handout} is decided; null when no
     *                 Node was read (a dry run without a cluster): the record then has no hand-out
     * @param rendered the labels the profiles produced; null when two profiles produced the same key (the pass is
     *                 then incomplete and every label kept)
     */
    public static DesiredState of(String nodeName, Observation seen, NodeFacts node, DraObjects dra,
                                  SortedMap<String, String> rendered,
                                  AkashCoexistence.OperatorSetting akashOperator, String agentVersion, Instant now,
                                  Duration heartbeat) {
        PassOutcome outcome = outcome(seen.inventory(), rendered);
        AkashCoexistence akash = AkashCoexistence.decide(node.labels(), node.annotations(), akashOperator);
        GpuCapacitySpec spec = CapacityRecords.spec(seen.inventory(), node.allocatable(), node.requested(),
                seen.hostFacts(), seen.drmCards(), agentVersion).withBootId(node.bootId());
        if (dra != null) {
            spec = spec.withHandout(Handouts.of(seen.inventory().realGpus(), spec.allocatable(), dra.slices(),
                    dra.allocations(), dra.unreadClaims()));
        }
        return new DesiredState(nodeName, akash.desired(rendered == null ? new TreeMap<>() : rendered), akash, outcome,
                spec, CapacityRecords.status(seen.inventory(), outcome, now, heartbeat, akash.status()),
                GpuHealthState.of(seen.inventory().realGpus()), now);
    }

    /**
     * The one place a pass is judged complete: every present probe answered and the profiles rendered labels
     * ({@code rendered} null: two profiles produced the same key).
     */
    public static PassOutcome outcome(Inventory inventory, SortedMap<String, String> rendered) {
        return inventory.complete() && rendered != null ? PassOutcome.COMPLETE : PassOutcome.INCOMPLETE;
    }

    public boolean complete() {
        return outcome == PassOutcome.COMPLETE;
    }
}
