package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpudetect.agent.AgentLog;
import io.gpudetect.agent.AgentMetrics;
import io.gpudetect.agent.AgentSettings;
import io.gpudetect.agent.NodeAgent;
import io.gpudetect.agent.PassReport;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.match.CapacityRecordOffers;
import io.gpudetect.match.InventoryOffers;
import io.gpudetect.match.NodeOffer;
import io.gpudetect.match.OfferedGpu;
import io.gpudetect.testing.FaultyApiServer;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.MockApiServer;
import io.gpudetect.testing.Observations;
import io.gpudetect.testing.Profiles;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The real agent writes the records of three nodes (a mixed NVIDIA node, a node with MIG on some cards, an
 * AMD node) into a mock API server; then {@code inventory --cluster} and {@code match --cluster}, run as a
 * user would through the command line, read them back. They must see exactly the GPUs that {@code match
 * --replay} sees in the same recordings, the Nodes' allocatable units and the units their running pods use.
 */
class ClusterRoundTripTest {

    record Host(String node, Path bundle, Map<String, String> allocatable, Map<String, String> running,
                Map<String, String> finished) {
    }

    /** The hosts: two hand-made NVML cases and a shared AMD recording (skipped without the shared set). */
    static List<Host> hosts() {
        return List.of(
            new Host("mixed", Fixtures.testCase("nvml-mixed-h100-rtx4090-a100"), Map.of("nvidia.com/gpu", "3"),
                    Map.of("nvidia.com/gpu", "2"), Map.of("nvidia.com/gpu", "1")),
            new Host("mig", Fixtures.testCase("nvml-8xa100-mig"), Map.of("nvidia.com/gpu", "6",
                    "nvidia.com/mig-1g.10gb", "7", "nvidia.com/mig-3g.40gb", "2"),
                    Map.of("nvidia.com/mig-1g.10gb", "3"), Map.of()),
            new Host("amd", Fixtures.host("rocm-smi_4x-instinct-mi100_rocm-6.0.2_showallinfo"),
                    Map.of("amd.com/gpu", "4"), Map.of("amd.com/gpu", "1"), Map.of()));
    }

    private FaultyApiServer api;
    private KubernetesClient client;
    /** The commands' client settings: a kubeconfig file that points at the mock server. */
    private Supplier<Config> settings;

    @BeforeEach
    void writeRecords(@TempDir Path dir) throws Exception {
        api = new FaultyApiServer();
        client = api.client(Duration.ofSeconds(5), new RetryAfterHint());
        for (Host h : hosts()) {
            NodeBuilder node = new NodeBuilder().withNewMetadata().withName(h.node()).endMetadata().withNewStatus()
                    .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus();
            h.allocatable().forEach((k, v) -> node.editStatus().addToAllocatable(k, new Quantity(v)).endStatus());
            client.nodes().resource(node.build()).create();
            pod(h.node() + "-running", h.node(), "Running", h.running());
            pod(h.node() + "-finished", h.node(), "Succeeded", h.finished());
        }
        for (Host h : hosts()) {
            Inventory inventory = Fixtures.detect(h.bundle());
            try (NodeAgent agent = new NodeAgent(AgentSettings.defaults(h.node(), Profiles.of("gpu-detect"), "test"),
                    Observations.of(() -> inventory), client, new RetryAfterHint(), new AgentLog(new PrintWriter(new StringWriter()), Clock.systemUTC()),
                    new AgentMetrics(), new PrintWriter(new StringWriter()), Clock.systemUTC())) {
                PassReport report = agent.pass();
                assertNull(report.error(), h.node() + ": " + report);
            }
        }
        Path kubeconfig = dir.resolve("kubeconfig");
        MockApiServer.writeKubeconfig(kubeconfig, api.port());
        settings = () -> Config.fromKubeconfig(kubeconfig.toFile());
    }

    @AfterEach
    void stop() {
        client.close();
        api.close();
    }

    private void pod(String name, String node, String phase, Map<String, String> limits) {
        if (limits.isEmpty()) {
            return;
        }
        PodBuilder pod = new PodBuilder().withNewMetadata().withName(name).withNamespace("default").endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("c").withNewResources().endResources()
                .endContainer().endSpec().withNewStatus().withPhase(phase).endStatus();
        limits.forEach((k, v) -> pod.editSpec().editFirstContainer().editResources().addToLimits(k, new Quantity(v))
                .endResources().endContainer().endSpec());
        client.pods().inNamespace("default").resource(pod.build()).create();
    }

    @Test
    void theClusterReadsBackExactlyTheGpusAndUnitsTheAgentsSaw() throws Exception {
        Map<String, NodeOffer> fromCluster = new TreeMap<>();
        for (NodeOffer o : new CapacityRecordOffers(CapacityRecordOffers.cluster(client)).offers()) {
            fromCluster.put(o.node(), o);
        }
        assertEquals(List.of("amd", "mig", "mixed"), List.copyOf(fromCluster.keySet()));
        for (Host h : hosts()) {
            NodeOffer replayed = new InventoryOffers(h.node(), Fixtures.detect(h.bundle()), Instant.now()).offers().get(0);
            NodeOffer read = fromCluster.get(h.node());
            assertEquals(sorted(replayed.gpus()), sorted(read.gpus()), h.node() + ": the GPUs");
            assertEquals(units(h.allocatable()), read.allocatable(), h.node() + ": allocatable");
            assertEquals(units(h.running()), read.inUse(), h.node() + ": in use (running pods only)");
            assertTrue(read.lastGoodPass() != null && !read.recordMissing(), h.node());
        }
    }

    @Test
    void inventoryAndMatchOnTheCommandLineSeeTheSame() throws Exception {
        StringWriter out = new StringWriter();
        int code = commandLine(out).execute("inventory", "--cluster", "-o", "json");
        assertEquals(0, code, out.toString());
        JsonNode doc = new ObjectMapper().readTree(out.toString());
        Map<String, String> perNode = new TreeMap<>();
        for (JsonNode n : doc.get("nodes")) {
            perNode.put(n.get("node").asText(), inventoryLine(n));
        }
        assertEquals(INVENTORY, perNode, out.toString());
        assertMatchCountsOnlyFreeUnits(this::match);
    }

    /** What {@code inventory --cluster -o json} says of each of {@link #hosts()}'s nodes, as {@link #inventoryLine}. */
    static final Map<String, String> INVENTORY = Map.of(
            "amd", "4 alloc={\"amd\":4} used={\"amd\":1} ok",
            "mig", "8 alloc={\"mig-1g.10gb\":7,\"mig-3g.40gb\":2,\"nvidia\":6} used={\"mig-1g.10gb\":3,\"mig-3g.40gb\":0,\"nvidia\":0} ok",
            "mixed", "3 alloc={\"nvidia\":3} used={\"nvidia\":2} ok");

    /** One node of {@code inventory}'s JSON: its GPUs, allocatable, in use and state, on one line. */
    static String inventoryLine(JsonNode node) {
        return node.get("gpus").asInt() + " alloc=" + node.get("allocatable") + " used=" + node.get("inUse") + " "
                + node.get("state").asText();
    }

    /**
     * {@code match --cluster --gpu REQUEST} (its exit status from {@code match}) counts only the units no pod uses:
     * three free MI100s on "amd" (one in use), one free card each of h100/a100/rtx4090 on "mixed".
     */
    static void assertMatchCountsOnlyFreeUnits(ToIntFunction<String> match) {
        assertEquals(0, match.applyAsInt("vendor=amd,model=mi100,count=3"), "three MI100s are free");
        assertEquals(1, match.applyAsInt("vendor=amd,model=mi100,count=4"), "the fourth is in use");
        assertEquals(0, match.applyAsInt("vendor=nvidia,mig=1g.10gb,count=1"), "4 of 7 1g.10gb slices are free");
        assertEquals(0, match.applyAsInt("vendor=nvidia,model=h100,vram>=80Gi,count=1"));
    }

    private int match(String request) {
        return commandLine(new StringWriter()).execute("match", "--cluster", "--gpu", request);
    }

    /** The whole command line, its --cluster reading the mock server, its output and errors into {@code out}. */
    private CommandLine commandLine(StringWriter out) {
        CommandLine cmd = new CommandLine(new GpuDetectCommand());
        AgentCommands.useClusterSettings(cmd, settings);
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(out));
        return cmd;
    }

    private static List<OfferedGpu> sorted(List<OfferedGpu> gpus) {
        return gpus.stream().sorted(Comparator.comparing(OfferedGpu::toString)).toList();
    }

    /** Kubernetes resource names as the offers count them: nvidia.com/gpu as nvidia, nvidia.com/mig-X as mig-X. */
    private static Map<String, Integer> units(Map<String, String> resources) {
        Map<String, Integer> out = new TreeMap<>();
        resources.forEach((k, v) -> out.put(k.startsWith("nvidia.com/mig-") ? k.substring("nvidia.com/".length())
                : k.substring(0, k.indexOf('.')), Integer.parseInt(v)));
        return out;
    }
}
