package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpudetect.agent.AgentLog;
import io.gpudetect.agent.AgentMetrics;
import io.gpudetect.agent.AgentSettings;
import io.gpudetect.agent.NodeAgent;
import io.gpudetect.agent.PassReport;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.k8s.AgentClient;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.testing.CommandRun;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.InstalledChart;
import io.gpudetect.testing.Observations;
import io.gpudetect.testing.Profiles;
import io.gpudetect.testing.RealApiServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nodes that Akash's inventory operator leaves out, on a real API server: one Ready, one cordoned (as
 * {@code kubectl cordon} leaves it: {@code spec.unschedulable}), one whose kubelet reports NotReady, one with no
 * Ready condition yet (a node that never reported), and one that a rule of the operator's {@code exclude.nodes}
 * names. Each has four MI100s, allocatable, and its record written by the agent as the chart's service account;
 * {@code match --cluster} and {@code akash --cluster} then run as an administrator, reading the Node objects with the
 * same list request that finds missing records (no other right is needed).
 */
@ExtendWith(RealApiServer.Extension.class)
class NodeStateRealApiServerTest {

    private static final List<String> NODES = List.of("state-ready", "state-cordoned", "state-not-ready",
            "state-no-condition", "state-retired-1");
    private static final String NO_PODS = ": it takes no new pods, and Akash's provider does not bid with it";
    private static final String LEFT_OUT = ": the operator writes no key on it and leaves it out of the inventory, "
            + "so the provider bids with none of its cards";

    private static KubernetesClient admin;
    private static RealApiServer server;

    @TempDir
    static Path dir;

    @BeforeAll
    static void nodesAndRecords(RealApiServer realServer) {
        server = realServer;
        InstalledChart.install(server);
        admin = server.adminClient();
        for (String name : NODES) {
            admin.nodes().withName(name).delete();
            NodeBuilder spec = new NodeBuilder().withNewMetadata().withName(name).endMetadata();
            if (name.equals("state-cordoned")) {
                spec.withNewSpec().withUnschedulable(true).endSpec();
            }
            Node node = admin.nodes().resource(spec.build()).create();
            NodeBuilder status = new NodeBuilder(node).withNewStatus().addToAllocatable("amd.com/gpu", new Quantity("4"))
                    .addToCapacity("amd.com/gpu", new Quantity("4")).endStatus();
            switch (name) {
                case "state-not-ready" -> status.editStatus().addNewCondition().withType("Ready").withStatus("False")
                        .withReason("KubeletNotReady").withMessage("container runtime network not ready").endCondition()
                        .endStatus();
                case "state-no-condition" -> { }
                default -> status.editStatus().addNewCondition().withType("Ready").withStatus("True")
                        .withReason("KubeletReady").endCondition().endStatus();
            }
            admin.nodes().resource(status.build()).updateStatus();
        }
        RetryAfterHint hint = new RetryAfterHint();
        Inventory mi100s = Fixtures.detect(Fixtures.host("rocm-smi_4x-instinct-mi100_rocm-6.0.2_showallinfo"));
        try (KubernetesClient asAgent = AgentClient.build(InstalledChart.agentConfig(server), hint)) {
            for (String name : NODES) {
                try (NodeAgent agent = new NodeAgent(AgentSettings.defaults(name, Profiles.of("gpu-detect"),
                        "test"), Observations.of(() -> mi100s), asAgent, hint,
                        new AgentLog(new PrintWriter(new StringWriter()), Clock.systemUTC()), new AgentMetrics(),
                        new PrintWriter(new StringWriter()), Clock.systemUTC())) {
                    PassReport report = agent.pass();
                    assertNull(report.error(), name + ": " + report);
                }
            }
        }
    }

    @AfterAll
    static void restore() {
        if (admin != null) {
            NODES.forEach(n -> admin.nodes().withName(n).delete());
            admin.close();
        }
    }

    /** The operator's configuration, as the Helm chart's ConfigMap holds it. */
    private static Path inventoryConfig() throws IOException {
        Path file = dir.resolve("inventory-configmap.yaml");
        Files.writeString(file, """
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: inventory-configmap, namespace: akash-services}
                data:
                  config.yaml: |
                    version: v1
                    cluster_storage:
                      - default
                    exclude:
                      nodes:
                        - ^state-retired-
                      node_storage: []
                """);
        return file;
    }

    @Test
    void matchGivesNoReplicaToANodeThatIsNotReadyCordonedOrExcluded() throws IOException {
        CommandRun run = run("match", "--cluster", "--akash-inventory-config", inventoryConfig().toString(),
                "--gpu", "vendor=amd,model=mi100,count=4,replicas=2", "-o", "json");

        assertEquals(1, run.exit(), run.err());
        JsonNode placement = new ObjectMapper().readTree(run.out()).get("placements").get(0);
        assertEquals(List.of("state-ready"), List.of(placement.get("assigned").get(0).asText()));
        assertEquals(1, placement.get("placed").asInt(), "one Ready node with 4 units takes one replica of 4");
        Map<String, String> reasons = verdicts(placement);
        assertEquals("can serve", reasons.get("state-ready"));
        assertEquals("node cordoned (spec.unschedulable)" + NO_PODS, reasons.get("state-cordoned"));
        assertEquals("node not Ready (Ready is False: KubeletNotReady)" + NO_PODS, reasons.get("state-not-ready"));
        assertEquals("node not Ready (no Ready condition)" + NO_PODS, reasons.get("state-no-condition"));
        assertEquals("node excluded by the Akash inventory operator's exclude.nodes rule '^state-retired-': Akash's "
                + "provider does not bid with it", reasons.get("state-retired-1"));

        CommandRun withoutRules = run("match", "--cluster", "--gpu", "vendor=amd,model=mi100,count=4", "-o", "json");
        assertEquals("can serve", verdicts(new ObjectMapper().readTree(withoutRules.out()).get("placements").get(0))
                .get("state-retired-1"), "no exclusion rule given");
    }

    @Test
    void inventoryCountsNoFreeUnitOnANodeThatIsNotReadyOrCordoned() throws IOException {
        CommandRun run = run("inventory", "--cluster", "-o", "json");

        JsonNode doc = new ObjectMapper().readTree(run.out());
        Map<String, String> states = new java.util.TreeMap<>();
        doc.get("nodes").forEach(n -> states.put(n.get("node").asText(), n.get("state").asText()
                + (n.has("detail") ? ": " + n.get("detail").asText() : "")));
        assertEquals("ok", states.get("state-ready"));
        assertEquals("unavailable: node cordoned (spec.unschedulable)" + NO_PODS, states.get("state-cordoned"));
        assertEquals("unavailable: node not Ready (Ready is False: KubeletNotReady)" + NO_PODS, states.get("state-not-ready"));
        // The server is shared with other test classes' nodes: the free AMD units are those of every node that takes
        // new work, worked out from the node rows, with the cordoned and NotReady nodes' idle units left out.
        int expectedFree = 0;
        int idleOnUnavailable = 0;
        for (JsonNode n : doc.get("nodes")) {
            int idle = Math.max(0, n.path("allocatable").path("amd").asInt() - n.path("inUse").path("amd").asInt());
            if (n.get("state").asText().equals("unavailable")) {
                idleOnUnavailable += idle;
            } else {
                expectedFree += idle;
            }
        }
        assertTrue(idleOnUnavailable >= 12, "three unavailable nodes with 4 idle units each: " + doc.get("nodes"));
        for (JsonNode units : doc.get("units")) {
            if (units.get("unitKind").asText().equals("amd")) {
                assertEquals(expectedFree, units.get("free").asInt(), doc.toString());
            }
        }
    }

    @Test
    void akashPredictsNoLabelForANodeTheOperatorLeavesOut() throws IOException {
        CommandRun run = run("akash", "--cluster", "--akash-inventory-config", inventoryConfig().toString(), "-o", "json");

        assertEquals(1, run.exit(), run.err());
        Map<String, JsonNode> nodes = new TreeMap<>();
        new ObjectMapper().readTree(run.out()).get("nodes").forEach(n -> nodes.put(n.get("node").asText(), n));
        // gpus.json: "1002": {"name": "amd", "devices": {"738c": {"name": "mi100", "interface": "PCIe", "memory_size": "32Gi"}}}
        String key = "akash.network/capabilities.gpu.vendor.amd.model.mi100";
        assertEquals("{\"akash.network\":\"true\",\"" + key + "\":\"4\",\"" + key + ".interface.pcie\":\"4\",\"" + key
                + ".ram.32Gi\":\"4\"}", nodes.get("state-ready").get("labels").toString());
        assertFalse(nodes.get("state-ready").has("excluded"));
        Map<String, String> expected = Map.of(
                "state-cordoned", "node cordoned (spec.unschedulable)" + LEFT_OUT,
                "state-not-ready", "node not Ready (Ready is False: KubeletNotReady)" + LEFT_OUT,
                "state-no-condition", "node not Ready (no Ready condition)" + LEFT_OUT,
                "state-retired-1", "node excluded by the Akash inventory operator's exclude.nodes rule "
                        + "'^state-retired-'" + LEFT_OUT);
        expected.forEach((name, why) -> {
            JsonNode n = nodes.get(name);
            assertEquals(why, n.get("excluded").asText(), name);
            assertEquals("{}", n.get("labels").toString(), name);
            assertEquals(4, n.get("cards").size(), name);
            n.get("cards").forEach(c -> {
                assertEquals("dropped", c.get("verdict").asText(), name);
                assertEquals(why, c.get("reasons").get(0).asText(), name);
            });
            assertFalse(n.get("notChecked").toString().contains("node state"), n.get("notChecked").toString());
        });
    }

    private static CommandRun run(String... args) {
        return CommandRun.of(cli -> AgentCommands.useClusterSettings(cli, server::adminConfig), args);
    }

    /** Each of this test's nodes with its verdict: "can serve" or the reason, word for word. */
    private static Map<String, String> verdicts(JsonNode placement) {
        Map<String, String> out = new TreeMap<>();
        for (JsonNode v : placement.get("nodes")) {
            if (NODES.contains(v.get("node").asText())) {
                out.put(v.get("node").asText(), v.get("canServe").asBoolean() ? "can serve" : v.get("reason").asText());
            }
        }
        return out;
    }
}
