package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The chart rendered with its default values: what a provider gets from {@code helm install} with no options. */
class ChartDefaultsTest {

    private static final RenderedChart CHART = Chart.render();

    @Test
    void rendersExactlyTheAgentsObjects() {
        assertEquals(List.of("ServiceAccount/gpu-detect", "ClusterRole/gpu-detect", "ClusterRoleBinding/gpu-detect",
                "Role/gpu-detect-events", "RoleBinding/gpu-detect-events", "DaemonSet/gpu-detect"), CHART.kinds());
    }

    @Test
    void clusterRoleGrantsOnlyWhatTheAgentUses() {
        ClusterRole role = CHART.the(ClusterRole.class, "gpu-detect");
        assertEquals(Set.of(
                "/nodes: get list patch watch",
                "/pods: get list watch",
                "gpu-detect.io/gpucapacities: create get list patch watch",
                "gpu-detect.io/gpucapacities/status: patch",
                "resource.k8s.io/resourceslices: get list watch",
                "resource.k8s.io/resourceclaims: get",
                "/nodes/status: patch"), rules(role.getRules()), "the health condition is on by default");
        Role events = CHART.the(Role.class, "gpu-detect-events");
        assertEquals("default", events.getMetadata().getNamespace(), "Events about a Node go in default");
        assertEquals(Set.of("events.k8s.io/events: create"), rules(events.getRules()));
        assertEquals(List.of(events), CHART.all(Role.class), "no other namespaced role unless NFD NodeFeature output is on");
    }

    /** Each rule flattened to "group/resource: sorted verbs"; a rule naming resourceNames or URLs is a failure. */
    static Set<String> rules(List<PolicyRule> rules) {
        Set<String> flat = new TreeSet<>();
        for (PolicyRule rule : rules) {
            assertTrue(rule.getResourceNames().isEmpty() && rule.getNonResourceURLs().isEmpty(), rule.toString());
            String verbs = String.join(" ", new TreeSet<>(rule.getVerbs()));
            for (String group : rule.getApiGroups()) {
                for (String resource : rule.getResources()) {
                    assertTrue(flat.add(group + "/" + resource + ": " + verbs), "granted twice: " + group + "/" + resource);
                }
            }
        }
        return flat;
    }

    @Test
    void bindingGivesTheRoleToTheAgentsServiceAccountOnly() {
        ClusterRoleBinding binding = CHART.the(ClusterRoleBinding.class, "gpu-detect");
        assertEquals("ClusterRole", binding.getRoleRef().getKind());
        assertEquals("gpu-detect", binding.getRoleRef().getName());
        Subject subject = binding.getSubjects().get(0);
        assertEquals(1, binding.getSubjects().size());
        assertEquals(List.of("ServiceAccount", "gpu-detect", "gpu-detect"),
                List.of(subject.getKind(), subject.getName(), subject.getNamespace()));
        ServiceAccount account = CHART.the(ServiceAccount.class, "gpu-detect");
        assertEquals(Chart.NAMESPACE, account.getMetadata().getNamespace());
        assertEquals("gpu-detect", Pods.pod(CHART).getServiceAccountName());
        assertTrue(Pods.pod(CHART).getAutomountServiceAccountToken(), "the agent needs its bound token");
    }

    @Test
    void podRunsNonRootWithNoPrivilegeAndRuntimeDefaultSeccomp() {
        PodSpec pod = Pods.pod(CHART);
        assertTrue(pod.getSecurityContext().getRunAsNonRoot());
        assertNotEquals(0L, pod.getSecurityContext().getRunAsUser());
        assertEquals("RuntimeDefault", pod.getSecurityContext().getSeccompProfile().getType());
        assertNotEquals(Boolean.TRUE, pod.getHostNetwork());
        assertNotEquals(Boolean.TRUE, pod.getHostPID());
        assertNotEquals(Boolean.TRUE, pod.getHostIPC());
        SecurityContext container = Pods.agent(CHART).getSecurityContext();
        assertFalse(container.getPrivileged());
        assertFalse(container.getAllowPrivilegeEscalation());
        assertTrue(container.getReadOnlyRootFilesystem());
        assertEquals(List.of("ALL"), container.getCapabilities().getDrop());
        assertTrue(container.getCapabilities().getAdd().isEmpty());
        assertEquals("RuntimeDefault", container.getSeccompProfile().getType());
        assertTrue(pod.getInitContainers().isEmpty(), "nothing runs as root unless nfd.output=file");
    }

    @Test
    void hostPathsAreMountedReadOnlyAndOnlyTmpIsWritable() {
        Map<String, VolumeMount> mounts = Pods.mountsByPath(CHART);
        assertEquals(Set.of("/host/sys", "/host/proc/meminfo", "/host/driver-root", "/tmp"), mounts.keySet());
        assertEquals("/sys", Pods.volume(CHART, mounts.get("/host/sys").getName()).getHostPath().getPath());
        // The agent reads <host-root>/proc/meminfo to size a GPU without memory of its own: the host's file alone.
        assertEquals("/proc/meminfo", Pods.volume(CHART, mounts.get("/host/proc/meminfo").getName()).getHostPath().getPath());
        assertEquals("File", Pods.volume(CHART, mounts.get("/host/proc/meminfo").getName()).getHostPath().getType());
        assertEquals("/", Pods.volume(CHART, mounts.get("/host/driver-root").getName()).getHostPath().getPath());
        assertEquals("HostToContainer", mounts.get("/host/driver-root").getMountPropagation());
        for (VolumeMount mount : mounts.values()) {
            boolean hostPath = Pods.volume(CHART, mount.getName()).getHostPath() != null;
            assertEquals(hostPath, Boolean.TRUE.equals(mount.getReadOnly()), mount.getMountPath() + " read-only iff from the host");
        }
        assertEquals(new Quantity("16Mi"), Pods.volume(CHART, mounts.get("/tmp").getName()).getEmptyDir().getSizeLimit());
        assertEquals(List.of("/host"), Pods.arg(CHART, "host-root").stream().toList());
        // JNA unpacks its native library to java.io.tmpdir: it must be the writable mount.
        assertTrue(Pods.env(CHART).get("JAVA_TOOL_OPTIONS").getValue().contains("-Djava.io.tmpdir=/tmp"));
    }

    @Test
    void probesCallTheAgentsHealthEndpointsOnItsPort() {
        Container agent = Pods.agent(CHART);
        assertEquals(1, agent.getPorts().size());
        assertEquals("http", agent.getPorts().get(0).getName());
        assertEquals(8080, agent.getPorts().get(0).getContainerPort());
        assertEquals("8080", Pods.arg(CHART, "port").orElseThrow());
        assertEquals("/healthz", agent.getLivenessProbe().getHttpGet().getPath());
        assertEquals("http", agent.getLivenessProbe().getHttpGet().getPort().getStrVal());
        assertEquals("/readyz", agent.getReadinessProbe().getHttpGet().getPath());
        assertEquals("http", agent.getReadinessProbe().getHttpGet().getPort().getStrVal());
    }

    @Test
    void agentKnowsItsNodeFromTheDownwardApiAndGetsItsSettings() {
        Container agent = Pods.agent(CHART);
        assertEquals("agent", agent.getArgs().get(0));
        assertEquals("spec.nodeName", Pods.env(CHART).get("NODE_NAME").getValueFrom().getFieldRef().getFieldPath());
        // Akash's keys are opt-in: on an Akash provider its inventory operator writes them.
        assertEquals("gpu-detect", Pods.env(CHART).get("GPU_DETECT_PROFILES").getValue());
        assertEquals("auto", Pods.arg(CHART, "akash-operator").orElseThrow());
        assertEquals("/host/driver-root", Pods.env(CHART).get("GPU_DETECT_DRIVER_ROOT").getValue());
        assertEquals("60s", Pods.arg(CHART, "interval").orElseThrow());
        assertEquals("5m", Pods.arg(CHART, "heartbeat").orElseThrow());
        assertEquals("10s", Pods.arg(CHART, "min-trigger-interval").orElseThrow());
        assertEquals("metadata.namespace", Pods.env(CHART).get("POD_NAMESPACE").getValueFrom().getFieldRef().getFieldPath());
        assertEquals("off", Pods.arg(CHART, "nfd-output").orElseThrow());
        assertEquals("ghcr.io/gpu-detect/gpu-detect:0.1.0", agent.getImage());
        assertNull(Pods.pod(CHART).getRuntimeClassName());
        assertFalse(Pods.env(CHART).containsKey("NVIDIA_VISIBLE_DEVICES"));
    }

    @Test
    void requestsAndLimitsAreTheMeasuredBudget() {
        var resources = Pods.agent(CHART).getResources();
        assertEquals(Map.of("cpu", new Quantity("10m"), "memory", new Quantity("80Mi")), resources.getRequests());
        assertEquals(Map.of("memory", new Quantity("128Mi")), resources.getLimits(), "no CPU limit: the first pass must not be throttled");
    }

    @Test
    void theJvmRunsWithTheFlagsItsFootprintWasMeasuredWith() throws Exception {
        String measured = java.nio.file.Files.readString(
                java.nio.file.Path.of("../agent/cli/src/build/agent-jvm.flags")).strip();
        String options = Pods.env(CHART).get("JAVA_TOOL_OPTIONS").getValue();
        for (String flag : measured.split("\\s+")) {
            assertTrue(options.contains(flag), "JAVA_TOOL_OPTIONS lacks " + flag + " from agent-jvm.flags: " + options);
        }
        assertEquals("2", Pods.env(CHART).get("MALLOC_ARENA_MAX").getValue());
    }

    @Test
    void runsOnTaintedGpuNodesAndOnNodesWithoutGpus() {
        Set<String> tolerated = Pods.pod(CHART).getTolerations().stream()
                .map(ChartDefaultsTest::describe).collect(Collectors.toSet());
        assertEquals(Set.of("nvidia.com/gpu Exists NoSchedule", "amd.com/gpu Exists NoSchedule"), tolerated);
        assertTrue(Pods.pod(CHART).getNodeSelector().isEmpty(), "no nodeSelector: nodes without GPUs get labels too");
        assertNull(Pods.pod(CHART).getAffinity());
        assertNull(Pods.pod(CHART).getPriorityClassName());
    }

    static String describe(Toleration t) {
        return t.getKey() + " " + t.getOperator() + " " + t.getEffect();
    }

    @Test
    void admissionPolicyWaitsForAClusterThatServesIt() {
        // helm template cannot ask a cluster; Helm's offline API list has no ValidatingAdmissionPolicy kind.
        assertTrue(CHART.all(ValidatingAdmissionPolicy.class).isEmpty());
        assertTrue(CHART.all(ValidatingAdmissionPolicyBinding.class).isEmpty());
        assertEquals(List.of("gpu-detect-events"), CHART.all(RoleBinding.class).stream()
                .map(b -> b.getMetadata().getName()).toList(), "the health Events' binding alone");
    }

    @Test
    void healthOutputsAreConditionAndEventsOnTaintsOff() {
        assertEquals(List.of("on", "on", "none", "off"), List.of(Pods.arg(CHART, "health-condition").orElseThrow(),
                Pods.arg(CHART, "health-events").orElseThrow(), Pods.arg(CHART, "health-taint").orElseThrow(),
                Pods.arg(CHART, "device-taints").orElseThrow()));
        assertTrue(rules(CHART.the(ClusterRole.class, "gpu-detect").getRules()).stream()
                .noneMatch(r -> r.contains("devicetaintrules")));
    }
}
