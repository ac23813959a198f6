package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The chart rendered with a provider's own values: every documented value reaches the object it is for. */
class ChartValuesTest {

    private static final RenderedChart CUSTOM = Chart.render("""
            image:
              repository: registry.example.com/gpu-detect
              tag: 9.9.9
              pullPolicy: Always
            labels:
              profiles: [nvidia, amd, gpu-detect]
              prefix: gpus.example.com
              akashOperator: present
            interval: 5m
            heartbeat: 15m
            minTriggerInterval: 30s
            releaseNvml: true
            driverRoot: /run/nvidia/driver
            http:
              port: 9400
            resources:
              requests: {cpu: 20m, memory: 80Mi}
              limits: {cpu: 500m, memory: 128Mi}
            nodeSelector:
              example.com/gpu-node: "true"
            affinity:
              nodeAffinity:
                requiredDuringSchedulingIgnoredDuringExecution:
                  nodeSelectorTerms:
                    - matchExpressions:
                        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
            tolerations:
              - operator: Exists
            priorityClassName: system-node-critical
            nvidiaRuntime:
              enabled: true
            supplementalGroups: [44, 110]
            extraEnv:
              - {name: TZ, value: UTC}
            admissionPolicy:
              requireApi: false
            """);

    @Test
    void imageProfilesPrefixIntervalAndPortReachTheAgent() {
        assertEquals("registry.example.com/gpu-detect:9.9.9", Pods.agent(CUSTOM).getImage());
        assertEquals("Always", Pods.agent(CUSTOM).getImagePullPolicy());
        assertEquals("nvidia,amd,gpu-detect", Pods.env(CUSTOM).get("GPU_DETECT_PROFILES").getValue());
        assertEquals("5m", Pods.arg(CUSTOM, "interval").orElseThrow());
        assertEquals("15m", Pods.arg(CUSTOM, "heartbeat").orElseThrow());
        assertEquals("30s", Pods.arg(CUSTOM, "min-trigger-interval").orElseThrow());
        assertEquals("9400", Pods.arg(CUSTOM, "port").orElseThrow());
        assertEquals("present", Pods.arg(CUSTOM, "akash-operator").orElseThrow());
        assertEquals(9400, Pods.agent(CUSTOM).getPorts().get(0).getContainerPort());
        assertTrue(Pods.agent(CUSTOM).getArgs().contains("--release-nvml"), Pods.agent(CUSTOM).getArgs().toString());
        assertFalse(Pods.agent(Chart.render()).getArgs().contains("--release-nvml"),
                "NVML is held by default");
        assertEquals("UTC", Pods.env(CUSTOM).get("TZ").getValue());
        assertEquals("spec.nodeName", Pods.env(CUSTOM).get("NODE_NAME").getValueFrom().getFieldRef().getFieldPath());
    }

    @Test
    void schedulingValuesReachThePod() {
        PodSpec pod = Pods.pod(CUSTOM);
        assertEquals(Map.of("example.com/gpu-node", "true"), pod.getNodeSelector());
        assertEquals("kubernetes.io/arch", pod.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms().get(0).getMatchExpressions().get(0).getKey());
        assertEquals(List.of("null Exists null"), pod.getTolerations().stream().map(ChartDefaultsTest::describe).toList());
        assertEquals("system-node-critical", pod.getPriorityClassName());
        assertEquals(List.of(44L, 110L), pod.getSecurityContext().getSupplementalGroups());
        assertEquals(Map.of("cpu", new Quantity("500m"), "memory", new Quantity("128Mi")),
                Pods.agent(CUSTOM).getResources().getLimits());
    }

    @Test
    void driverRootAndNvidiaRuntimeStayReadOnly() {
        VolumeMount driverRoot = Pods.mountsByPath(CUSTOM).get("/host/driver-root");
        assertTrue(driverRoot.getReadOnly());
        assertEquals("/run/nvidia/driver", Pods.volume(CUSTOM, driverRoot.getName()).getHostPath().getPath());
        assertEquals("nvidia", Pods.pod(CUSTOM).getRuntimeClassName());
        assertEquals("all", Pods.env(CUSTOM).get("NVIDIA_VISIBLE_DEVICES").getValue());
        assertEquals("utility", Pods.env(CUSTOM).get("NVIDIA_DRIVER_CAPABILITIES").getValue());
        assertTrue(Pods.agent(CUSTOM).getSecurityContext().getReadOnlyRootFilesystem());
    }

    @Test
    void admissionPolicyAllowsTheEnabledProfilesPrefixesOnly() {
        ValidatingAdmissionPolicy policy = CUSTOM.the(ValidatingAdmissionPolicy.class, "gpu-detect-own-node");
        Map<String, String> variables = AdmissionPolicyTest.variables(policy);
        assertEquals("[\"nvidia.com/gpu.\",\"nvidia.com/cuda.\",\"nvidia.com/mig.capable\",\"nvidia.com/mig.strategy\","
                + "\"nvidia.com/mig-\",\"nvidia.com/mps.capable\",\"nvidia.com/vgpu.\",\"amd.com/gpu.\",\"beta.amd.com/gpu.\",\"gpus.example.com/\"]",
                variables.get("labelPrefixes"));
        assertEquals("[\"gpu-detect.io/owned-labels\"]", variables.get("annotationPrefixes"),
                "the ownership annotation keeps its name whatever the label prefix");
        assertTrue(Pods.agent(CUSTOM).getArgs().contains("--prefix=gpus.example.com"), Pods.agent(CUSTOM).getArgs().toString());
    }

    @Test
    void admissionPolicyCanBeSwitchedOff() {
        RenderedChart off = Chart.render("admissionPolicy: {enabled: false, requireApi: false}\n");
        assertTrue(off.all(ValidatingAdmissionPolicy.class).isEmpty());
        assertFalse(off.all(io.fabric8.kubernetes.api.model.apps.DaemonSet.class).isEmpty());
    }

    @Test
    void nodeFeatureOutputAddsANamespacedRoleForNodeFeaturesOnly() {
        RenderedChart chart = Chart.render("nfd: {output: nodefeature}\n");
        Role role = chart.the(Role.class, "gpu-detect-nodefeature");
        assertEquals(Chart.NAMESPACE, role.getMetadata().getNamespace());
        assertEquals(Set.of("nfd.k8s-sigs.io/nodefeatures: create get patch"), ChartDefaultsTest.rules(role.getRules()));
        RoleBinding binding = chart.the(RoleBinding.class, "gpu-detect-nodefeature");
        assertEquals("gpu-detect-nodefeature", binding.getRoleRef().getName());
        assertEquals("gpu-detect", binding.getSubjects().get(0).getName());
        assertEquals("nodefeature", Pods.arg(chart, "nfd-output").orElseThrow());
        assertEquals(Set.of("/host/sys", "/host/proc/meminfo", "/host/driver-root", "/tmp"), Pods.mountsByPath(chart).keySet());
    }

    @Test
    void fileOutputMountsOnlyTheFeaturesFolderWritable() {
        RenderedChart chart = Chart.render("nfd: {output: file}\n");
        Map<String, VolumeMount> mounts = Pods.mountsByPath(chart);
        VolumeMount features = mounts.get("/host/nfd-features.d");
        assertFalse(Boolean.TRUE.equals(features.getReadOnly()));
        assertEquals("/etc/kubernetes/node-feature-discovery/features.d",
                Pods.volume(chart, features.getName()).getHostPath().getPath());
        assertEquals("/host/nfd-features.d/gpu-detect", Pods.arg(chart, "nfd-file").orElseThrow());
        Set<String> writableHostPaths = mounts.values().stream()
                .filter(m -> !Boolean.TRUE.equals(m.getReadOnly()) && Pods.volume(chart, m.getName()).getHostPath() != null)
                .map(VolumeMount::getMountPath).collect(Collectors.toSet());
        assertEquals(Set.of("/host/nfd-features.d"), writableHostPaths);
        assertEquals(List.of("gpu-detect-events"), chart.all(Role.class).stream().map(r -> r.getMetadata().getName()).toList());
    }

    @Test
    void fileOutputPreparesTheFeaturesFolderInAnInitContainerAsRootWithChownOnly() {
        RenderedChart chart = Chart.render("nfd: {output: file}\nrunAsGroup: 4321\n");
        PodSpec pod = Pods.pod(chart);
        assertEquals(1, pod.getInitContainers().size());
        Container init = pod.getInitContainers().get(0);
        assertEquals("nfd-features-dir", init.getName());
        assertEquals(Pods.agent(chart).getImage(), init.getImage(), "the agent's own image: nothing else to pull");
        assertEquals(List.of("nfd-dir", "--group=4321", "/host/nfd-features.d"), init.getArgs());
        assertTrue(init.getCommand().isEmpty(), "the image's entrypoint, gpu-detect");
        assertEquals(Map.of("JAVA_TOOL_OPTIONS", Pods.env(chart).get("JAVA_TOOL_OPTIONS").getValue(),
                        "MALLOC_ARENA_MAX", "2"),
                init.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue)));
        assertEquals(Pods.agent(chart).getResources(), init.getResources());

        SecurityContext sc = init.getSecurityContext();
        assertEquals(0L, sc.getRunAsUser());
        assertEquals(0L, sc.getRunAsGroup());
        assertFalse(sc.getRunAsNonRoot());
        assertFalse(sc.getPrivileged());
        assertFalse(sc.getAllowPrivilegeEscalation());
        assertTrue(sc.getReadOnlyRootFilesystem());
        assertEquals(List.of("ALL"), sc.getCapabilities().getDrop());
        assertEquals(List.of("CHOWN"), sc.getCapabilities().getAdd());
        assertEquals("RuntimeDefault", sc.getSeccompProfile().getType());

        assertEquals(1, init.getVolumeMounts().size(), "the features folder and nothing else");
        VolumeMount mount = init.getVolumeMounts().get(0);
        assertEquals("/host/nfd-features.d", mount.getMountPath());
        assertEquals(Pods.mountsByPath(chart).get("/host/nfd-features.d").getName(), mount.getName());
        Volume volume = Pods.volume(chart, mount.getName());
        assertEquals("/etc/kubernetes/node-feature-discovery/features.d", volume.getHostPath().getPath());
        assertEquals("DirectoryOrCreate", volume.getHostPath().getType());
        assertEquals(4321L, pod.getSecurityContext().getRunAsGroup(), "the group the folder is given to");
        assertNull(Pods.agent(chart).getSecurityContext().getRunAsGroup(), "the agent runs with the pod's group");
        assertTrue(Pods.pod(Chart.render("nfd: {output: nodefeature}\n")).getInitContainers().isEmpty());
    }

    @Test
    void networkPolicyAdmitsOnlyTheNamedScraperToTheAgentsPort() {
        RenderedChart chart = Chart.render("""
                http: {port: 9400}
                networkPolicy:
                  enabled: true
                  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}
                  podSelector: {matchLabels: {app.kubernetes.io/name: prometheus}}
                  extraFrom:
                    - ipBlock: {cidr: 10.0.0.5/32}
                """);
        NetworkPolicy policy = chart.the(NetworkPolicy.class, "gpu-detect");
        assertEquals(Chart.NAMESPACE, policy.getMetadata().getNamespace());
        assertEquals(Pods.daemonSet(chart).getSpec().getSelector().getMatchLabels(),
                policy.getSpec().getPodSelector().getMatchLabels(), "selects exactly the agent's pods");
        assertEquals(List.of("Ingress"), policy.getSpec().getPolicyTypes(), "egress (the API server) stays open");
        assertEquals(1, policy.getSpec().getIngress().size());
        NetworkPolicyIngressRule rule = policy.getSpec().getIngress().get(0);
        assertEquals(List.of("9400/TCP"), rule.getPorts().stream()
                .map(p -> p.getPort().getIntVal() + "/" + p.getProtocol()).toList());
        assertEquals(2, rule.getFrom().size());
        NetworkPolicyPeer scraper = rule.getFrom().get(0);
        assertEquals(Map.of("kubernetes.io/metadata.name", "monitoring"), scraper.getNamespaceSelector().getMatchLabels());
        assertEquals(Map.of("app.kubernetes.io/name", "prometheus"), scraper.getPodSelector().getMatchLabels(),
                "one peer: the prometheus pods of the monitoring namespace, not either alone");
        assertEquals("10.0.0.5/32", rule.getFrom().get(1).getIpBlock().getCidr());

        NetworkPolicyPeer podsOnly = Chart.render("""
                networkPolicy: {enabled: true, podSelector: {matchLabels: {app: scraper}}}
                """).the(NetworkPolicy.class, "gpu-detect").getSpec().getIngress().get(0).getFrom().get(0);
        assertNull(podsOnly.getNamespaceSelector(), "a pod selector alone means the release's own namespace");
        assertEquals(Map.of("app", "scraper"), podsOnly.getPodSelector().getMatchLabels());
    }

    @Test
    void networkPolicyIsOffByDefaultAndRefusesToRenderWithoutAPeer() {
        assertTrue(Chart.render("{}\n").all(NetworkPolicy.class).isEmpty());
        var none = assertThrows(IllegalStateException.class, () -> Chart.render("networkPolicy: {enabled: true}\n"));
        assertTrue(none.getMessage().contains("networkPolicy.enabled: name who may reach the agent's port"), none.getMessage());
    }

    @Test
    void unknownProfileNfdModeOrAkashOperatorSettingFailsTheRenderWithTheValueNamed() {
        var profile = assertThrows(IllegalStateException.class, () -> Chart.render("labels: {profiles: [gpu-detect, intel]}\n"));
        assertTrue(profile.getMessage().contains("unknown profile \"intel\""), profile.getMessage());
        var nfd = assertThrows(IllegalStateException.class, () -> Chart.render("nfd: {output: crd}\n"));
        assertTrue(nfd.getMessage().contains("nfd.output: \"crd\""), nfd.getMessage());
        var akash = assertThrows(IllegalStateException.class, () -> Chart.render("labels: {akashOperator: maybe}\n"));
        assertTrue(akash.getMessage().contains("labels.akashOperator: \"maybe\" is not one of auto, present, absent"),
                akash.getMessage());
    }
    /** values.schema.json: Helm itself refuses a mistyped key or a value of the wrong type, naming it. */
    @Test
    void aMistypedKeyOrAWronglyTypedValueIsRefusedByHelmsSchemaCheck() {
        var key = assertThrows(IllegalStateException.class, () -> Chart.render("intervall: 5m\n"));
        assertTrue(key.getMessage().contains("intervall"), key.getMessage());
        var nested = assertThrows(IllegalStateException.class, () -> Chart.render("http: {prot: 9400}\n"));
        assertTrue(nested.getMessage().contains("prot"), nested.getMessage());
        var type = assertThrows(IllegalStateException.class, () -> Chart.render("http: {port: \"9400\"}\n"));
        assertTrue(type.getMessage().contains("port"), type.getMessage());
        var duration = assertThrows(IllegalStateException.class, () -> Chart.render("interval: 5 minutes\n"));
        assertTrue(duration.getMessage().contains("interval"), duration.getMessage());
        // Every value values.yaml documents, as written there, passes (the defaults render).
        assertTrue(Chart.render("{}\n").all(NetworkPolicy.class).isEmpty());
    }

    @Test
    void eachHealthOutputGrantsOnlyItsOwnPermissions() {
        RenderedChart off = Chart.render("health: {condition: false, events: false}\n");
        assertTrue(off.all(Role.class).isEmpty(), "no Events role");
        assertFalse(ChartDefaultsTest.rules(off.the(io.fabric8.kubernetes.api.model.rbac.ClusterRole.class, "gpu-detect")
                .getRules()).contains("/nodes/status: patch"));
        assertEquals(List.of("off", "off"), List.of(Pods.arg(off, "health-condition").orElseThrow(),
                Pods.arg(off, "health-events").orElseThrow()));

        RenderedChart taints = Chart.render("health: {taint: anyFailed, deviceTaints: NoSchedule}\n");
        assertTrue(ChartDefaultsTest.rules(taints.the(io.fabric8.kubernetes.api.model.rbac.ClusterRole.class, "gpu-detect")
                .getRules()).contains("resource.k8s.io/devicetaintrules: create delete get list watch"));
        assertEquals(List.of("anyFailed", "NoSchedule"), List.of(Pods.arg(taints, "health-taint").orElseThrow(),
                Pods.arg(taints, "device-taints").orElseThrow()));
        var tolerations = taints.the(io.fabric8.kubernetes.api.model.apps.DaemonSet.class, "gpu-detect").getSpec()
                .getTemplate().getSpec().getTolerations();
        assertTrue(tolerations.stream().anyMatch(t -> "gpu-detect.io/gpu-unhealthy".equals(t.getKey())
                && "NoSchedule".equals(t.getEffect())), "an agent pod replaced on a tainted node starts there: " + tolerations);
        assertTrue(tolerations.stream().anyMatch(t -> "nvidia.com/gpu".equals(t.getKey())), "the default ones kept");
    }
}
