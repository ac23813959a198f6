package io.gpudetect.agent;

import io.gpudetect.inventory.Inventories;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.testing.Observations;
import io.gpudetect.testing.Profiles;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.k8s.dra.DraApi;
import io.gpudetect.k8s.dra.DraShapes;
import io.gpudetect.k8s.dra.NodeSelectorIgnoringMock;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.dra.NodeHandout;
import io.gpudetect.testing.MutableClock;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The agent's pass on a DRA node: the record's {@code spec.handout}, and no request in a steady pass. */
class NodeAgentDraTest {

    private static final String NODE = "dra-node";
    private NodeSelectorIgnoringMock mock;
    private KubernetesClient client;
    private NodeAgent agent;
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

    @BeforeEach
    void cluster() {
        mock = new NodeSelectorIgnoringMock();
        client = mock.client;
        mock.server.expectCustomResource(CustomResourceDefinitionContext.fromCustomResourceType(GpuCapacity.class));
        client.getKubernetesSerialization().registerKubernetesResource(GpuCapacity.class);
        mock.server.expect().get().withPath("/apis/resource.k8s.io").andReturn(200, DraShapes.apiGroup("v1")).always();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).withUid("uid-1").endMetadata().build()).create();
        DraApi v1 = new DraApi("v1");
        client.genericKubernetesResources(v1.slices()).resource(
                Serialization.unmarshal(DraShapes.nvidiaSliceV1(NODE), GenericKubernetesResource.class)).create();
        client.genericKubernetesResources(v1.claims()).inNamespace("team-a").resource(Serialization.unmarshal(
                DraShapes.claim("resource.k8s.io/v1", "team-a", "train-gpu-x7k2p", "gpu.nvidia.com", NODE, "gpu-0"),
                GenericKubernetesResource.class)).create();
        client.pods().inNamespace("team-a").resource(Serialization.unmarshal(
                DraShapes.podWithClaim("team-a", "train", NODE, "train-gpu-x7k2p"), Pod.class)).create();
    }

    @AfterEach
    void close() {
        if (agent != null) {
            agent.close();
        }
        mock.close();
    }

    @Test
    void theRecordSaysEachGpuIsHandedOutByDraAndWhichIsAllocated() throws Exception {
        List<Gpu> gpus = List.of(
                Gpu.builder("test").vendor(Vendor.NVIDIA).model("h100").pciAddress(PciAddress.of("0000:1b:00.0"))
                        .uuid(DraShapes.H100_UUID).build(),
                Gpu.builder("test").vendor(Vendor.NVIDIA).model("h100").pciAddress(PciAddress.of("0000:43:00.0"))
                        .uuid("GPU-0c7b2d9a-51e4-4f3a-8b6d-2e9f7a1c3b55").build());
        Inventory inventory = Inventories.of("test", gpus, List.of(), List.of());
        agent = new NodeAgent(AgentSettings.defaults(NODE, Profiles.of("gpu-detect"), "test"),
                Observations.of(() -> inventory), client, new RetryAfterHint(),
                new AgentLog(new PrintWriter(new StringWriter()), clock), new AgentMetrics(),
                new PrintWriter(new StringWriter()), clock);
        agent.start();
        agent.pass();

        NodeHandout handout = client.resources(GpuCapacity.class).withName(NODE).get().getSpec().handout();
        assertEquals("dra", handout.mode());
        assertEquals(List.of(Boolean.TRUE, Boolean.FALSE), handout.gpus().stream().map(NodeHandout.GpuHandout::allocated).toList(),
                "gpu-0 (0000:1b:00.0) is held by team-a/train's claim");
        assertEquals(List.of(new NodeHandout.DraTotal("gpu.nvidia.com", 2, 1, 3, 1)), handout.draTotals());

        int sent = -1;
        long deadline = System.currentTimeMillis() + 10_000;
        while (sent != 0 && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
            int before = mock.server.getRequestCount();
            agent.pass();
            sent = mock.server.getRequestCount() - before;
        }
        assertEquals(0, sent, "a steady pass on a DRA node sends no request");

        // The pod holding the claim goes away: a pass after steady ones sees the GPU free again.
        client.pods().inNamespace("team-a").withName("train").delete();
        List<Boolean> allocated = List.of();
        deadline = System.currentTimeMillis() + 10_000;
        while (!allocated.equals(List.of(Boolean.FALSE, Boolean.FALSE)) && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
            agent.pass();
            allocated = client.resources(GpuCapacity.class).withName(NODE).get().getSpec().handout().gpus().stream()
                    .map(NodeHandout.GpuHandout::allocated).toList();
        }
        assertEquals(List.of(Boolean.FALSE, Boolean.FALSE), allocated, "no pod holds the claim any more");

        // A slice added for the node (an Intel card's driver publishes one): a pass after steady ones counts it.
        client.genericKubernetesResources(new DraApi("v1").slices()).resource(
                Serialization.unmarshal(DraShapes.intelSliceV1(NODE), GenericKubernetesResource.class)).create();
        List<String> drivers = List.of();
        deadline = System.currentTimeMillis() + 10_000;
        while (drivers.size() < 2 && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
            agent.pass();
            drivers = client.resources(GpuCapacity.class).withName(NODE).get().getSpec().handout().draTotals().stream()
                    .map(NodeHandout.DraTotal::driver).sorted().toList();
        }
        assertEquals(List.of("gpu.intel.com", "gpu.nvidia.com"), drivers, "the new slice's driver is counted");
    }
}
