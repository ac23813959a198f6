package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.sink.Observation;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.Source;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.InstalledChart;
import io.gpudetect.testing.Profiles;
import io.gpudetect.testing.RealApiServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * DRM nodes through a real API server: the agent, as the chart's service account, writes the records of two nodes
 * replaying the hand-made sysfs case (Intel UHD 770 at 0000:00:02.0, RTX 3090 at 0000:01:00.0) with
 * {@code /sys/class/drm} links, one without {@code nvidia_drm} loaded and one with it; the API server keeps the
 * record's {@code sysClassDrm} and {@code drmCards} (an empty list included) under the chart's CRD, and
 * {@code akash --cluster} judges the RTX 3090 from them as {@code akash --replay} does from the bundle.
 */
@ExtendWith(RealApiServer.Extension.class)
class AkashDrmRealApiServerTest {

    private static final String WITHOUT = "drm-without-nvidia-drm";
    private static final String WITH = "drm-with-nvidia-drm";
    private static final Map<String, String[]> DRM_LINKS = Map.of(
            WITHOUT, new String[] {"card0=0000:00:02.0", "card0-HDMI-A-1=0000:00:02.0"},
            WITH, new String[] {"card0=0000:00:02.0", "card1=0000:00:01.0/0000:01:00.0"});

    @TempDir
    static Path dir;

    private static KubernetesClient admin;
    private static RealApiServer server;

    @BeforeAll
    static void writeRecords(RealApiServer realServer) throws Exception {
        server = realServer;
        InstalledChart.install(server);
        admin = server.adminClient();
        RetryAfterHint hint = new RetryAfterHint();
        try (KubernetesClient asAgent = AgentClient.build(InstalledChart.agentConfig(server), hint)) {
            for (Map.Entry<String, String[]> host : DRM_LINKS.entrySet()) {
                String name = host.getKey();
                admin.nodes().withName(name).delete();
                Node node = admin.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata()
                        .build()).create();
                admin.nodes().resource(new NodeBuilder(node).withNewStatus().addNewCondition().withType("Ready")
                        .withStatus("True").withReason("KubeletReady").endCondition()
                        .addToAllocatable("nvidia.com/gpu", new Quantity("1"))
                        .addToCapacity("nvidia.com/gpu", new Quantity("1")).endStatus().build()).updateStatus();

                Path bundle = Fixtures.sysfsWithDrm(dir.resolve(name), host.getValue());
                Source source = BundleSource.open(bundle);
                Inventory inventory = Fixtures.detect(bundle);
                try (NodeAgent agent = new NodeAgent(AgentSettings.defaults(name, Profiles.of("gpu-detect"),
                        "test"), () -> new Observation(inventory, DrmCards.read(source), null), asAgent, hint,
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
            for (String name : DRM_LINKS.keySet()) {
                admin.nodes().withName(name).delete();
                admin.resources(GpuCapacity.class).withName(name).delete();
            }
            admin.close();
        }
    }

    @Test
    void theApiServerKeepsEachGpusDrmCardsEmptyListIncluded() {
        GpuCapacitySpec without = admin.resources(GpuCapacity.class).withName(WITHOUT).get().getSpec();
        GpuCapacitySpec with = admin.resources(GpuCapacity.class).withName(WITH).get().getSpec();
        assertEquals(Boolean.TRUE, without.sysClassDrm());
        assertEquals(List.of(List.of("card0"), List.of()), drmCards(without), "Intel, then NVIDIA");
        assertEquals(List.of(List.of("card0"), List.of("card1")), drmCards(with));
    }

    @Test
    void akashOnTheClusterDropsTheCardWithoutADrmNodeWithTheHostsReason() throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new GpuDetectCommand());
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(err));
        ((AkashCommand) cmd.getSubcommands().get("akash").getCommand()).cluster.settings = server::adminConfig;

        int code = cmd.execute("akash", "--cluster", "-o", "json");

        assertEquals(1, code, "the RTX 3090 without nvidia_drm is not bid on: " + err + out);
        JsonNode report = new ObjectMapper().readTree(out.toString());
        JsonNode without = node(report, WITHOUT);
        JsonNode with = node(report, WITH);
        JsonNode dropped = without.get("cards").get(1);
        assertEquals("0000:01:00.0", dropped.get("pciAddress").asText());
        assertEquals("dropped", dropped.get("verdict").asText());
        // Word for word what AkashCommandTest.aCardWithoutADrmNodeIsDroppedAndTheIntelIGpuIsNotOffered gets from sysfs.
        assertEquals(List.of("no DRM card in /sys/class/drm for 0000:01:00.0 (driver module not loaded: nvidia_drm for "
                + "NVIDIA): the operator skips it without a message"), texts(dropped.get("reasons")));
        assertEquals("bid", with.get("cards").get(1).get("verdict").asText());
        // gpus.json: "2204": {"name": "rtx3090", "interface": "PCIe", "memory_size": "24Gi"}
        assertEquals("1", with.get("labels").get("akash.network/capabilities.gpu.vendor.nvidia.model.rtx3090").asText());
        for (JsonNode n : List.of(without, with)) {
            assertTrue(texts(n.get("notChecked")).stream().noneMatch(t -> t.startsWith("DRM nodes:")), n.toString());
        }
    }

    private static List<List<String>> drmCards(GpuCapacitySpec spec) {
        return spec.gpus().stream().map(GpuCapacitySpec.GpuEntry::drmCards).toList();
    }

    private static JsonNode node(JsonNode report, String name) {
        for (JsonNode n : report.get("nodes")) {
            if (n.get("node").asText().equals(name)) {
                return n;
            }
        }
        throw new AssertionError("no node " + name + " in " + report);
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(t -> out.add(t.asText()));
        return out;
    }
}
