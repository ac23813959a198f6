package io.gpudetect.k8s.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpudetect.k8s.GpuResources;
import io.gpudetect.k8s.NodeView;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.record.dra.Handouts;
import io.gpudetect.record.dra.NodeHandout;
import io.gpudetect.testing.InstalledChart;
import io.gpudetect.testing.RealApiServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The DRA reading against a real kube-apiserver that serves {@code resource.k8s.io} (1.32 and later; v1 from
 * 1.34): the chart's service account (its ClusterRole as shipped) reads slices by the {@code spec.nodeName}
 * field selector, which the real server applies, and claims by name; a slice written as v1beta1 (AMD's) comes
 * back converted ({@code io.gpudetect.cli.DraCommandsRealApiServerTest} reads the agent's records of such nodes
 * with {@code inventory}, {@code match} and {@code akash --cluster}). Skipped where no API server is supplied, where the
 * supplied one is older than 1.32, and where it serves no readable version of {@code resource.k8s.io}
 * ({@link RealApiServer} turns the beta versions on for 1.32 and 1.33).
 */
@ExtendWith(RealApiServer.Extension.class)
class DraRealApiServerTest {

    static final Gpu H100_0 = DraViewTest.H100_0;
    static final Gpu H100_1 = DraViewTest.H100_1;
    static final Gpu MI300X = DraViewTest.MI300X;
    static final Gpu FLEX170 = DraViewTest.FLEX170;

    private static RealApiServer server;
    private static KubernetesClient admin;
    private static KubernetesClient agent;
    private static DraApi served;
    private static List<String> versions;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeAll
    static void install(RealApiServer realServer) {
        Assumptions.assumeTrue(RealApiServer.versionAtLeast(1, 32), "DraRealApiServerTest needs kube-apiserver 1.32 "
                + "or later (resource.k8s.io; 1.34+ for the v1 slices): the supplied one is " + RealApiServer.VERSION);
        server = realServer;
        admin = server.adminClient();
        var group = admin.getApiGroup(DraApi.GROUP);
        versions = group == null ? List.of() : group.getVersions().stream().map(v -> v.getVersion()).toList();
        Assumptions.assumeTrue(DraApi.choose(versions).isPresent(), "the API server (" + RealApiServer.VERSION
                + ") serves no readable version of resource.k8s.io (v1, v1beta2, v1beta1): it serves " + versions);
        served = DraApi.choose(versions).orElseThrow();
        InstalledChart.install(server);
        agent = new KubernetesClientBuilder().withConfig(InstalledChart.agentConfig(server)).build();
        for (String ns : List.of("team-a")) {
            if (admin.namespaces().withName(ns).get() == null) {
                admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
            }
        }
        node("dra-node", Map.of());
        node("other-node", Map.of());
        node("dp-node", Map.of("amd.com/gpu", "1"));
        node("mixed-node", Map.of("nvidia.com/gpu", "1"));
        slice(DraShapes.nvidiaSliceV1("dra-node"));
        slice(DraShapes.nvidiaSliceV1("other-node"));
        slice(DraShapes.intelSliceV1("mixed-node"));
        if (versions.contains("v1beta1")) {
            slice(DraShapes.amdSliceV1beta1("amd-node"));
        }
        claim(DraShapes.claim(served.apiVersion(), "team-a", "train-gpu-x7k2p", "gpu.nvidia.com", "dra-node",
                "gpu-1-mig-1g10gb-19-0"));
        pod(DraShapes.podWithClaim("team-a", "train", "dra-node", "train-gpu-x7k2p"));
    }

    @AfterAll
    static void close() {
        if (agent != null) {
            agent.close();
        }
        if (admin != null) {
            admin.close();
        }
    }

    private static void node(String name, Map<String, String> allocatable) {
        Node n = admin.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build())
                .serverSideApply();
        if (!allocatable.isEmpty()) {
            var status = new NodeBuilder(n).editOrNewStatus();
            allocatable.forEach((k, v) -> status.addToAllocatable(k, new Quantity(v)).addToCapacity(k, new Quantity(v)));
            admin.nodes().resource(status.endStatus().build()).updateStatus();
        }
    }

    /** Written in the version its text names (a v1 text needs a 1.34 server: skipped below that). */
    private static void slice(String yaml) {
        GenericKubernetesResource r = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
        String version = r.getApiVersion().substring(r.getApiVersion().indexOf('/') + 1);
        if (!versions.contains(version)) {
            return;
        }
        admin.genericKubernetesResources(new DraApi(version).slices()).resource(r).serverSideApply();
    }

    /** Created, then its allocation written through the status subresource, as the scheduler does. */
    private static void claim(String yaml) {
        GenericKubernetesResource r = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
        Object status = r.getAdditionalProperties().remove("status");
        var claims = admin.genericKubernetesResources(served.claims()).inNamespace("team-a");
        GenericKubernetesResource created = claims.resource(r).create();
        created.getAdditionalProperties().put("status", status);
        claims.resource(created).updateStatus();
    }

    /** Created bound to its node, then its claim statuses written as the kubelet's controller does. */
    private static void pod(String yaml) {
        Pod p = Serialization.unmarshal(yaml, Pod.class);
        var status = p.getStatus();
        p.setStatus(null);
        Pod created = admin.pods().inNamespace("team-a").resource(p).create();
        created.setStatus(status);
        admin.pods().inNamespace("team-a").resource(created).updateStatus();
    }

    private NodeHandout pass(String node, List<Gpu> gpus) {
        DraView dra = new DraView(agent, node);
        open.add(dra);
        DraView.Allocations a = dra.allocations(new NodeView(agent, node).pods());
        return Handouts.of(gpus, GpuResources.allocatable(admin.nodes().withName(node).get()), dra.slices(),
                a.allocations(), a.unread());
    }

    @Test
    void draNodeAsTheAgentSeesIt() {
        Assumptions.assumeTrue(versions.contains("v1"), "the NVIDIA slice is written as v1 (1.34+)");
        NodeHandout h = pass("dra-node", List.of(H100_0, H100_1));
        assertEquals("dra", h.mode());
        assertEquals(List.of(), h.problems(), "the chart's role reads slices and the claim");
        assertEquals(Boolean.FALSE, h.gpus().get(0).allocated());
        assertEquals(Boolean.TRUE, h.gpus().get(1).allocated(), "its MIG device is held by team-a/train's claim");
        assertEquals(List.of(new NodeHandout.DraTotal("gpu.nvidia.com", 2, 1, 3, 1)), h.draTotals(),
                "other-node's slice is left out by the server's field selector");
    }

    @Test
    void devicePluginNode() {
        NodeHandout h = pass("dp-node", List.of(MI300X));
        assertEquals("devicePlugin", h.mode());
        assertNull(h.gpus().get(0).allocated());
    }

    @Test
    void nodeWithBoth() {
        Assumptions.assumeTrue(versions.contains("v1"), "the Intel slice is written as v1 (1.34+)");
        NodeHandout h = pass("mixed-node", List.of(H100_0, FLEX170));
        assertEquals("both", h.mode());
        assertEquals(List.of("dra", "devicePlugin"), h.gpus().stream().map(NodeHandout.GpuHandout::by).toList());
    }

    @Test
    void amdSliceWrittenAsV1beta1IsReadInTheNewestVersion() {
        Assumptions.assumeTrue(versions.contains("v1beta1"), "the server no longer serves v1beta1");
        NodeHandout h = pass("amd-node", List.of(MI300X));
        assertEquals("pciAddr", h.gpus().get(0).dra().get(0).matchedBy());
    }

    @Test
    void aSteadyPassSendsNoRequest() throws Exception {
        Assumptions.assumeTrue(versions.contains("v1"), "the NVIDIA slice is written as v1 (1.34+)");
        NodeView pods = new NodeView(agent, "dra-node");
        open.add(pods);
        pods.start(n -> { }, (what, t) -> { });
        DraView dra = new DraView(agent, "dra-node");
        open.add(dra);
        dra.start((what, t) -> { });
        List<RealApiServer.Request> sent = List.of();
        long deadline = System.currentTimeMillis() + 20_000;
        do {
            Thread.sleep(500);
            int mark = server.auditMark();
            dra.allocations(pods.pods());
            dra.slices();
            Thread.sleep(200); // the audit log is written as requests end
            sent = server.requestsSince(mark, InstalledChart.agentUser());
        } while (!sent.isEmpty() && System.currentTimeMillis() < deadline);
        assertEquals(List.of(), sent, "a pass after the informers synced reads memory only");
        for (AutoCloseable c : open) {
            c.close();
        }
        open.clear();
    }

    @org.junit.jupiter.api.AfterEach
    void closeViews() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        open.clear();
    }
}
