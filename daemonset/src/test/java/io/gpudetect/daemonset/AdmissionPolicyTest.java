package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.NamedRuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Variable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The admission policy (rendered as a 1.30+ cluster gets it), checked for its shape and then run: the
 * agent may change its own node's labels under its prefixes, and nothing else.
 */
class AdmissionPolicyTest {

    private static final String AGENT = "system:serviceaccount:gpu-detect:gpu-detect";
    /** With the akash profile on (it is off by default), for the widest prefixes the chart gives. */
    private static final RenderedChart CHART = Chart.render("admissionPolicy: {requireApi: false}\n"
            + "labels: {profiles: [gpu-detect, akash]}\n");
    private static final ValidatingAdmissionPolicy NODE_POLICY = CHART.the(ValidatingAdmissionPolicy.class, "gpu-detect-own-node");
    private static final ValidatingAdmissionPolicy STATUS_POLICY =
            CHART.the(ValidatingAdmissionPolicy.class, "gpu-detect-own-node-status");
    private static final ValidatingAdmissionPolicy CAPACITY_POLICY =
            CHART.the(ValidatingAdmissionPolicy.class, "gpu-detect-own-capacity");

    static Map<String, String> variables(ValidatingAdmissionPolicy policy) {
        return policy.getSpec().getVariables().stream().collect(Collectors.toMap(Variable::getName, Variable::getExpression));
    }

    @Test
    void policiesMatchOnlyTheAgentsWritesAndAreBoundToDeny() {
        NamedRuleWithOperations nodes = NODE_POLICY.getSpec().getMatchConstraints().getResourceRules().get(0);
        assertEquals(List.of(List.of(""), List.of("nodes"), List.of("UPDATE")),
                List.of(nodes.getApiGroups(), nodes.getResources(), nodes.getOperations()));
        NamedRuleWithOperations records = CAPACITY_POLICY.getSpec().getMatchConstraints().getResourceRules().get(0);
        assertEquals(List.of(List.of("gpu-detect.io"), List.of("gpucapacities", "gpucapacities/status"), List.of("CREATE", "UPDATE")),
                List.of(records.getApiGroups(), records.getResources(), records.getOperations()));
        for (ValidatingAdmissionPolicy policy : List.of(NODE_POLICY, CAPACITY_POLICY)) {
            assertEquals("Fail", policy.getSpec().getFailurePolicy());
            assertTrue(policy.getSpec().getMatchConditions().get(0).getExpression().contains("'" + AGENT + "'"));
            assertTrue(variables(policy).get("nodeName").contains("'authentication.kubernetes.io/node-name'"));
            ValidatingAdmissionPolicyBinding binding = CHART.the(ValidatingAdmissionPolicyBinding.class,
                    policy.getMetadata().getName());
            assertEquals(policy.getMetadata().getName(), binding.getSpec().getPolicyName());
            assertEquals(List.of("Deny"), binding.getSpec().getValidationActions());
        }
        assertEquals("[\"gpu-detect.io/\",\"akash.network\",\"nvidia.com/gpu.present\"]",
                variables(NODE_POLICY).get("labelPrefixes"));
    }

    @Test
    void agentMayLabelItsOwnNodeUnderItsPrefixes() {
        var decision = nodeUpdate("gpu-1", "gpu-1",
                Map.of("kubernetes.io/hostname", "gpu-1", "akash.network/capabilities.gpu.vendor.nvidia.model.a100", "1"),
                Map.of("kubernetes.io/hostname", "gpu-1", "gpu-detect.io/gpu.count", "8",
                        "akash.network/capabilities.gpu.vendor.nvidia.model.h100", "8"));
        assertTrue(decision.matched());
        assertEquals(List.of(), decision.denials());
    }

    @Test
    void agentMayNotTouchAnotherNode() {
        var decision = nodeUpdate("gpu-1", "gpu-2", Map.of(), Map.of("gpu-detect.io/gpu.count", "8"));
        assertEquals(List.of("gpu-detect may change only the node it runs on (gpu-1), not gpu-2"), decision.denials());
    }

    @Test
    void tokenWithoutANodeClaimIsDenied() {
        Map<String, Object> request = Map.of("userInfo", Map.of("username", AGENT));
        var decision = PolicyEvaluator.evaluate(NODE_POLICY, request, node("gpu-1", Map.of("gpu-detect.io/x", "1"), Map.of()),
                node("gpu-1", Map.of(), Map.of()));
        assertFalse(decision.allowed());
    }

    @Test
    void agentMayNotAddChangeOrRemoveOtherLabels() {
        assertFalse(nodeUpdate("n", "n", Map.of(), Map.of("node-role.kubernetes.io/gpu", "")).allowed(), "add");
        assertFalse(nodeUpdate("n", "n", Map.of("zone", "a"), Map.of("zone", "b")).allowed(), "change");
        assertFalse(nodeUpdate("n", "n", Map.of("zone", "a", "gpu-detect.io/gpu.count", "1"),
                Map.of("gpu-detect.io/gpu.count", "1")).allowed(), "remove");
        // A profile that is switched off is someone else's: the nvidia profile is not enabled by default.
        assertFalse(nodeUpdate("n", "n", Map.of(), Map.of("nvidia.com/gpu.product", "H100")).allowed(), "disabled profile");
        assertTrue(nodeUpdate("n", "n", Map.of(), Map.of("nvidia.com/gpu.present", "true", "akash.network", "true")).allowed(),
                "the akash profile's two marker labels");
        assertTrue(nodeUpdate("n", "n", Map.of("akash.network/gpu", "true"), Map.of()).allowed(),
                "withdraw the marker older versions wrote");
        assertTrue(nodeUpdate("n", "n", Map.of("gpu-detect.io/gpu.model", "h100"), Map.of()).allowed(), "withdraw own label");
    }

    @Test
    void withTheDefaultProfilesNoAkashKeyMayBeTouched() {
        ValidatingAdmissionPolicy defaults = Chart.render("admissionPolicy: {requireApi: false}\n")
                .the(ValidatingAdmissionPolicy.class, "gpu-detect-own-node");
        assertEquals("[\"gpu-detect.io/\"]", variables(defaults).get("labelPrefixes"));
        Map<String, Object> old = node("n", Map.of("akash.network", "true"), Map.of());
        assertFalse(PolicyEvaluator.evaluate(defaults, agentOn("n"), node("n", Map.of(), Map.of()), old).allowed(), "remove");
        assertFalse(PolicyEvaluator.evaluate(defaults, agentOn("n"),
                node("n", Map.of("akash.network", "true", "akash.network/capabilities.gpu.vendor.nvidia.model.t4", "1"),
                        Map.of()), old).allowed(), "add");
        assertTrue(PolicyEvaluator.evaluate(defaults, agentOn("n"),
                node("n", Map.of("akash.network", "true", "gpu-detect.io/gpu.count", "1"), Map.of()), old).allowed(),
                "our own key beside the operator's");
    }

    /**
     * The amd profile writes AMD's node labeller keys under two prefixes, amd.com/gpu. and beta.amd.com/gpu.: with it
     * on the agent may add, change and withdraw those, and still nothing else under either domain.
     */
    @Test
    void withTheAmdProfileTheLabellersTwoPrefixesAndNothingElse() {
        ValidatingAdmissionPolicy amd = Chart.render("admissionPolicy: {requireApi: false}\n"
                + "labels: {profiles: [gpu-detect, amd]}\n").the(ValidatingAdmissionPolicy.class, "gpu-detect-own-node");
        assertEquals("[\"gpu-detect.io/\",\"amd.com/gpu.\",\"beta.amd.com/gpu.\"]", variables(amd).get("labelPrefixes"));
        Map<String, String> before = Map.of("amd.com/gpu", "true", "beta.amd.com/gpu.vram.64G", "1",
                "beta.amd.com/gpu.vram", "64G", "amd.com/gpu.vram", "64G");
        Map<String, String> after = Map.of("amd.com/gpu", "true", "amd.com/gpu.vram", "192G",
                "beta.amd.com/gpu.vram", "192G", "beta.amd.com/gpu.vram.192G", "8",
                "beta.amd.com/gpu.family.AI", "8", "amd.com/gpu.compute-partitioning-supported", "true");
        assertTrue(PolicyEvaluator.evaluate(amd, agentOn("n"), node("n", after, Map.of()), node("n", before, Map.of()))
                .allowed(), "add, change and withdraw both forms");
        assertFalse(PolicyEvaluator.evaluate(amd, agentOn("n"), node("n", Map.of("amd.com/gpu", "false"), Map.of()),
                node("n", Map.of("amd.com/gpu", "true"), Map.of())).allowed(), "a user's amd.com/gpu is not the agent's");
        assertFalse(PolicyEvaluator.evaluate(amd, agentOn("n"), node("n", Map.of(), Map.of()),
                node("n", Map.of("amd.com/gpu", "true"), Map.of())).allowed(), "nor may it remove it");
        assertFalse(PolicyEvaluator.evaluate(amd, agentOn("n"), node("n", Map.of("beta.amd.com/cpu", "true"), Map.of()),
                node("n", Map.of(), Map.of())).allowed(), "other beta.amd.com keys");
        assertFalse(PolicyEvaluator.evaluate(NODE_POLICY, agentOn("n"),
                node("n", Map.of("beta.amd.com/gpu.family.AI", "1"), Map.of()), node("n", Map.of(), Map.of())).allowed(),
                "not with the amd profile off");
    }

    @Test
    void agentMayWriteOnlyItsOwnAnnotationsAndNeverTheSpec() {
        Map<String, Object> old = node("n", Map.of(), Map.of("node.alpha.kubernetes.io/ttl", "0"));
        assertTrue(update("n", node("n", Map.of(), Map.of("node.alpha.kubernetes.io/ttl", "0", "gpu-detect.io/owned-labels", "gpu-detect.io/gpu.count")),
                old).allowed());
        assertFalse(update("n", node("n", Map.of(), Map.of("node.alpha.kubernetes.io/ttl", "5")), old).allowed());
        Map<String, Object> tainted = new HashMap<>(node("n", Map.of(), Map.of("node.alpha.kubernetes.io/ttl", "0")));
        tainted.put("spec", Map.of("taints", List.of(Map.of("key", "x", "effect", "NoSchedule"))));
        assertEquals(List.of("gpu-detect may not change a node's spec (taints, unschedulable, ...)"),
                update("n", tainted, old).denials());
    }

    @Test
    void otherUsersAreNotJudgedByThisPolicy() {
        Map<String, Object> request = Map.of("userInfo", Map.of("username", "system:node:gpu-1"));
        var decision = PolicyEvaluator.evaluate(NODE_POLICY, request, node("gpu-2", Map.of("zone", "b"), Map.of()),
                node("gpu-2", Map.of(), Map.of()));
        assertFalse(decision.matched());
    }

    @Test
    void agentMayWriteOnlyTheCapacityRecordOfItsNode() {
        Map<String, Object> own = Map.of("metadata", Map.of("name", "gpu-1"), "spec", Map.of());
        Map<String, Object> other = Map.of("metadata", Map.of("name", "gpu-2"), "spec", Map.of());
        assertTrue(PolicyEvaluator.evaluate(CAPACITY_POLICY, agentOn("gpu-1"), own, null).allowed(), "create own");
        assertFalse(PolicyEvaluator.evaluate(CAPACITY_POLICY, agentOn("gpu-1"), other, null).allowed(), "create other");
        assertFalse(PolicyEvaluator.evaluate(CAPACITY_POLICY, agentOn("gpu-1"), other, other).allowed(), "update other");
    }

    @Test
    void agentMayChangeOnlyItsOwnConditionInItsNodesStatus() {
        NamedRuleWithOperations rule = STATUS_POLICY.getSpec().getMatchConstraints().getResourceRules().get(0);
        assertEquals(List.of("nodes/status"), rule.getResources());
        Map<String, Object> ready = Map.of("type", "Ready", "status", "True", "reason", "KubeletReady");
        Map<String, Object> npd = Map.of("type", "KernelDeadlock", "status", "False");
        Map<String, Object> ours = Map.of("type", "GpuHealthy", "status", "False", "reason", "GpuLost");
        Map<String, Object> old = status("gpu-1", List.of(ready, npd), "8");
        assertTrue(PolicyEvaluator.evaluate(STATUS_POLICY, agentOn("gpu-1"), status("gpu-1", List.of(ready, npd, ours), "8"),
                old).allowed());
        assertEquals(List.of("gpu-detect may change only its own condition GpuHealthy"), PolicyEvaluator.evaluate(
                STATUS_POLICY, agentOn("gpu-1"), status("gpu-1", List.of(ready, ours), "8"), old).denials(),
                "node-problem-detector's condition removed");
        assertFalse(PolicyEvaluator.evaluate(STATUS_POLICY, agentOn("gpu-1"),
                status("gpu-1", List.of(Map.of("type", "Ready", "status", "False"), npd, ours), "8"), old).allowed());
        assertEquals(List.of("gpu-detect may not change a node's capacity or allocatable resources"), PolicyEvaluator.evaluate(
                STATUS_POLICY, agentOn("gpu-1"), status("gpu-1", List.of(ready, npd, ours), "16"), old).denials());
        assertFalse(PolicyEvaluator.evaluate(STATUS_POLICY, agentOn("gpu-1"), status("gpu-2", List.of(ready, npd, ours), "8"),
                status("gpu-2", List.of(ready, npd), "8")).allowed(), "another node's status");
    }

    @Test
    void withTheHealthTaintOnTheAgentMayChangeThatTaintAndNothingElseOfTheSpec() {
        ValidatingAdmissionPolicy policy = Chart.render("admissionPolicy: {requireApi: false}\nhealth: {taint: anyFailed}\n")
                .the(ValidatingAdmissionPolicy.class, "gpu-detect-own-node");
        Map<String, Object> gpuTaint = Map.of("key", "nvidia.com/gpu", "effect", "NoSchedule");
        Map<String, Object> ours = Map.of("key", "gpu-detect.io/gpu-unhealthy", "effect", "NoSchedule");
        Map<String, Object> old = withSpec(Map.of("podCIDR", "10.0.0.0/24", "taints", List.of(gpuTaint)));
        assertTrue(PolicyEvaluator.evaluate(policy, agentOn("n"),
                withSpec(Map.of("podCIDR", "10.0.0.0/24", "taints", List.of(gpuTaint, ours))), old).allowed());
        assertTrue(PolicyEvaluator.evaluate(policy, agentOn("n"), old,
                withSpec(Map.of("podCIDR", "10.0.0.0/24", "taints", List.of(gpuTaint, ours)))).allowed(), "removed again");
        assertEquals(List.of("gpu-detect may add or remove only its own taint gpu-detect.io/gpu-unhealthy"),
                PolicyEvaluator.evaluate(policy, agentOn("n"), withSpec(Map.of("podCIDR", "10.0.0.0/24", "taints", List.of(ours))),
                        old).denials(), "another's taint removed");
        assertFalse(PolicyEvaluator.evaluate(policy, agentOn("n"), withSpec(Map.of("podCIDR", "10.0.0.0/24",
                "taints", List.of(gpuTaint), "unschedulable", true)), old).allowed(), "cordoned");
        assertFalse(PolicyEvaluator.evaluate(policy, agentOn("n"), withSpec(Map.of("podCIDR", "10.9.0.0/24",
                "taints", List.of(gpuTaint))), old).allowed());
    }

    private static Map<String, Object> status(String name, List<Map<String, Object>> conditions, String gpus) {
        return Map.of("metadata", Map.of("name", name), "status", Map.of("conditions", conditions,
                "allocatable", Map.of("nvidia.com/gpu", gpus), "capacity", Map.of("nvidia.com/gpu", "8")));
    }

    private static Map<String, Object> withSpec(Map<String, Object> spec) {
        return Map.of("metadata", Map.of("name", "n"), "spec", spec);
    }

    private static PolicyEvaluator.Decision nodeUpdate(String agentNode, String node, Map<String, String> oldLabels,
            Map<String, String> newLabels) {
        return update(agentNode, node(node, newLabels, Map.of()), node(node, oldLabels, Map.of()));
    }

    private static PolicyEvaluator.Decision update(String agentNode, Map<String, Object> object, Map<String, Object> old) {
        return PolicyEvaluator.evaluate(NODE_POLICY, agentOn(agentNode), object, old);
    }

    /** A request from the agent's pod token, which carries the node-name claim (Kubernetes 1.30+). */
    private static Map<String, Object> agentOn(String nodeName) {
        return Map.of("userInfo", Map.of("username", AGENT,
                "extra", Map.of("authentication.kubernetes.io/node-name", List.of(nodeName))));
    }

    private static Map<String, Object> node(String name, Map<String, String> labels, Map<String, String> annotations) {
        Map<String, Object> metadata = new HashMap<>();
        metadata.put("name", name);
        if (!labels.isEmpty()) {
            metadata.put("labels", labels);
        }
        if (!annotations.isEmpty()) {
            metadata.put("annotations", annotations);
        }
        return Map.of("metadata", metadata, "spec", Map.of("podCIDR", "10.0.0.0/24"));
    }
}
