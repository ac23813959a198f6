package io.gpudetect.k8s.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.k8s.health.GpuHealthState.State;
import io.gpudetect.record.dra.NodeHandout;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The condition's rule, the patch that writes it, and the Events' and the taint's rules, case by case. */
class GpuHealthConditionTest {

    static final Instant NOW = Instant.parse("2026-01-01T00:05:00.123Z");
    static final GpuHealthState OK_A = new GpuHealthState("0000:19:00.0", "GPU-a", State.OK, null, "");
    static final GpuHealthState LOST_B = new GpuHealthState("0000:3b:00.0", null, State.LOST, "GpuLost", "GPU is lost");
    static final GpuHealthState FAILED_C = new GpuHealthState("0000:4c:00.0", "GPU-c", State.FAILED, "XidCritical", "Xid 48");
    static final GpuHealthState DEGRADED_D = new GpuHealthState("0000:5d:00.0", "GPU-d", State.DEGRADED, "GpuDegraded",
            "2 pages pending retirement");

    static HealthMarks held(String status, String reason, String message) {
        return new HealthMarks(new GpuHealthCondition.Held(1, status, reason, message, "2025-12-01T00:00:00Z",
                "2025-12-01T00:00:00Z"), HealthMarks.Parent.ENTRIES, -1, HealthMarks.Parent.NO_LIST);
    }

    @Test
    void theWorstGpuGivesTheReasonAndEveryGpuIsNamed() {
        GpuHealthCondition.Value v = GpuHealthCondition.desired(List.of(OK_A, FAILED_C, LOST_B, DEGRADED_D));
        assertEquals("False", v.status());
        assertEquals("GpuLost", v.reason(), "lost is worse than failed");
        assertEquals("GPU 0000:3b:00.0 (UUID unknown) lost (GpuLost): GPU is lost; GPU 0000:4c:00.0 (GPU-c) failed"
                + " (XidCritical): Xid 48; GPU 0000:5d:00.0 (GPU-d) degraded (GpuDegraded): 2 pages pending retirement;"
                + " 1 GPU healthy: 0000:19:00.0 (GPU-a)", v.message());
    }

    @Test
    void aDegradedGpuKeepsTheConditionTrueWithItsReason() {
        GpuHealthCondition.Value v = GpuHealthCondition.desired(List.of(OK_A, DEGRADED_D));
        assertEquals(new GpuHealthCondition.Value("True", "GpuDegraded", "GPU 0000:5d:00.0 (GPU-d) degraded (GpuDegraded):"
                + " 2 pages pending retirement; 1 GPU healthy: 0000:19:00.0 (GPU-a)"), v);
    }

    @Test
    void aLongMessageIsCutBetweenGpusSayingHowManyWereLeftOut() {
        List<GpuHealthState> many = IntStream.range(0, 64).mapToObj(i -> new GpuHealthState(
                String.format("0000:%02x:00.0", i), "GPU-" + "x".repeat(36) + i, State.LOST, "GpuLost", "GPU is lost")).toList();
        String m = GpuHealthCondition.desired(many).message();
        assertTrue(m.length() <= GpuHealthCondition.MAX_MESSAGE, m.length() + ": " + m);
        assertTrue(m.matches(".*; and \\d+ more GPUs \\(the GpuCapacity record lists each\\)"), m);
    }

    @Test
    void theTransitionTimeMovesOnlyWithTheStatus() {
        var sameStatus = (GpuHealthCondition.Write) GpuHealthCondition.decide(held("False", "XidCritical", "old"),
                List.of(LOST_B), true, NOW);
        assertEquals("2025-12-01T00:00:00Z", sameStatus.condition().lastTransitionTime(), "False to False");
        assertEquals("2026-01-01T00:05:00Z", sameStatus.condition().lastHeartbeatTime());
        assertEquals(1, sameStatus.index());
        var flipped = (GpuHealthCondition.Write) GpuHealthCondition.decide(held("False", "GpuLost", "old"),
                List.of(OK_A), true, NOW);
        assertEquals("2026-01-01T00:05:00Z", flipped.condition().lastTransitionTime());
    }

    @Test
    void nothingIsWrittenForAnIncompletePassAnUnchangedConditionOrANodeWithoutGpus() {
        GpuHealthCondition.Value v = GpuHealthCondition.desired(List.of(LOST_B));
        assertInstanceOf(GpuHealthCondition.Keep.class,
                GpuHealthCondition.decide(held("True", "GpusHealthy", "x"), List.of(LOST_B), false, NOW));
        assertInstanceOf(GpuHealthCondition.Keep.class,
                GpuHealthCondition.decide(held(v.status(), v.reason(), v.message()), List.of(LOST_B), true, NOW));
        assertInstanceOf(GpuHealthCondition.Keep.class, GpuHealthCondition.decide(HealthMarks.NONE, List.of(), true, NOW));
        var unknown = (GpuHealthCondition.Write) GpuHealthCondition.decide(held("False", "GpuLost", "x"), List.of(), true, NOW);
        assertEquals("Unknown/NoGpuDetected", unknown.condition().status() + "/" + unknown.condition().reason());
    }

    @Test
    void thePatchTouchesOnlyTheAgentsEntry() {
        var replace = (GpuHealthCondition.Write) GpuHealthCondition.decide(held("True", "GpusHealthy", "x"),
                List.of(LOST_B), true, NOW);
        assertEquals("[{\"op\":\"replace\",\"path\":\"/metadata/resourceVersion\",\"value\":\"42\"},"
                + "{\"op\":\"test\",\"path\":\"/status/conditions/1/type\",\"value\":\"GpuHealthy\"},"
                + "{\"op\":\"replace\",\"path\":\"/status/conditions/1\",\"value\":{\"type\":\"GpuHealthy\",\"status\":\"False\","
                + "\"reason\":\"GpuLost\",\"message\":\"GPU 0000:3b:00.0 (UUID unknown) lost (GpuLost): GPU is lost\","
                + "\"lastHeartbeatTime\":\"2026-01-01T00:05:00Z\",\"lastTransitionTime\":\"2026-01-01T00:05:00Z\"}}]",
                HealthConditionSink.jsonPatch(replace, "42"));
        var append = (GpuHealthCondition.Write) GpuHealthCondition.decide(new HealthMarks(null, HealthMarks.Parent.ENTRIES,
                -1, HealthMarks.Parent.NO_LIST), List.of(OK_A), true, NOW);
        assertTrue(HealthConditionSink.jsonPatch(append, "42").contains("{\"op\":\"add\",\"path\":\"/status/conditions/-\""));
    }

    @Test
    void eventsFollowChangesOfStateOnly() {
        List<GpuHealthState> published = List.of(OK_A, new GpuHealthState("0000:3b:00.0", null, State.OK, null, ""));
        assertEquals(List.of(new HealthEvents.GpuChange(State.OK, LOST_B)),
                HealthEvents.changes(published, List.of(OK_A, LOST_B), true));
        assertEquals(List.of(), HealthEvents.changes(published, List.of(OK_A, LOST_B), false), "incomplete pass");
        assertEquals(List.of(), HealthEvents.changes(List.of(OK_A, LOST_B), List.of(OK_A, LOST_B), true));
        assertEquals(List.of(new HealthEvents.GpuChange(null, LOST_B)), HealthEvents.changes(List.of(), List.of(OK_A, LOST_B), true),
                "a GPU first seen: an Event only when it is not ok");
        GpuHealthState unnamed = new GpuHealthState(null, null, State.LOST, "GpuLost", "Unknown Error");
        assertEquals(List.of(), HealthEvents.changes(List.of(unnamed), List.of(unnamed), true), "paired by order");
    }

    @Test
    void theTaintFollowsItsPolicy() {
        HealthMarks none = new HealthMarks(null, HealthMarks.Parent.ENTRIES, -1, HealthMarks.Parent.ENTRIES);
        HealthMarks tainted = new HealthMarks(null, HealthMarks.Parent.ENTRIES, 2, HealthMarks.Parent.ENTRIES);
        List<GpuHealthState> oneLost = List.of(OK_A, LOST_B);
        assertInstanceOf(HealthTaint.Keep.class, HealthTaint.decide(HealthTaint.Policy.NONE, none, oneLost, true));
        assertInstanceOf(HealthTaint.Keep.class, HealthTaint.decide(HealthTaint.Policy.NONE, tainted, List.of(OK_A), true),
                "off: a taint left from an earlier setting is not touched");
        assertEquals(new HealthTaint.Add(HealthMarks.Parent.ENTRIES), HealthTaint.decide(HealthTaint.Policy.ANY_FAILED, none, oneLost, true));
        assertInstanceOf(HealthTaint.Keep.class, HealthTaint.decide(HealthTaint.Policy.ALL_FAILED, none, oneLost, true));
        assertEquals(new HealthTaint.Add(HealthMarks.Parent.ENTRIES),
                HealthTaint.decide(HealthTaint.Policy.ALL_FAILED, none, List.of(LOST_B, FAILED_C), true));
        assertEquals(new HealthTaint.Remove(2), HealthTaint.decide(HealthTaint.Policy.ANY_FAILED, tainted, List.of(OK_A), true));
        assertInstanceOf(HealthTaint.Keep.class, HealthTaint.decide(HealthTaint.Policy.ANY_FAILED, tainted, List.of(OK_A), false));
        assertEquals("[{\"op\":\"replace\",\"path\":\"/metadata/resourceVersion\",\"value\":\"7\"},"
                + "{\"op\":\"test\",\"path\":\"/spec/taints/2/key\",\"value\":\"gpu-detect.io/gpu-unhealthy\"},"
                + "{\"op\":\"remove\",\"path\":\"/spec/taints/2\"}]", HealthTaintSink.jsonPatch(new HealthTaint.Remove(2), "7"));
    }

    @Test
    void deviceTaintRulesOnlyForDevicesTiedToAFailedOrLostGpu() {
        var tied = new NodeHandout.DraDeviceRef("gpu.nvidia.com", "n", "gpu-1", "gpu", "resource.kubernetes.io/pciBusID",
                false, List.of());
        var unmatched = new NodeHandout.DraDeviceRef("gpu.nvidia.com", "n", "gpu-7", "gpu", null, false, List.of());
        var handout = new NodeHandout("dra", List.of(
                new NodeHandout.GpuHandout("0000:3b:00.0", null, "dra", null, List.of(tied), false),
                new NodeHandout.GpuHandout("0000:19:00.0", "GPU-a", "dra", null, List.of(), false)),
                List.of(), List.of(unmatched), List.of());
        var wanted = DeviceTaintRules.wanted("n", handout, List.of(OK_A, LOST_B), DeviceTaints.NO_SCHEDULE);
        assertEquals(List.of("gpu-1"), wanted.values().stream().map(DeviceTaintRules.Rule::device).toList(),
                "the unmatched gpu-7 gets none, though a GPU is lost");
        assertEquals("NoSchedule", wanted.values().iterator().next().effect());
        assertEquals(List.of(), DeviceTaintRules.wanted("n", handout, List.of(OK_A, LOST_B), DeviceTaints.OFF).values().stream().toList());
        var decision = DeviceTaintRules.decide("n", handout, List.of(OK_A, LOST_B), DeviceTaints.NONE,
                new java.util.TreeMap<>(wanted), true);
        assertEquals(wanted.keySet().stream().toList(), decision.delete(), "the effect changed: replaced");
        assertEquals(1, decision.create().size());
        assertEquals(List.of(), DeviceTaintRules.decide("n", handout, List.of(OK_A, LOST_B), DeviceTaints.NONE,
                new java.util.TreeMap<>(wanted), false).delete(), "an incomplete pass keeps the rules");
    }
}
