package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpudetect.agent.AgentLog;
import io.gpudetect.agent.AgentMetrics;
import io.gpudetect.agent.AgentSettings;
import io.gpudetect.agent.NodeAgent;
import io.gpudetect.agent.PassReport;
import io.gpudetect.inventory.Inventories;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.k8s.dra.DraApi;
import io.gpudetect.k8s.dra.DraShapes;
import io.gpudetect.k8s.dra.NodeSelectorIgnoringMock;
import io.gpudetect.model.Gpu;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.testing.MockApiServer;
import io.gpudetect.testing.Observations;
import io.gpudetect.testing.Profiles;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Three nodes on fabric8's mock server, each record written by the real agent from the node's ResourceSlices, its
 * pods' claims and its allocatable; then {@code inventory --cluster}, {@code match --cluster} and
 * {@code akash --cluster} as a user runs them. The expected numbers, read from the objects below:
 * <ul>
 * <li>{@code dra-node}: no GPU resource in allocatable; NVIDIA's slice lists gpu-0 (0000:1b:00.0), gpu-1
 * (0000:43:00.0) and gpu-1's MIG device gpu-1-mig-1g10gb-19-0, which team-a/train's claim holds. So 2 nvidia units
 * allocatable, 1 in use (gpu-1: a GPU with an allocated MIG device is not free for a whole-GPU request), 1 free.
 * Akash's operator reads allocatable only: 0 units bid.
 * <li>{@code dp-node}: {@code amd.com/gpu: 2} for two MI300X, no slice, a running pod asking {@code amd.com/gpu: 1}:
 * 2 allocatable, 1 in use, exactly as before DRA.
 * <li>{@code mixed-node}: {@code nvidia.com/gpu: 2} for its two H100s, which NVIDIA's slice lists too (each served
 * by both: counted once, as the device plugin's units), a running pod asking {@code nvidia.com/gpu: 1}; Intel's
 * slice lists its Flex 170 (0000:03:00.0), which team-a/render's claim holds. So nvidia 2 allocatable, 1 in use;
 * intel 1 allocatable (DRA), 1 in use.
 * </ul>
 */
class DraNodesOnMockServerTest {

    private static final String AKASH_TABLE = DraShapes.AKASH_TABLE;
    private static final String H100_1_UUID = DraShapes.H100_1_UUID;

    private NodeSelectorIgnoringMock mock;
    private KubernetesClient client;
    private Supplier<Config> settings;
    private Path table;

    private static Gpu h100(String address, String uuid) {
        return DraShapes.h100(address, uuid);
    }

    private static Gpu mi300x(String address) {
        return DraShapes.mi300x(address);
    }

    private static Gpu flex170() {
        return DraShapes.flex170();
    }

    @BeforeEach
    void cluster(@TempDir Path dir) throws Exception {
        mock = new NodeSelectorIgnoringMock();
        client = mock.client;
        mock.server.expectCustomResource(CustomResourceDefinitionContext.fromCustomResourceType(GpuCapacity.class));
        client.getKubernetesSerialization().registerKubernetesResource(GpuCapacity.class);
        mock.server.expect().get().withPath("/apis/resource.k8s.io").andReturn(200, DraShapes.apiGroup("v1")).always();
        DraApi v1 = new DraApi("v1");

        node("dra-node", Map.of());
        node("dp-node", Map.of("amd.com/gpu", "2"));
        node("mixed-node", Map.of("nvidia.com/gpu", "2"));
        create(v1.slices(), null, DraShapes.nvidiaSliceV1("dra-node"));
        create(v1.slices(), null, DraShapes.nvidiaSliceV1("mixed-node"));
        create(v1.slices(), null, DraShapes.intelSliceV1("mixed-node"));
        create(v1.claims(), "team-a", DraShapes.claim("resource.k8s.io/v1", "team-a", "train-gpu-x7k2p",
                "gpu.nvidia.com", "dra-node", "gpu-1-mig-1g10gb-19-0"));
        create(v1.claims(), "team-a", DraShapes.claim("resource.k8s.io/v1", "team-a", "render-gpu-q9w4z",
                "gpu.intel.com", "mixed-node", "0000-03-00-0-0x56c0"));
        client.pods().inNamespace("team-a").resource(Serialization.unmarshal(
                DraShapes.podWithClaim("team-a", "train", "dra-node", "train-gpu-x7k2p"), Pod.class)).create();
        client.pods().inNamespace("team-a").resource(Serialization.unmarshal(
                DraShapes.podWithClaim("team-a", "render", "mixed-node", "render-gpu-q9w4z"), Pod.class)).create();
        pluginPod("infer", "dp-node", "amd.com/gpu");
        pluginPod("serve", "mixed-node", "nvidia.com/gpu");

        pass("dra-node", List.of(h100("0000:1b:00.0", DraShapes.H100_UUID), h100("0000:43:00.0", H100_1_UUID)));
        pass("dp-node", List.of(mi300x("0000:c1:00.0"), mi300x("0000:e1:00.0")));
        pass("mixed-node", List.of(h100("0000:1b:00.0", DraShapes.H100_UUID), h100("0000:43:00.0", H100_1_UUID),
                flex170()));

        Path kubeconfig = dir.resolve("kubeconfig");
        MockApiServer.writeKubeconfig(kubeconfig, mock.server.getPort());
        settings = () -> Config.fromKubeconfig(kubeconfig.toFile());
        table = dir.resolve("gpus.json");
        Files.writeString(table, AKASH_TABLE);
    }

    @AfterEach
    void close() {
        mock.close();
    }

    private void node(String name, Map<String, String> allocatable) {
        NodeBuilder node = new NodeBuilder().withNewMetadata().withName(name).withUid("uid-" + name).endMetadata()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus();
        allocatable.forEach((k, v) -> node.editStatus().addToAllocatable(k, new Quantity(v)).endStatus());
        client.nodes().resource(node.build()).create();
    }

    private void create(io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext kind, String namespace,
                        String yaml) {
        GenericKubernetesResource r = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
        var resources = client.genericKubernetesResources(kind);
        (namespace == null ? resources.resource(r) : resources.inNamespace(namespace).resource(r)).create();
    }

    /** A running pod that asks a device plugin for one unit of {@code resource}. */
    private void pluginPod(String name, String node, String resource) {
        client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName(name)
                .withNamespace("default").endMetadata().withNewSpec().withNodeName(node).addNewContainer().withName("c")
                .withNewResources().addToLimits(resource, new Quantity("1")).endResources().endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build()).create();
    }

    private void pass(String node, List<Gpu> gpus) throws Exception {
        var inventory = Inventories.of("test", gpus, List.of(), List.of());
        try (NodeAgent agent = new NodeAgent(AgentSettings.defaults(node, Profiles.of("gpu-detect"), "test"),
                Observations.of(() -> inventory), client, new RetryAfterHint(),
                new AgentLog(new PrintWriter(new StringWriter()), Clock.systemUTC()), new AgentMetrics(),
                new PrintWriter(new StringWriter()), Clock.systemUTC())) {
            agent.start();
            PassReport report = agent.pass();
            assertNull(report.error(), node + ": " + report);
        }
    }

    /** The whole command line, its --cluster reading the mock server. */
    private Run run(String... args) {
        StringWriter out = new StringWriter();
        CommandLine cmd = new CommandLine(new GpuDetectCommand());
        AgentCommands.useClusterSettings(cmd, settings);
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(out));
        int exit = cmd.execute(args);
        System.out.println("$ gpu-detect " + String.join(" ", args) + "   # exit " + exit + "\n" + out);
        return new Run(exit, out.toString());
    }

    record Run(int exit, String out) {
    }

    @Test
    void inventoryCountsDraGpusAsAllocatableAndHeldOnesAsInUse() throws Exception {
        Run r = run("inventory", "--cluster", "-o", "json");
        assertEquals(0, r.exit(), r.out());
        JsonNode doc = new ObjectMapper().readTree(r.out());
        Map<String, String> perNode = new TreeMap<>();
        for (JsonNode n : doc.get("nodes")) {
            perNode.put(n.get("node").asText(), "alloc=" + n.get("allocatable") + " used=" + n.get("inUse") + " "
                    + n.get("handout").asText());
        }
        assertEquals(Map.of(
                "dra-node", "alloc={\"nvidia\":2} used={\"nvidia\":1} dra (gpu.nvidia.com: 2 GPUs, 1 allocated)",
                "dp-node", "alloc={\"amd\":2} used={\"amd\":1} devicePlugin",
                "mixed-node", "alloc={\"intel\":1,\"nvidia\":2} used={\"intel\":1,\"nvidia\":1} "
                        + "both (gpu.intel.com: 1 GPU, 1 allocated; gpu.nvidia.com: 2 GPUs, 0 allocated)"),
                perNode, r.out());
        Map<String, String> units = new TreeMap<>();
        for (JsonNode u : doc.get("units")) {
            units.put(u.get("unitKind").asText(), u.get("allocatable") + "/" + u.get("inUse") + "/" + u.get("free"));
        }
        // allocatable / in use / free: nvidia 2+2 / 1+1 / 1+1, amd 2/1/1, intel 1/1/0.
        assertEquals(Map.of("nvidia", "4/2/2", "amd", "2/1/1", "intel", "1/1/0"), units, r.out());
        List<String> warnings = new ArrayList<>();
        doc.get("nodes").forEach(n -> {
            if (n.has("warnings")) {
                n.get("warnings").forEach(w -> warnings.add(n.get("node").asText() + ": " + w.asText()));
            }
        });
        assertEquals(List.of(
                "mixed-node: GPU 0000:1b:00.0 is served by both the device plugin (nvidia.com/gpu) and DRA driver "
                        + "gpu.nvidia.com: counted once, as a nvidia.com/gpu unit",
                "mixed-node: GPU 0000:43:00.0 is served by both the device plugin (nvidia.com/gpu) and DRA driver "
                        + "gpu.nvidia.com: counted once, as a nvidia.com/gpu unit"), warnings);

        Run table = run("inventory", "--cluster");
        assertTrue(table.out().contains("HANDED OUT BY"), table.out());
        assertTrue(table.out().contains("warning: mixed-node: GPU 0000:1b:00.0 is served by both"), table.out());
    }

    @Test
    void matchPlacesOnTheFreeDraGpuAndRefusesTheHeldOne() {
        // One h100 free on dra-node (gpu-0) and one on mixed-node (2 allocatable, 1 requested): two replicas fit.
        assertEquals(0, run("match", "--cluster", "--gpu", "vendor=nvidia,model=h100,count=1,replicas=2").exit());
        assertEquals(1, run("match", "--cluster", "--gpu", "vendor=nvidia,model=h100,count=1,replicas=3").exit());
        Run two = run("match", "--cluster", "--gpu", "vendor=nvidia,model=h100,count=2");
        assertEquals(1, two.exit(), two.out());
        assertTrue(two.out().contains("dra-node    1 nvidia  too few free units: 1 nvidia free of 2, 2 asked per replica"),
                two.out());
        assertEquals(0, run("match", "--cluster", "--gpu", "vendor=amd,model=mi300x,count=1").exit());
        assertEquals(1, run("match", "--cluster", "--gpu", "vendor=amd,model=mi300x,count=2").exit());
        assertTrue(two.out().contains("warning: node mixed-node: GPU 0000:43:00.0 is served by both"), two.out());
    }

    @Test
    void akashForecastSaysTheOperatorBidsNoDraGpu() throws Exception {
        Run r = run("akash", "--cluster", "--akash-table", table.toString(), "-o", "json");
        assertEquals(1, r.exit(), "dra-node's cards are not bid on: " + r.out());
        JsonNode doc = new ObjectMapper().readTree(r.out());
        Map<String, JsonNode> nodes = new TreeMap<>();
        doc.get("nodes").forEach(n -> nodes.put(n.get("node").asText(), n));

        JsonNode dra = nodes.get("dra-node");
        assertEquals(List.of("Akash's inventory operator reads the node's allocatable nvidia.com/gpu only (0), so the "
                + "provider bids 0 GPU units on this node: 2 nvidia GPUs are handed out by DRA driver gpu.nvidia.com "
                + "through ResourceSlices and ResourceClaims, not a device plugin"), texts(dra.get("problems")));
        for (JsonNode card : dra.get("cards")) {
            assertEquals("dropped", card.get("verdict").asText());
            assertEquals(List.of("handed out by DRA driver gpu.nvidia.com (ResourceSlices, ResourceClaims), not a "
                    + "device plugin: it is no unit of the node's allocatable nvidia.com/gpu, the only figure the "
                    + "operator reads"), texts(card.get("reasons")));
        }
        assertTrue(!r.out().contains("device plugin missing"), r.out());

        JsonNode dp = nodes.get("dp-node");
        assertEquals(List.of("bid", "bid"), verdicts(dp));
        assertEquals(List.of(), texts(dp.get("problems")));

        JsonNode mixed = nodes.get("mixed-node");
        // The H100s are the device plugin's 2 units; the Flex 170 is Intel's, which Akash never bids on.
        assertEquals(List.of("dropped", "bid", "bid"), verdicts(mixed));
        assertEquals(List.of(), texts(mixed.get("problems")));
        run("akash", "--cluster", "--akash-table", table.toString());
    }

    private static List<String> verdicts(JsonNode node) {
        List<String> out = new ArrayList<>();
        node.get("cards").forEach(c -> out.add(c.get("verdict").asText()));
        return out;
    }

    private static List<String> texts(JsonNode list) {
        List<String> out = new ArrayList<>();
        if (list != null) {
            list.forEach(t -> out.add(t.asText()));
        }
        return out;
    }
}
