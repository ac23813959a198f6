package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
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
import io.gpudetect.model.Gpu;
import io.gpudetect.testing.CommandRun;
import io.gpudetect.testing.InstalledChart;
import io.gpudetect.testing.Observations;
import io.gpudetect.testing.Profiles;
import io.gpudetect.testing.RealApiServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DraNodesOnMockServerTest}'s three nodes on a real kube-apiserver that serves {@code resource.k8s.io/v1}
 * (1.34 and later; the slices are written as v1): the agent, as the chart's service account, writes each record
 * from the node's ResourceSlices, its pods' claims and its allocatable, and {@code inventory}, {@code match} and
 * {@code akash --cluster} read them as the admin. The expected numbers are the mock test's, read from the same
 * objects (nodes named {@code cmd-*} here, apart from other classes' on the shared server). Skipped where no API
 * server is supplied, or it is older than 1.34.
 */
@ExtendWith(RealApiServer.Extension.class)
class DraCommandsRealApiServerTest {

    private static RealApiServer server;
    private static KubernetesClient admin;
    private static KubernetesClient agent;
    private static DraApi served;

    @BeforeAll
    static void install(RealApiServer realServer) throws Exception {
        Assumptions.assumeTrue(RealApiServer.versionAtLeast(1, 34), "DraCommandsRealApiServerTest needs "
                + "kube-apiserver 1.34 or later (resource.k8s.io/v1): the supplied one is " + RealApiServer.VERSION);
        server = realServer;
        admin = server.adminClient();
        var group = admin.getApiGroup(DraApi.GROUP);
        List<String> versions = group == null ? List.of() : group.getVersions().stream().map(v -> v.getVersion()).toList();
        Assumptions.assumeTrue(versions.contains("v1"), "the API server serves no resource.k8s.io/v1: " + versions);
        served = new DraApi("v1");
        InstalledChart.install(server);
        agent = new KubernetesClientBuilder().withConfig(InstalledChart.agentConfig(server)).build();
        if (admin.namespaces().withName("team-a").get() == null) {
            admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("team-a").endMetadata().build())
                    .create();
        }
        node("cmd-dra", Map.of());
        node("cmd-dp", Map.of("amd.com/gpu", "2"));
        node("cmd-both", Map.of("nvidia.com/gpu", "2"));
        slice(DraShapes.nvidiaSliceV1("cmd-dra"));
        slice(DraShapes.nvidiaSliceV1("cmd-both"));
        slice(DraShapes.intelSliceV1("cmd-both"));
        claim(DraShapes.claim(served.apiVersion(), "team-a", "cmd-train-gpu", "gpu.nvidia.com", "cmd-dra",
                "gpu-1-mig-1g10gb-19-0"));
        claim(DraShapes.claim(served.apiVersion(), "team-a", "cmd-render-gpu", "gpu.intel.com", "cmd-both",
                "0000-03-00-0-0x56c0"));
        pod(Serialization.unmarshal(DraShapes.podWithClaim("team-a", "cmd-train", "cmd-dra", "cmd-train-gpu"), Pod.class));
        pod(Serialization.unmarshal(DraShapes.podWithClaim("team-a", "cmd-render", "cmd-both", "cmd-render-gpu"), Pod.class));
        pod(pluginPod("cmd-infer", "cmd-dp", "amd.com/gpu"));
        pod(pluginPod("cmd-serve", "cmd-both", "nvidia.com/gpu"));

        pass("cmd-dra", List.of(DraShapes.h100("0000:1b:00.0", DraShapes.H100_UUID),
                DraShapes.h100("0000:43:00.0", DraShapes.H100_1_UUID)));
        pass("cmd-dp", List.of(DraShapes.mi300x("0000:c1:00.0"), DraShapes.mi300x("0000:e1:00.0")));
        pass("cmd-both", List.of(DraShapes.h100("0000:1b:00.0", DraShapes.H100_UUID),
                DraShapes.h100("0000:43:00.0", DraShapes.H100_1_UUID), DraShapes.flex170()));
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
        var n = admin.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build())
                .serverSideApply();
        var status = new NodeBuilder(n).editOrNewStatus().addNewCondition().withType("Ready").withStatus("True")
                .withReason("KubeletReady").endCondition();
        allocatable.forEach((k, v) -> status.addToAllocatable(k, new Quantity(v)).addToCapacity(k, new Quantity(v)));
        admin.nodes().resource(status.endStatus().build()).updateStatus();
    }

    private static void slice(String yaml) {
        admin.genericKubernetesResources(served.slices())
                .resource(Serialization.unmarshal(yaml, GenericKubernetesResource.class)).serverSideApply();
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

    private static Pod pluginPod(String name, String node, String resource) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("team-a").endMetadata().withNewSpec()
                .withNodeName(node).addNewContainer().withName("c").withImage("registry.example/serve:1")
                .withNewResources().addToLimits(resource, new Quantity("1")).endResources().endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build();
    }

    /** Created bound to its node, then its status written as the kubelet does. */
    private static void pod(Pod p) {
        var status = p.getStatus();
        p.setStatus(null);
        Pod created = admin.pods().inNamespace("team-a").resource(p).create();
        created.setStatus(status);
        admin.pods().inNamespace("team-a").resource(created).updateStatus();
    }

    /** One pass of the agent on {@code node}, as the chart's service account. */
    private static void pass(String node, List<Gpu> gpus) throws Exception {
        var inventory = Inventories.of("test", gpus, List.of(), List.of());
        Clock clock = Clock.systemUTC();
        try (NodeAgent nodeAgent = new NodeAgent(AgentSettings.defaults(node, Profiles.of("gpu-detect"), "test"),
                Observations.of(() -> inventory), agent, new RetryAfterHint(),
                new AgentLog(new PrintWriter(new StringWriter()), clock), new AgentMetrics(),
                new PrintWriter(new StringWriter()), clock)) {
            nodeAgent.start();
            PassReport report = nodeAgent.pass();
            assertNull(report.error(), node + ": " + report);
        }
    }

    /** The command line as a user runs it, reading the server as its admin; its output printed for the record. */
    private static CommandRun command(String... args) {
        CommandRun run = CommandRun.of(cli -> AgentCommands.useClusterSettings(cli, server::adminConfig), args);
        System.out.println("$ gpu-detect " + String.join(" ", args) + "   # exit " + run.exit() + "\n" + run.out() + run.err());
        return run;
    }

    @Test
    void inventoryCountsDraGpusAsAllocatableAndHeldOnesAsInUse() throws Exception {
        CommandRun r = command("inventory", "--cluster", "-o", "json");
        assertEquals(0, r.exit(), r.err());
        Map<String, String> perNode = new TreeMap<>();
        for (JsonNode n : new ObjectMapper().readTree(r.out()).get("nodes")) {
            if (n.get("node").asText().startsWith("cmd-")) {
                perNode.put(n.get("node").asText(), "alloc=" + n.get("allocatable") + " used=" + n.get("inUse"));
            }
        }
        assertEquals(Map.of("cmd-dra", "alloc={\"nvidia\":2} used={\"nvidia\":1}",
                "cmd-dp", "alloc={\"amd\":2} used={\"amd\":1}",
                "cmd-both", "alloc={\"intel\":1,\"nvidia\":2} used={\"intel\":1,\"nvidia\":1}"), perNode, r.out());
        command("inventory", "--cluster");
    }

    @Test
    void matchSeesOneFreeH100OnTheDraNode() {
        CommandRun r = command("match", "--cluster", "--gpu", "vendor=nvidia,model=h100,count=2");
        assertEquals(1, r.exit(), r.out());
        assertTrue(r.out().contains("cmd-dra") && r.out().contains(
                "too few free units: 1 nvidia free of 2, 2 asked per replica"), r.out());
    }

    @Test
    void akashForecastSaysTheOperatorBidsNoDraGpu(@TempDir Path dir) throws Exception {
        Path table = Files.writeString(dir.resolve("gpus.json"), DraShapes.AKASH_TABLE);
        CommandRun r = command("akash", "--cluster", "--akash-table", table.toString());
        // Other classes' nodes share the server: only cmd-dra's block is judged.
        int start = r.out().indexOf("\nnode cmd-dra:");
        assertTrue(start >= 0, r.out());
        int end = r.out().indexOf("\nnode ", start + 1);
        String block = r.out().substring(start, end < 0 ? r.out().length() : end);
        assertTrue(block.contains("Akash's inventory operator reads the node's allocatable nvidia.com/gpu only (0), "
                + "so the provider bids 0 GPU units on this node: 2 nvidia GPUs are handed out by DRA driver "
                + "gpu.nvidia.com through ResourceSlices and ResourceClaims, not a device plugin"), block);
        assertFalse(block.contains("device plugin missing"), block);
    }
}
