package io.gpudetect.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpudetect.inventory.SteadyStateDetector;
import io.gpudetect.k8s.AgentClient;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.model.Health;
import io.gpudetect.probe.ProbeSettings;
import io.gpudetect.probe.Probes;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.sink.Observation;
import io.gpudetect.source.LiveSource;
import io.gpudetect.source.ToolSearch;
import io.gpudetect.testing.MockApiServer;
import io.gpudetect.testing.MutableClock;
import io.gpudetect.testing.Observations;
import io.gpudetect.testing.Profiles;
import io.gpudetect.testing.SharedData;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A GPU whose PCI function the kernel removed (an AER surprise removal, {@code echo 1 > remove}) reads lost: an AMD
 * card disappears from a fake sysfs between two of the agent's passes against the tests' API server. The Node
 * condition turns False with {@code GpuLost} naming its address, one Event says it, the record and the labels keep it
 * as lost, also through an agent restart in the same boot; after a reboot (a new boot id) it is gone without a trace.
 */
class LostGpuHealthWatchTest {

    static final String NODE = "node-1";
    static final String KEPT = "0000:03:00.0";
    static final String GONE = "0000:06:00.0";

    @TempDir
    Path dir;

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final StringWriter log = new StringWriter();
    private final RetryAfterHint retryAfter = new RetryAfterHint();
    private KubernetesClient client;
    private KubernetesClient agentClient;
    private Path root;
    private Supplier<Observation> observe;

    @BeforeEach
    void start() throws Exception {
        KubernetesMockServer server = MockApiServer.crud();
        toClose.add(server::destroy);
        Config config = MockApiServer.config(server);
        client = new KubernetesClientBuilder().withConfig(config).build();
        toClose.add(client);
        agentClient = AgentClient.build(config, retryAfter);
        toClose.add(agentClient);
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata()
                .withNewStatus().addToAllocatable("amd.com/gpu", new Quantity("2"))
                .withNewNodeInfo().withBootID("boot-1").endNodeInfo().endStatus().build()).create();

        // Two Instinct MI210 bound to amdgpu, no vendor tool installed: the PCI bus describes them in full.
        root = Files.createDirectories(dir.resolve("host"));
        Files.createDirectories(root.resolve("sys/bus/pci/devices"));
        Path driver = Files.createDirectories(root.resolve("sys/bus/pci/drivers/amdgpu"));
        for (String address : List.of(KEPT, GONE)) {
            Path f = Files.createDirectories(root.resolve("sys/devices/pci0000:00").resolve(address));
            Files.writeString(f.resolve("class"), "0x038000\n");
            Files.writeString(f.resolve("vendor"), "0x1002\n");
            Files.writeString(f.resolve("device"), "0x740f\n");
            Files.writeString(f.resolve("subsystem_vendor"), "0x1002\n");
            Files.writeString(f.resolve("subsystem_device"), "0x0c34\n");
            Files.writeString(f.resolve("revision"), "0x02\n");
            Files.createSymbolicLink(f.resolve("driver"), f.relativize(driver));
            Files.createSymbolicLink(root.resolve("sys/bus/pci/devices").resolve(address),
                    root.resolve("sys/bus/pci/devices").relativize(f));
        }
        Path bin = Files.createDirectories(dir.resolve("bin"));
        LiveSource source = new LiveSource(root, new ToolSearch(null, List.of(bin)), Duration.ofSeconds(10),
                LiveSource.DEFAULT_MAX_OUTPUT_BYTES);
        SteadyStateDetector detector = new SteadyStateDetector(Probes.defaults(ProbeSettings.defaults()), source,
                SharedData.replayTables(), Duration.ofHours(1), clock);
        observe = Observations.of(detector::detect);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    /** An agent (a new process, as far as the cluster can tell) on the host. */
    private NodeAgent agent() {
        NodeAgent agent = new NodeAgent(AgentSettings.defaults(NODE, Profiles.of("gpu-detect"), "test"), observe,
                agentClient, retryAfter, new AgentLog(new PrintWriter(log), clock), new AgentMetrics(),
                new PrintWriter(new StringWriter()), clock);
        toClose.add(agent);
        return agent;
    }

    /** The kernel removes the function, as {@code echo 1 > /sys/bus/pci/devices/ADDRESS/remove} does. */
    private void remove(String address) throws Exception {
        Files.delete(root.resolve("sys/bus/pci/devices").resolve(address));
        Path f = root.resolve("sys/devices/pci0000:00").resolve(address);
        try (Stream<Path> files = Files.walk(f)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private Node node() {
        return client.nodes().withName(NODE).get();
    }

    private NodeCondition condition() {
        return node().getStatus().getConditions().stream().filter(c -> "GpuHealthy".equals(c.getType())).findFirst()
                .orElse(null);
    }

    private GpuCapacitySpec record() {
        return client.resources(GpuCapacity.class).withName(NODE).get().getSpec();
    }

    private List<GenericKubernetesResource> events() {
        return client.genericKubernetesResources(NodeConditionTest.EVENTS).inNamespace("default").list().getItems();
    }

    private PassReport pass(NodeAgent agent) {
        clock.advance(Duration.ofMinutes(1));
        PassReport report = agent.pass();
        assertNull(report.error(), () -> report + "\n" + log);
        return report;
    }

    @Test
    void anAmdCardRemovedFromTheBusIsLostUntilTheNodeReboots() throws Exception {
        NodeAgent agent = agent();
        pass(agent);
        assertEquals("True", condition().getStatus(), log::toString);
        assertEquals(List.of(KEPT, GONE), record().gpus().stream().map(GpuCapacitySpec.GpuEntry::pciAddress).toList());
        assertEquals("boot-1", record().bootId());
        assertEquals("2", node().getMetadata().getLabels().get("gpu-detect.io/gpu.count"));
        assertEquals(List.of(), events(), "healthy GPUs first seen: nothing to say");

        remove(GONE);
        pass(agent);
        NodeCondition down = condition();
        assertEquals("False", down.getStatus());
        assertEquals("GpuLost", down.getReason());
        assertTrue(down.getMessage().startsWith("GPU " + GONE + " (UUID unknown) lost (GpuLost): PCI function " + GONE
                + " is gone from the bus"), down.getMessage());
        List<GenericKubernetesResource> events = events();
        assertEquals(1, events.size(), Serialization.asYaml(events));
        assertEquals("GpuLost", events.get(0).getAdditionalProperties().get("reason"));
        assertTrue(String.valueOf(events.get(0).getAdditionalProperties().get("note")).startsWith("GPU " + GONE
                + " (UUID unknown): ok -> lost: PCI function " + GONE + " is gone from the bus"), Serialization.asYaml(events));
        GpuCapacitySpec.GpuEntry lost = record().gpus().get(1);
        assertEquals(GONE, lost.pciAddress());
        assertEquals(Health.Status.LOST, lost.health());
        assertEquals(List.of("GpuLost"), lost.healthReasons());
        assertEquals("mi210", lost.model(), "what the card was is kept");
        assertEquals("2026-01-01T00:02:00Z", lost.healthSince());
        assertEquals("2", node().getMetadata().getLabels().get("gpu-detect.io/gpu.count"));
        assertEquals("1", node().getMetadata().getLabels().get("gpu-detect.io/gpu.unhealthy.count"));
        assertTrue(agent.metrics().render().contains("pci_address=\"" + GONE + "\",uuid=\"\",vendor=\"amd\",model=\"mi210\","
                + "state=\"lost\"} 1"), agent.metrics().render());
        assertTrue(log.toString().contains("GPU gone from the PCI bus"), log::toString);
        System.out.println("LOSTGPU condition, Event and record entry after the removal:\n" + Serialization.asYaml(down)
                + Serialization.asYaml(events) + Serialization.asYaml(lost));

        PassReport steady = pass(agent);
        assertEquals(0, steady.apiWrites(), "the same lost GPU: nothing written");
        assertEquals(1, events().size(), "one Event per change, not per pass");

        // An agent restarted in the same boot (an upgrade) finds the GPU in its record: still lost, nothing said again.
        agent.close();
        NodeAgent restarted = agent();
        pass(restarted);
        assertEquals(down, condition());
        assertEquals(Health.Status.LOST, record().gpus().get(1).health());
        assertEquals("2026-01-01T00:02:00Z", record().gpus().get(1).healthSince());
        assertEquals(1, events().size());

        // The node reboots (the card was taken out on purpose): a new boot id, a new agent, and no trace of the card.
        restarted.close();
        client.nodes().withName(NODE).editStatus(n -> new NodeBuilder(n).editStatus().editNodeInfo().withBootID("boot-2")
                .endNodeInfo().endStatus().build());
        NodeAgent rebooted = agent();
        pass(rebooted);
        assertEquals(List.of(KEPT), record().gpus().stream().map(GpuCapacitySpec.GpuEntry::pciAddress).toList());
        assertEquals("boot-2", record().bootId());
        NodeCondition up = condition();
        assertEquals("True", up.getStatus());
        assertFalse(up.getMessage().contains(GONE), up.getMessage());
        assertEquals("1", node().getMetadata().getLabels().get("gpu-detect.io/gpu.count"));
        assertEquals("0", node().getMetadata().getLabels().get("gpu-detect.io/gpu.unhealthy.count"));
        assertEquals(1, events().size(), "a GPU forgotten is no change of state to report");
        assertFalse(rebooted.metrics().render().contains(GONE), rebooted.metrics().render());
    }

    @Test
    void aCardBackOnTheBusIsHealthyAgainAndOneEventSaysSo() throws Exception {
        NodeAgent agent = agent();
        pass(agent);
        Path f = root.resolve("sys/devices/pci0000:00").resolve(GONE);
        remove(GONE);
        pass(agent);
        assertEquals("False", condition().getStatus());

        // A rescan (echo 1 > /sys/bus/pci/rescan) finds the card again.
        Files.createDirectories(f);
        for (String[] file : new String[][] {{"class", "0x038000"}, {"vendor", "0x1002"}, {"device", "0x740f"},
                {"subsystem_vendor", "0x1002"}, {"subsystem_device", "0x0c34"}, {"revision", "0x02"}}) {
            Files.writeString(f.resolve(file[0]), file[1] + "\n");
        }
        Files.createSymbolicLink(f.resolve("driver"), f.relativize(root.resolve("sys/bus/pci/drivers/amdgpu")));
        Files.createSymbolicLink(root.resolve("sys/bus/pci/devices").resolve(GONE),
                root.resolve("sys/bus/pci/devices").relativize(f));
        pass(agent);
        assertEquals("True", condition().getStatus());
        assertEquals(List.of("GpuLost", "GpuRecovered"), events().stream()
                .map(e -> String.valueOf(e.getAdditionalProperties().get("reason"))).sorted().toList());
        assertNull(record().gpus().get(1).healthReasons());
        assertTrue(log.toString().contains("GPU back on the PCI bus"), log::toString);
    }

    @Test
    void deletingTheRecordForgetsALostCardWithoutAReboot() throws Exception {
        NodeAgent agent = agent();
        pass(agent);
        remove(GONE);
        pass(agent);
        assertEquals("False", condition().getStatus());

        client.resources(GpuCapacity.class).withName(NODE).delete();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!log.toString().contains("record deleted") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        pass(agent);
        assertEquals(List.of(KEPT), record().gpus().stream().map(GpuCapacitySpec.GpuEntry::pciAddress).toList(),
                log::toString);
        assertEquals("True", condition().getStatus());
    }
}
