package io.gpudetect.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.k8s.AkashCoexistence.AgentOwns;
import io.gpudetect.k8s.AkashCoexistence.OperatorOwns;
import io.gpudetect.k8s.AkashCoexistence.OperatorSetting;
import io.gpudetect.sink.NodeFacts;
import io.gpudetect.testing.Profiles;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Who owns a node's Akash keys, case by case, and what the agent may then set and withdraw. */
class AkashCoexistenceTest {

    private static final String GPU_KEY = "akash.network/capabilities.gpu.vendor.nvidia.model.t4";
    private static final Map<String, String> OPERATOR_NODE = Map.of("akash.network", "true", GPU_KEY, "1",
            "akash.network/capabilities.storage.class.beta3", "1", "nvidia.com/gpu.present", "true",
            "kubernetes.io/hostname", "n1");

    static Stream<Arguments> cases() {
        return Stream.of(
                // description, labels, owned-labels annotation (null: none), setting, expected evidence (null: agent owns)
                Arguments.of("no Akash label, auto", Map.of("kubernetes.io/hostname", "n1"), null, OperatorSetting.AUTO, null),
                Arguments.of("the operator's marker, auto", OPERATOR_NODE, null, OperatorSetting.AUTO,
                        "node label akash.network=true"),
                Arguments.of("the operator's marker beside our own keys, auto", OPERATOR_NODE, "gpu-detect.io/gpu.count",
                        OperatorSetting.AUTO, "node label akash.network=true"),
                Arguments.of("a marker that is not 'true', auto", Map.of("akash.network", "false"), null, OperatorSetting.AUTO, null),
                Arguments.of("our own marker, every key we wrote still there, auto", Map.of("akash.network", "true", GPU_KEY, "1"),
                        "akash.network," + GPU_KEY, OperatorSetting.AUTO, null),
                Arguments.of("our own marker, a key we wrote deleted by someone, auto", Map.of("akash.network", "true"),
                        "akash.network," + GPU_KEY, OperatorSetting.AUTO,
                        "node label akash.network=true; " + GPU_KEY + " removed by someone else"),
                Arguments.of("our own nvidia.com/gpu.present deleted, auto", Map.of("akash.network", "true"),
                        "akash.network,nvidia.com/gpu.present", OperatorSetting.AUTO,
                        "node label akash.network=true; nvidia.com/gpu.present removed by someone else"),
                Arguments.of("one of our other keys deleted, auto", Map.of("akash.network", "true"),
                        "akash.network,gpu-detect.io/gpu.count", OperatorSetting.AUTO, null),
                Arguments.of("no Akash label, present", Map.of(), null, OperatorSetting.PRESENT, "setting akash-operator=present"),
                Arguments.of("our own marker, present", Map.of("akash.network", "true"), "akash.network",
                        OperatorSetting.PRESENT, "setting akash-operator=present"),
                Arguments.of("the operator's marker, absent", OPERATOR_NODE, null, OperatorSetting.ABSENT, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void decidesWhoOwnsTheAkashKeys(String description, Map<String, String> labels, String owned, OperatorSetting setting,
                                    String evidence) {
        Map<String, String> annotations = owned == null ? Map.of("other.example/x", "y")
                : Map.of(OwnedLabels.ANNOTATION, owned, "other.example/x", "y");
        AkashCoexistence decision = AkashCoexistence.decide(labels, annotations, setting);
        if (evidence == null) {
            assertEquals(new AgentOwns(), decision);
            assertNull(decision.status());
        } else {
            assertEquals(new OperatorOwns(evidence), decision);
            assertEquals("owned by Akash inventory operator (" + evidence + ")", decision.status());
        }
    }

    @Test
    void aNodeIsJudgedByItsLabelsAndAnnotationAndNoNodeHasNone() {
        assertInstanceOf(OperatorOwns.class, AkashCoexistence.decide(OPERATOR_NODE, Map.of(), OperatorSetting.AUTO));
        Map<String, String> ours = Map.of(OwnedLabels.ANNOTATION, "akash.network," + GPU_KEY + ",nvidia.com/gpu.present");
        assertInstanceOf(AgentOwns.class, AkashCoexistence.decide(OPERATOR_NODE, ours, OperatorSetting.AUTO));
        // A dry run without a cluster reads no Node.
        NodeFacts none = NodeFacts.NONE;
        assertInstanceOf(AgentOwns.class, AkashCoexistence.decide(none.labels(), none.annotations(), OperatorSetting.AUTO));
        assertInstanceOf(OperatorOwns.class,
                AkashCoexistence.decide(none.labels(), none.annotations(), OperatorSetting.PRESENT));
    }

    @Test
    void theOperatorsKeysAreWhatItsIsLabelManagedSays() {
        for (String key : List.of("akash.network", "akash.network/capabilities.gpu.vendor.nvidia.model.h100.ram.80Gi",
                "akash.network/gpu", "akash.network.example/x", "akash.networks.example/x", "nvidia.com/gpu.present")) {
            assertTrue(AkashCoexistence.isOperatorKey(key), key);
        }
        for (String key : List.of("gpu-detect.io/gpu.count", "nvidia.com/gpu.product", "nvidia.com/gpu.present.x",
                "example.com/akash.network", "amd.com/gpu.vram")) {
            assertFalse(AkashCoexistence.isOperatorKey(key), key);
        }
    }

    @Test
    void whileTheOperatorOwnsThemTheAgentNeitherSetsNorWithdrawsItsKeys() {
        SortedMap<String, String> produced = new TreeMap<>(Map.of("gpu-detect.io/gpu.count", "1", "akash.network", "true",
                GPU_KEY, "1", "nvidia.com/gpu.present", "true", "nvidia.com/gpu.product", "Tesla-T4"));
        Predicate<String> base = Profiles.of("gpu-detect,nvidia,akash")::mayRemove;

        AkashCoexistence operator = new OperatorOwns("node label akash.network=true");
        assertEquals(Map.of("gpu-detect.io/gpu.count", "1", "nvidia.com/gpu.product", "Tesla-T4"), operator.desired(produced));
        Predicate<String> mayRemove = operator.mayRemove(base);
        assertFalse(mayRemove.test("akash.network"));
        assertFalse(mayRemove.test(GPU_KEY));
        assertFalse(mayRemove.test("akash.network/gpu"));
        assertFalse(mayRemove.test("nvidia.com/gpu.present"));
        assertTrue(mayRemove.test("gpu-detect.io/gpu.model"));
        assertTrue(mayRemove.test("nvidia.com/gpu.product"));
        assertFalse(mayRemove.test("example.com/zone"), "still nothing outside our prefixes");

        AkashCoexistence agent = new AgentOwns();
        assertEquals(produced, agent.desired(produced));
        assertTrue(agent.mayRemove(base).test("akash.network"));
        assertTrue(agent.mayRemove(base).test(GPU_KEY));
        assertTrue(agent.mayRemove(base).test("akash.network/gpu"), "the key older versions wrote is withdrawn");
    }

    @Test
    void withTheOperatorOnTheNodeLabelSyncAddsChangesAndRemovesNoneOfItsKeys() {
        // The operator's node, where an older agent once wrote akash.network/gpu and a stale t4 count.
        Map<String, String> labels = new TreeMap<>(OPERATOR_NODE);
        labels.put("akash.network/gpu", "true");
        labels.put("gpu-detect.io/gpu.model", "t4");
        Map<String, String> annotations = Map.of(OwnedLabels.ANNOTATION,
                "akash.network/gpu," + GPU_KEY + ",gpu-detect.io/gpu.model");
        SortedMap<String, String> produced = new TreeMap<>(Map.of("akash.network", "true",
                "akash.network/capabilities.gpu.vendor.nvidia.model.rtx4090", "1", GPU_KEY, "2",
                "gpu-detect.io/gpu.model", "rtx4090"));
        AkashCoexistence akash = AkashCoexistence.decide(labels, annotations, OperatorSetting.AUTO);

        LabelChange change = LabelSync.decide(labels, annotations, akash.desired(produced), true,
                akash.mayRemove(Profiles.of("gpu-detect,akash")::mayRemove));

        LabelChange.Patch patch = assertInstanceOf(LabelChange.Patch.class, change);
        assertEquals(Map.of("gpu-detect.io/gpu.model", "rtx4090"), patch.set());
        assertEquals(List.of(), List.copyOf(patch.remove()));
        assertEquals("gpu-detect.io/gpu.model", patch.ownedAnnotation(), "the Akash keys are no longer claimed");
    }

    @Test
    void settingsAreParsedFromTheirNamesInAnyCase() {
        assertEquals(OperatorSetting.AUTO, OperatorSetting.parse("auto"));
        assertEquals(OperatorSetting.PRESENT, OperatorSetting.parse(" Present "));
        assertEquals(OperatorSetting.ABSENT, OperatorSetting.parse("ABSENT"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OperatorSetting.parse("maybe"));
        assertEquals("akash-operator: 'maybe' is not one of auto, present, absent", e.getMessage());
    }
}
