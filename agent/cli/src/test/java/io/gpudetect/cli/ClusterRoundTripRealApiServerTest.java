package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
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
import io.gpudetect.k8s.AgentClient;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.InstalledChart;
import io.gpudetect.testing.Observations;
import io.gpudetect.testing.Profiles;
import io.gpudetect.testing.RealApiServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/**
 * {@link ClusterRoundTripTest} on a real API server: the agent, as the chart's service account, writes the
 * records of three nodes whose pods hold GPUs (running ones count, finished ones do not); then
 * {@code inventory --cluster} and {@code match --cluster}, run as an administrator would from a kubeconfig,
 * read them back.
 */
@ExtendWith(RealApiServer.Extension.class)
class ClusterRoundTripRealApiServerTest {

    private static KubernetesClient admin;
    private static RealApiServer server;

    @BeforeAll
    static void writeRecords(RealApiServer realServer) {
        server = realServer;
        InstalledChart.install(server);
        admin = server.adminClient();
        for (ClusterRoundTripTest.Host h : ClusterRoundTripTest.hosts()) {
            admin.nodes().withName(h.node()).delete();
            Node node = admin.nodes().resource(new NodeBuilder().withNewMetadata().withName(h.node()).endMetadata()
                    .build()).create();
            NodeBuilder withStatus = new NodeBuilder(node).withNewStatus().addNewCondition().withType("Ready")
                    .withStatus("True").withReason("KubeletReady").endCondition().endStatus();
            h.allocatable().forEach((k, v) -> withStatus.editStatus().addToAllocatable(k, new Quantity(v))
                    .addToCapacity(k, new Quantity(v)).endStatus());
            admin.nodes().resource(withStatus.build()).updateStatus();
            pod(h.node() + "-running", h.node(), "Running", h.running());
            pod(h.node() + "-finished", h.node(), "Succeeded", h.finished());
        }
        RetryAfterHint hint = new RetryAfterHint();
        try (KubernetesClient asAgent = AgentClient.build(InstalledChart.agentConfig(server), hint)) {
            for (ClusterRoundTripTest.Host h : ClusterRoundTripTest.hosts()) {
                Inventory inventory = Fixtures.detect(h.bundle());
                try (NodeAgent agent = new NodeAgent(AgentSettings.defaults(h.node(), Profiles.of("gpu-detect"),
                        "test"), Observations.of(() -> inventory), asAgent, hint,
                        new AgentLog(new PrintWriter(new StringWriter()), Clock.systemUTC()), new AgentMetrics(),
                        new PrintWriter(new StringWriter()), Clock.systemUTC())) {
                    PassReport report = agent.pass();
                    assertNull(report.error(), h.node() + ": " + report);
                }
            }
        }
    }

    @AfterAll
    static void restore() {
        if (admin != null) {
            for (ClusterRoundTripTest.Host h : ClusterRoundTripTest.hosts()) {
                admin.pods().inNamespace("default").withName(h.node() + "-running").delete();
                admin.pods().inNamespace("default").withName(h.node() + "-finished").delete();
                admin.nodes().withName(h.node()).delete();
            }
            admin.close();
        }
    }

    /** A pod bound to {@code node} (no scheduler runs: spec.nodeName is set at creation) in {@code phase}. */
    private static void pod(String name, String node, String phase, Map<String, String> limits) {
        if (limits.isEmpty()) {
            return;
        }
        admin.pods().inNamespace("default").withName(name).delete();
        PodBuilder pod = new PodBuilder().withNewMetadata().withName(name).withNamespace("default").endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("c").withImage("busybox")
                .withNewResources().endResources().endContainer().endSpec();
        limits.forEach((k, v) -> pod.editSpec().editFirstContainer().editResources().addToLimits(k, new Quantity(v))
                .endResources().endContainer().endSpec());
        Pod created = admin.pods().inNamespace("default").resource(pod.build()).create();
        admin.pods().inNamespace("default").resource(new PodBuilder(created).withNewStatus().withPhase(phase).endStatus()
                .build()).updateStatus();
    }

    @Test
    void inventoryOnTheCommandLineSeesEveryNodesGpusAndTheUnitsItsRunningPodsHold() throws Exception {
        StringWriter out = new StringWriter();
        CommandLine cmd = command(server::adminConfig, out, out);
        int code = cmd.execute("inventory", "--cluster", "-o", "json");
        assertEquals(0, code, out.toString());
        JsonNode doc = new ObjectMapper().readTree(out.toString());
        Map<String, String> perNode = new TreeMap<>();
        for (JsonNode n : doc.get("nodes")) {
            if (ClusterRoundTripTest.hosts().stream().anyMatch(h -> h.node().equals(n.get("node").asText()))) {
                perNode.put(n.get("node").asText(), ClusterRoundTripTest.inventoryLine(n));
            }
        }
        assertEquals(ClusterRoundTripTest.INVENTORY, perNode, out.toString());
    }

    @Test
    void matchOnTheCommandLineCountsOnlyTheFreeUnits() {
        ClusterRoundTripTest.assertMatchCountsOnlyFreeUnits(ClusterRoundTripRealApiServerTest::match);
    }

    @Test
    void akashOnTheClusterPredictsTheOperatorsLabelsFromTheRecordsPciIds() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = command(server::adminConfig, out, err);

        int code = cmd.execute("akash", "--cluster");

        assertTrue(code == 0 || code == 1, "0 or 1, never invalid input: " + err);
        assertTrue(out.toString().contains("node amd: 4 cards"), out.toString());
        assertTrue(out.toString().contains("node mig: 8 cards"), out.toString());
        assertTrue(out.toString().contains("node mixed: 3 cards"), out.toString());
        // Four MI100s (1002:738c, in Akash's table), as the agent's record carried their PCI ids.
        assertTrue(out.toString().contains("akash.network/capabilities.gpu.vendor.amd.model.mi100=4"), out.toString());
    }

    @Test
    void aUserWithoutRightsIsToldSoInOneLineWithinSeconds() {
        Config nobody = server.serviceAccountConfig("default", "nobody");
        for (String[] args : new String[][] {{"inventory", "--cluster"}, {"match", "--cluster", "--gpu", "vendor=nvidia"}}) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            long t0 = System.nanoTime();
            int code = command(() -> nobody, out, err).execute(args);
            long ms = (System.nanoTime() - t0) / 1_000_000;

            assertEquals(2, code, err.toString());
            String[] lines = err.toString().strip().split("\n");
            assertEquals(1, lines.length, err.toString());
            String url = server.masterUrl().replaceAll("/$", "");
            assertTrue(lines[0].startsWith("gpu-detect " + args[0] + ": the Kubernetes API at " + url + " answered"),
                    lines[0]);
            assertTrue(lines[0].contains("403 Forbidden") && lines[0].contains("system:serviceaccount:default:nobody")
                    && lines[0].contains("cannot list resource"), lines[0]);
            assertTrue(ms < 5_000, args[0] + " took " + ms + " ms");
        }
    }

    private static int match(String request) {
        StringWriter out = new StringWriter();
        return command(server::adminConfig, out, out).execute("match", "--cluster", "--gpu", request);
    }

    /** The command line, with its {@code --cluster} client settings from {@code settings} instead of a kubeconfig. */
    private static CommandLine command(Supplier<Config> settings, StringWriter out, StringWriter err) {
        CommandLine cmd = new CommandLine(new GpuDetectCommand());
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(err));
        AgentCommands.useClusterSettings(cmd, settings);
        return cmd;
    }
}
