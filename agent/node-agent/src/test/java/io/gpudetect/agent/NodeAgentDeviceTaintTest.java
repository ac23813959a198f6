package io.gpudetect.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.gpudetect.inventory.Inventories;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.k8s.dra.DraApi;
import io.gpudetect.k8s.dra.DraShapes;
import io.gpudetect.k8s.dra.NodeSelectorIgnoringMock;
import io.gpudetect.k8s.health.DeviceTaints;
import io.gpudetect.k8s.health.HealthTaint;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.testing.MutableClock;
import io.gpudetect.testing.Observations;
import io.gpudetect.testing.Profiles;
import io.gpudetect.testing.Settings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DRA device taint rules on a node whose H100s a DRA driver hands out (NVIDIA's slice: gpu-0 at 0000:1b:00.0,
 * gpu-1 at 0000:43:00.0 with a MIG device): off by default; when on, a rule per DRA device of a lost GPU, removed
 * when the GPU is back; another's rule is never touched.
 */
class NodeAgentDeviceTaintTest {

    private static final String NODE = "dra-node";
    static final ResourceDefinitionContext RULES = new ResourceDefinitionContext.Builder().withGroup("resource.k8s.io")
            .withVersion("v1beta2").withKind("DeviceTaintRule").withPlural("devicetaintrules").withNamespaced(false).build();
    private NodeSelectorIgnoringMock mock;
    private KubernetesClient client;
    private final List<NodeAgent> agents = new ArrayList<>();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final StringWriter log = new StringWriter();

    /** A Kubernetes 1.36 API server: DRA at v1, DeviceTaintRule at v1beta2 (not yet in v1). */
    @BeforeEach
    void cluster() {
        mock = new NodeSelectorIgnoringMock();
        client = mock.client;
        mock.server.expectCustomResource(CustomResourceDefinitionContext.fromCustomResourceType(GpuCapacity.class));
        client.getKubernetesSerialization().registerKubernetesResource(GpuCapacity.class);
        mock.server.expect().get().withPath("/apis/resource.k8s.io").andReturn(200, DraShapes.apiGroup("v1", "v1beta2"))
                .always();
        mock.server.expect().get().withPath("/apis/resource.k8s.io/v1").andReturn(200, resources("v1",
                "resourceslices", "resourceclaims")).always();
        mock.server.expect().get().withPath("/apis/resource.k8s.io/v1beta2").andReturn(200, resources("v1beta2",
                "resourceslices", "resourceclaims", "devicetaintrules")).always();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).withUid("uid-1").endMetadata().build())
                .create();
        client.genericKubernetesResources(new DraApi("v1").slices()).resource(
                Serialization.unmarshal(DraShapes.nvidiaSliceV1(NODE), GenericKubernetesResource.class)).create();
        // An admin's own rule on gpu-1: not the agent's (no gpu-detect.io/node label), never touched.
        client.genericKubernetesResources(RULES).resource(Serialization.unmarshal("""
                apiVersion: resource.k8s.io/v1beta2
                kind: DeviceTaintRule
                metadata: {name: admin-maintenance}
                spec:
                  deviceSelector: {driver: gpu.nvidia.com, pool: dra-node, device: gpu-1}
                  taint: {key: example.com/maintenance, effect: NoSchedule}
                """, GenericKubernetesResource.class)).create();
    }

    static String resources(String version, String... names) {
        StringBuilder list = new StringBuilder();
        for (String n : names) {
            list.append("{\"name\":\"").append(n).append("\",\"namespaced\":").append(n.equals("resourceclaims"))
                    .append(",\"kind\":\"x\",\"verbs\":[\"get\",\"list\",\"watch\"]},");
        }
        return "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"resource.k8s.io/" + version
                + "\",\"resources\":[" + list.substring(0, list.length() - 1) + "]}";
    }

    @AfterEach
    void close() {
        agents.forEach(NodeAgent::close);
        mock.close();
    }

    /** gpu-0 healthy; gpu-1 (0000:43:00.0) as NVML reports a GPU that fell off the bus, or back and healthy. */
    static Inventory gpus(boolean lost) {
        Gpu gpu1 = Gpu.builder("nvml").vendor(Vendor.NVIDIA).model("h100").pciAddress(PciAddress.of("0000:43:00.0"))
                .health(lost ? new Health(Health.Status.LOST, null,
                        List.of("nvmlDeviceGetName returned NVML_ERROR_GPU_IS_LOST (GPU is lost)")) : Health.ok())
                .uuid(lost ? null : DraShapes.H100_1_UUID).build();
        return Inventories.of("test", List.of(
                Gpu.builder("nvml").vendor(Vendor.NVIDIA).model("h100").pciAddress(PciAddress.of("0000:1b:00.0"))
                        .uuid(DraShapes.H100_UUID).health(Health.ok()).build(), gpu1), List.of(), List.of());
    }

    private NodeAgent agent(AtomicReference<Inventory> inventory, HealthOutputs health) {
        NodeAgent agent = new NodeAgent(Settings.health(AgentSettings.defaults(NODE, Profiles.of("gpu-detect"), "test"),
                health), Observations.of(inventory::get), client, new RetryAfterHint(),
                new AgentLog(new PrintWriter(log), clock), new AgentMetrics(), new PrintWriter(new StringWriter()), clock);
        agents.add(agent);
        agent.start();
        return agent;
    }

    private List<GenericKubernetesResource> rules() {
        return client.genericKubernetesResources(RULES).list().getItems();
    }

    private List<String> ruleRequests() throws InterruptedException {
        List<String> seen = new ArrayList<>();
        RecordedRequest r;
        while ((r = mock.server.takeRequest(50, TimeUnit.MILLISECONDS)) != null) {
            if (r.getPath().contains("devicetaintrules")) {
                seen.add(r.getMethod() + " " + r.getPath());
            }
        }
        return seen;
    }

    @Test
    void offByDefaultNoRuleIsReadOrWritten() throws Exception {
        ruleRequests();
        agent(new AtomicReference<>(gpus(true)), HealthOutputs.DEFAULT).pass();
        assertEquals(List.of("admin-maintenance"), rules().stream().map(r -> r.getMetadata().getName()).toList());
        List<String> requests = ruleRequests();
        assertEquals(1, requests.size(), "only the test's own list: " + requests);
    }

    @Test
    void aLostGpusDraDevicesGetARuleEachThatGoesWhenTheGpuIsBack() throws Exception {
        AtomicReference<Inventory> inventory = new AtomicReference<>(gpus(true));
        NodeAgent agent = agent(inventory, new HealthOutputs(true, true, HealthTaint.Policy.NONE, DeviceTaints.NONE));
        assertEquals(null, agent.pass().error());

        List<GenericKubernetesResource> ours = rules().stream()
                .filter(r -> NODE.equals(r.getMetadata().getLabels() == null ? null
                        : r.getMetadata().getLabels().get("gpu-detect.io/node"))).toList();
        assertEquals(List.of("gpu-1", "gpu-1-mig-1g10gb-19-0"), ours.stream().map(r -> device(r).get("device")).sorted().toList(),
                "gpu-1 and its MIG device; gpu-0 is healthy");
        Map<String, Object> spec = spec(ours.get(0));
        assertEquals(Map.of("key", "gpu-detect.io/gpu-unhealthy", "value", "lost", "effect", "None"), spec.get("taint"));
        assertEquals("gpu.nvidia.com", device(ours.get(0)).get("driver"));
        assertEquals(NODE, device(ours.get(0)).get("pool"));
        assertTrue(ours.get(0).getMetadata().getName().startsWith("gpu-detect-dra-node-gpu-1-"), ours.get(0).getMetadata().getName());

        clock.advance(Duration.ofMinutes(1));
        int before = rules().size();
        agent.pass();
        assertEquals(before, rules().size(), "a steady pass changes no rule");

        clock.advance(Duration.ofMinutes(1));
        inventory.set(gpus(false));
        agent.pass();
        long deadline = System.currentTimeMillis() + 10_000;
        while (rules().size() != 1 && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
            agent.pass();
        }
        assertEquals(List.of("admin-maintenance"), rules().stream().map(r -> r.getMetadata().getName()).toList(),
                "ours deleted, the admin's untouched");
    }

    @Test
    void whereNoVersionServesDeviceTaintRulesTheAgentSaysSoOnceAndWritesNone() throws Exception {
        try (NodeSelectorIgnoringMock old = new NodeSelectorIgnoringMock()) {
            // A Kubernetes 1.34 API server: DRA at v1, no DeviceTaintRule in any version it serves.
            old.server.expectCustomResource(CustomResourceDefinitionContext.fromCustomResourceType(GpuCapacity.class));
            old.server.expect().get().withPath("/apis/resource.k8s.io").andReturn(200, DraShapes.apiGroup("v1")).always();
            old.server.expect().get().withPath("/apis/resource.k8s.io/v1").andReturn(200, resources("v1",
                    "resourceslices", "resourceclaims")).always();
            old.client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
            NodeAgent agent = new NodeAgent(Settings.health(AgentSettings.defaults(NODE, Profiles.of("gpu-detect"), "test"),
                    new HealthOutputs(true, true, HealthTaint.Policy.NONE, DeviceTaints.NO_SCHEDULE)),
                    Observations.of(() -> gpus(true)), old.client, new RetryAfterHint(),
                    new AgentLog(new PrintWriter(log), clock), new AgentMetrics(), new PrintWriter(new StringWriter()), clock);
            agents.add(agent);
            agent.start();
            assertEquals(null, agent.pass().error(), "the other outputs go on");
            agent.pass();
            assertEquals(1, log.toString().split("serves no DeviceTaintRule", -1).length - 1, log.toString());
            assertEquals("False", old.client.nodes().withName(NODE).get().getStatus().getConditions().get(0).getStatus());
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(GenericKubernetesResource r) {
        return (Map<String, Object>) r.getAdditionalProperties().get("spec");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> device(GenericKubernetesResource r) {
        return (Map<String, Object>) spec(r).get("deviceSelector");
    }
}
