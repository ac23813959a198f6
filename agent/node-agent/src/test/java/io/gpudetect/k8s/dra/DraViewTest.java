package io.gpudetect.k8s.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpudetect.k8s.BoundPod;
import io.gpudetect.k8s.GpuResources;
import io.gpudetect.k8s.NodeView;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.record.dra.Handouts;
import io.gpudetect.record.dra.NodeHandout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The DRA reading on fabric8's mock server: slices and claims as NVIDIA's, AMD's and Intel's drivers publish
 * them ({@link DraShapes}), on a DRA node, a device-plugin node and a node with both, and the requests a
 * steady pass sends.
 */
class DraViewTest {

    static final Gpu H100_0 = gpu(Vendor.NVIDIA, "0000:1b:00.0", DraShapes.H100_UUID);
    static final Gpu H100_1 = gpu(Vendor.NVIDIA, "0000:43:00.0", "GPU-0c7b2d9a-51e4-4f3a-8b6d-2e9f7a1c3b55");
    static final Gpu MI300X = gpu(Vendor.AMD, "0000:c1:00.0", null);
    static final Gpu FLEX170 = gpu(Vendor.INTEL, "0000:03:00.0", null);

    private NodeSelectorIgnoringMock mock;
    private KubernetesClient client;
    private KubernetesMockServer server;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void start() {
        mock = new NodeSelectorIgnoringMock();
        open.add(mock);
        client = mock.client;
        server = mock.server;
    }

    static Gpu gpu(Vendor vendor, String address, String uuid) {
        return Gpu.builder("test").vendor(vendor).pciAddress(PciAddress.of(address)).uuid(uuid).build();
    }

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private void serve(String... versions) {
        server.expect().get().withPath("/apis/resource.k8s.io").andReturn(200, DraShapes.apiGroup(versions)).always();
    }

    private void node(String name, Map<String, String> allocatable) {
        NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name).endMetadata();
        var status = b.withNewStatus();
        allocatable.forEach((k, v) -> status.addToAllocatable(k, new Quantity(v)));
        client.nodes().resource(status.endStatus().build()).create();
    }

    private void create(DraApi api, String yaml) {
        GenericKubernetesResource r = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
        if (r.getKind().equals("ResourceSlice")) {
            client.genericKubernetesResources(api.slices()).resource(r).create();
        } else {
            client.genericKubernetesResources(api.claims()).inNamespace(r.getMetadata().getNamespace()).resource(r).create();
        }
    }

    private NodeHandout pass(NodeView pods, DraView dra, List<Gpu> gpus) {
        DraView.Allocations a = dra.allocations(pods.pods());
        return Handouts.of(gpus, GpuResources.allocatable(client.nodes().withName(pods.nodeName()).get()), dra.slices(),
                a.allocations(), a.unread());
    }

    private DraView view(String node) {
        DraView v = new DraView(client, node);
        open.add(v);
        return v;
    }

    @Test
    void draNodeNvidiaV1AClaimOfAPodOnTheNodeMarksItsGpuAllocated() {
        serve("v1", "v1beta2", "v1beta1");
        DraApi v1 = new DraApi("v1");
        node("dra-node", Map.of());
        create(v1, DraShapes.nvidiaSliceV1("dra-node"));
        create(v1, DraShapes.nvidiaSliceV1("other-node")); // the mock ignores field selectors: must not count
        create(v1, DraShapes.claim("resource.k8s.io/v1", "team-a", "train-gpu-x7k2p", "gpu.nvidia.com", "dra-node",
                "gpu-1-mig-1g10gb-19-0"));
        client.pods().inNamespace("team-a").resource(Serialization.unmarshal(
                DraShapes.podWithClaim("team-a", "train", "dra-node", "train-gpu-x7k2p"), Pod.class)).create();

        DraView dra = view("dra-node");
        assertEquals(new DraApi("v1"), dra.api().orElseThrow(), "the newest served version");
        NodeHandout h = pass(new NodeView(client, "dra-node"), dra, List.of(H100_0, H100_1));

        assertEquals("dra", h.mode());
        assertEquals(List.of("dra", "dra"), h.gpus().stream().map(NodeHandout.GpuHandout::by).toList());
        assertEquals(Boolean.FALSE, h.gpus().get(0).allocated());
        NodeHandout.GpuHandout migParent = h.gpus().get(1);
        assertEquals(Boolean.TRUE, migParent.allocated(), "its MIG device is held by team-a/train's claim");
        assertEquals(List.of("gpu-1", "gpu-1-mig-1g10gb-19-0"),
                migParent.dra().stream().map(NodeHandout.DraDeviceRef::device).toList());
        assertEquals(List.of("team-a/train-gpu-x7k2p"), migParent.dra().get(1).claims());
        assertEquals(List.of(new NodeHandout.DraTotal("gpu.nvidia.com", 2, 1, 3, 1)), h.draTotals(),
                "one slice's devices, the other node's left out");
    }

    @Test
    void aSteadyPassSendsNoRequest() throws Exception {
        serve("v1");
        DraApi v1 = new DraApi("v1");
        node("dra-node", Map.of());
        create(v1, DraShapes.nvidiaSliceV1("dra-node"));
        create(v1, DraShapes.claim("resource.k8s.io/v1", "team-a", "train-gpu-x7k2p", "gpu.nvidia.com", "dra-node", "gpu-0"));
        client.pods().inNamespace("team-a").resource(Serialization.unmarshal(
                DraShapes.podWithClaim("team-a", "train", "dra-node", "train-gpu-x7k2p"), Pod.class)).create();
        NodeView pods = new NodeView(client, "dra-node");
        open.add(pods);
        pods.start(n -> { }, (what, t) -> { });
        DraView dra = view("dra-node");
        dra.start((what, t) -> { });

        int[] counts = new int[2];
        long deadline = System.currentTimeMillis() + 10_000;
        do {
            Thread.sleep(100);
            int before = server.getRequestCount();
            DraView.Allocations a = dra.allocations(pods.pods());
            counts[0] = a.allocations().size();
            dra.slices();
            counts[1] = server.getRequestCount() - before;
        } while (counts[1] != 0 && System.currentTimeMillis() < deadline);
        assertEquals(0, counts[1], "once the informers synced and the claim was read, a pass reads memory only");
        assertEquals(1, counts[0], "the claim's allocation, from the cache");
        assertEquals(1, dra.slices().size());
    }

    /** Polls {@code condition} for up to 10 s, as passes would: the informer hands its events over asynchronously. */
    private static void within10s(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (!condition.getAsBoolean()) {
            assertTrue(System.currentTimeMillis() < deadline, what + ": not within 10 s");
            Thread.sleep(50);
        }
    }

    @Test
    void unchangedPodsAndSlicesAreTheLastPassesListsAndAChangeIsReadAgain() throws Exception {
        serve("v1");
        DraApi v1 = new DraApi("v1");
        node("dra-node", Map.of());
        create(v1, DraShapes.nvidiaSliceV1("dra-node"));
        create(v1, DraShapes.claim("resource.k8s.io/v1", "team-a", "train-gpu-x7k2p", "gpu.nvidia.com", "dra-node", "gpu-0"));
        client.pods().inNamespace("team-a").resource(Serialization.unmarshal(
                DraShapes.podWithClaim("team-a", "train", "dra-node", "train-gpu-x7k2p"), Pod.class)).create();
        NodeView pods = new NodeView(client, "dra-node");
        open.add(pods);
        pods.start(n -> { }, (what, t) -> { });
        DraView dra = view("dra-node");
        dra.start((what, t) -> { });
        within10s(() -> {
            int before = server.getRequestCount();
            dra.allocations(pods.pods());
            dra.slices();
            return server.getRequestCount() == before;
        }, "the informers synced and the claim read");

        // Nothing changed: the very lists of the last pass, not copies made again and walked again.
        List<BoundPod> first = pods.pods();
        DraView.Allocations allocations = dra.allocations(first);
        List<?> slices = dra.slices();
        assertSame(first, pods.pods());
        assertSame(allocations, dra.allocations(pods.pods()));
        assertSame(slices, dra.slices());
        assertEquals(1, allocations.allocations().size());

        // A second pod with its claim: its event makes the next read list the store again, and read the new claim.
        create(v1, DraShapes.claim("resource.k8s.io/v1", "team-b", "infer-gpu-q9d4m", "gpu.nvidia.com", "dra-node", "gpu-1"));
        client.pods().inNamespace("team-b").resource(Serialization.unmarshal(
                DraShapes.podWithClaim("team-b", "infer", "dra-node", "infer-gpu-q9d4m"), Pod.class)).create();
        within10s(() -> pods.pods().size() == 2, "the new pod");
        assertNotSame(first, pods.pods());
        assertEquals(2, dra.allocations(pods.pods()).allocations().size());

        // A pod changed in place (a label): a new list too.
        List<BoundPod> two = pods.pods();
        client.pods().inNamespace("team-a").withName("train").edit(p -> {
            p.getMetadata().setLabels(Map.of("edited", "yes"));
            return p;
        });
        within10s(() -> pods.pods() != two, "the edited pod");

        // The slice deleted: parsed again, and gone.
        client.genericKubernetesResources(v1.slices()).delete();
        within10s(() -> dra.slices().isEmpty(), "the deleted slice");
        assertNotSame(slices, dra.slices());
    }

    @Test
    void amdV1beta1OnlyServerReadsTheBasicShape() {
        serve("v1beta1");
        DraApi beta = new DraApi("v1beta1");
        node("amd-node", Map.of());
        create(beta, DraShapes.amdSliceV1beta1("amd-node"));
        DraView dra = view("amd-node");
        assertEquals(beta, dra.api().orElseThrow());
        NodeHandout h = pass(new NodeView(client, "amd-node"), dra, List.of(MI300X));
        assertEquals("dra", h.mode());
        assertEquals("pciAddr", h.gpus().get(0).dra().get(0).matchedBy());
        assertEquals("amdgpu", h.gpus().get(0).dra().get(0).type());
        assertEquals(Map.of("memory", "196592Mi", "computeUnits", "304", "simdUnits", "1216"),
                dra.slices().get(0).devices().get(0).capacity());
    }

    @Test
    void devicePluginNodeOnAServerWithoutDra() {
        // No expectation for /apis/resource.k8s.io: the mock answers 404, as a server without DRA does.
        node("dp-node", Map.of("amd.com/gpu", "1"));
        DraView dra = view("dp-node");
        NodeHandout h = pass(new NodeView(client, "dp-node"), dra, List.of(MI300X));
        assertTrue(dra.api().isEmpty());
        assertEquals("devicePlugin", h.mode());
        assertEquals("amd.com/gpu", h.gpus().get(0).devicePlugin());
        assertNull(h.gpus().get(0).allocated());
        int before = server.getRequestCount();
        dra.slices();
        dra.allocations(List.of());
        assertEquals(before, server.getRequestCount(), "discovery is not asked again");
    }

    @Test
    void nodeWithBothNvidiaDevicePluginAndIntelDra() {
        serve("v1");
        DraApi v1 = new DraApi("v1");
        node("mixed-node", Map.of("nvidia.com/gpu", "1", "gpu.intel.com/millicores", "1000"));
        create(v1, DraShapes.intelSliceV1("mixed-node"));
        DraView dra = view("mixed-node");
        NodeHandout h = pass(new NodeView(client, "mixed-node"), dra, List.of(H100_0, FLEX170));
        assertEquals("both", h.mode());
        assertEquals(List.of("dra", "devicePlugin"), h.gpus().stream().map(NodeHandout.GpuHandout::by).toList(),
                "sorted by address: the Flex 170 at 03:00.0 by DRA, the H100 at 1b:00.0 by the device plugin");
        assertEquals("resource.kubernetes.io/pciBusID", h.gpus().get(0).dra().get(0).matchedBy());
        assertEquals(List.of(new NodeHandout.DraTotal("gpu.intel.com", 1, 0, 1, 0)), h.draTotals());
    }

    @Test
    void aClaimThatCannotBeReadIsAProblemNotAFailure() {
        serve("v1");
        node("dra-node", Map.of());
        client.pods().inNamespace("team-b").resource(Serialization.unmarshal(
                DraShapes.podWithClaim("team-b", "infer", "dra-node", "infer-gpu-q9w3e"), Pod.class)).create();
        server.expect().get().withPath("/apis/resource.k8s.io/v1/namespaces/team-b/resourceclaims/infer-gpu-q9w3e")
                .andReturn(403, "{\"kind\":\"Status\",\"code\":403}").once();
        DraView dra = view("dra-node");
        DraView.Allocations a = dra.allocations(new NodeView(client, "dra-node").pods());
        assertEquals(List.of("claim team-b/infer-gpu-q9w3e not readable (HTTP 403)"), a.unread());
        assertTrue(a.allocations().isEmpty());
    }
}

