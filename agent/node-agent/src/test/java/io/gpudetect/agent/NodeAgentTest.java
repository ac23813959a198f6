package io.gpudetect.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.gpudetect.inventory.Inventories;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.k8s.AkashCoexistence;
import io.gpudetect.k8s.OwnedLabels;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.Partitioning;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.record.PassOutcome;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.Loops;
import io.gpudetect.testing.MutableClock;
import io.gpudetect.testing.Observations;
import io.gpudetect.testing.Profiles;
import io.gpudetect.testing.Settings;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent against fabric8's mock API server in CRUD mode (a fresh one per test), with expectations only
 * where a test needs the server to misbehave (a 409). Writes are counted from the server's request log.
 */
class NodeAgentTest {

    static final String NODE = "node-1";
    /** A Tesla t4() host, from the shared recordings (the test is skipped without them). */
    static Inventory t4() {
        return Fixtures.detect(Fixtures.host("tesla-t4_515.105.01_v11"));
    }

    /** An RTX 4090 host, from the shared recordings. */
    static Inventory rtx4090() {
        return Fixtures.detect(Fixtures.host("geforce-rtx-4090_535.86.05_v12"));
    }
    static final Inventory FAILED = Inventories.of("test", List.of(),
            List.of(new Inventory.ProbeSummary("nvidia-smi-xml", ProbeResult.Outcome.FAILED, 0)),
            List.of(Diagnostic.error("nvidia-smi-xml", "nvidia-smi.xml", null, "nvidia-smi timed out after 5s")));

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final StringWriter out = new StringWriter();
    private final StringWriter log = new StringWriter();
    private KubernetesMockServer server;
    private KubernetesClient client;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private void startServer(int port) throws IOException {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses), false);
        if (port == 0) {
            server.init();
        } else {
            server.init(InetAddress.getLoopbackAddress(), port);
        }
        server.expectCustomResource(CustomResourceDefinitionContext.fromCustomResourceType(GpuCapacity.class));
        toClose.add(server::destroy);
    }

    private KubernetesClient clientFor(int port) {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://localhost:" + port)
                .withRequestRetryBackoffLimit(0).withNamespace("default").build();
        KubernetesClient c = new KubernetesClientBuilder().withConfig(config).build();
        toClose.add(c);
        return c;
    }

    private void startWithNode() throws IOException {
        startServer(0);
        client = clientFor(server.getPort());
        createNodeAndPods();
    }

    private void createNodeAndPods() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE)
                .addToLabels("example.com/zone", "a").addToLabels("kubernetes.io/hostname", NODE).endMetadata()
                .withNewStatus().addToAllocatable("nvidia.com/gpu", new Quantity("1"))
                .addToAllocatable("cpu", new Quantity("8")).withNewNodeInfo().withBootID("boot-1").endNodeInfo()
                .endStatus().build()).create();
        client.pods().inNamespace("default").resource(gpuPod("training", NODE, "Running")).create();
        client.pods().inNamespace("default").resource(gpuPod("finished", NODE, "Succeeded")).create();
        client.pods().inNamespace("default").resource(gpuPod("elsewhere", "node-2", "Running")).create();
    }

    private static Pod gpuPod(String name, String node, String phase) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("default").endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("c").withNewResources()
                .addToLimits("nvidia.com/gpu", new Quantity("1")).endResources().endContainer().endSpec()
                .withNewStatus().withPhase(phase).endStatus().build();
    }

    private NodeAgent agent(AtomicReference<Inventory> inventory, AgentSettings settings) {
        NodeAgent agent = new NodeAgent(settings, Observations.of(inventory::get), client, new RetryAfterHint(),
                new AgentLog(new PrintWriter(log), clock), new AgentMetrics(), new PrintWriter(out), clock);
        toClose.add(agent);
        return agent;
    }

    private NodeAgent agent(AtomicReference<Inventory> inventory) {
        return agent(inventory, AgentSettings.defaults(NODE, Profiles.of("gpu-detect,akash"), "test"));
    }

    /** Write requests (anything but GET) the server received since the last call, as "METHOD path". */
    private List<String> writes() throws InterruptedException {
        List<String> writes = new ArrayList<>();
        RecordedRequest r;
        while ((r = server.takeRequest(50, TimeUnit.MILLISECONDS)) != null) {
            if (!"GET".equals(r.getMethod())) {
                writes.add(r.getMethod() + " " + r.getPath());
            }
        }
        return writes;
    }

    private Map<String, String> labels() {
        return client.nodes().withName(NODE).get().getMetadata().getLabels();
    }

    @Test
    void firstPassLabelsAndRecordsThenAnIdenticalPassWritesNothing() throws Exception {
        startWithNode();
        writes();
        NodeAgent agent = agent(new AtomicReference<>(t4()));

        PassReport first = agent.pass();
        assertNull(first.error(), first.toString());
        assertEquals(List.of("PATCH /api/v1/nodes/node-1", "POST /apis/gpu-detect.io/v1alpha1/gpucapacities",
                "PATCH /apis/gpu-detect.io/v1alpha1/gpucapacities/node-1/status", "PATCH /api/v1/nodes/node-1/status"),
                writes(), "labels, the record, and the GpuHealthy condition (on by default)");
        Map<String, String> labels = labels();
        assertEquals("1", labels.get("akash.network/capabilities.gpu.vendor.nvidia.model.t4"));
        assertEquals("t4", labels.get("gpu-detect.io/gpu.model"));
        assertEquals("a", labels.get("example.com/zone"));
        Node node = client.nodes().withName(NODE).get();
        assertTrue(OwnedLabels.parse(node.getMetadata().getAnnotations()).contains("gpu-detect.io/gpu.model"));

        GpuCapacity record = client.resources(GpuCapacity.class).withName(NODE).get();
        var owner = record.getMetadata().getOwnerReferences().get(0);
        assertEquals("Node", owner.getKind());
        assertEquals(NODE, owner.getName());
        assertEquals(node.getMetadata().getUid(), owner.getUid());
        assertEquals("t4", record.getSpec().gpus().get(0).model());
        assertEquals(Map.of("nvidia.com/gpu", 1L), record.getSpec().allocatable());
        // The mock server cannot evaluate the spec.nodeName field selector (it ignores it and matches
        // nothing), so requested stays empty here; GpuResourcesTest covers the counting itself.
        assertEquals(Map.of(), record.getSpec().requested());
        assertEquals("complete", record.getStatus().lastPassOutcome());
        assertEquals("2026-01-01T00:00:00Z", record.getStatus().lastGoodPass());

        clock.advance(Duration.ofSeconds(60));
        PassReport second = agent.pass();
        assertFalse(second.labelChange().writes(), second.labelChange().summary());
        assertEquals(0, second.apiWrites());
        assertEquals(List.of(), writes(), "an identical pass writes nothing");

        clock.advance(Duration.ofMinutes(5));
        agent.pass();
        assertEquals(List.of("PATCH /apis/gpu-detect.io/v1alpha1/gpucapacities/node-1/status"), writes(),
                "after the heartbeat interval only the status moves");
        assertEquals("2026-01-01T00:06:00Z", client.resources(GpuCapacity.class).withName(NODE).get()
                .getStatus().lastGoodPass());
    }

    /** Lets the agent's informer see the Node at {@code version}, as it would long before the next pass. */
    private void awaitNodeVersion(NodeAgent agent, String version) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!version.equals(agent.cachedNodeVersion()) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    /**
     * The host's GPUs are changed as they are on a real node, with the power off: the Node reports a new boot id, and
     * the agent's informer sees it before the next pass. Without it, a GPU gone from one pass to the next reads lost
     * ({@link LostGpus}).
     */
    private void reboot(NodeAgent agent, String bootId) throws InterruptedException {
        String version = client.nodes().withName(NODE).editStatus(n -> new NodeBuilder(n).editStatus().editOrNewNodeInfo()
                .withBootID(bootId).endNodeInfo().endStatus().build()).getMetadata().getResourceVersion();
        awaitNodeVersion(agent, version);
    }

    private static long unchangedPasses(NodeAgent agent) {
        for (String line : agent.metrics().render().split("\n")) {
            if (line.startsWith("gpu_detect_unchanged_passes_total ")) {
                return Long.parseLong(line.substring(line.indexOf(' ') + 1));
            }
        }
        throw new AssertionError("no gpu_detect_unchanged_passes_total in " + agent.metrics().render());
    }

    /** Steady passes until one is decided from unchanged inputs; fails when none is. */
    private void untilUnchanged(NodeAgent agent) throws InterruptedException {
        long before = unchangedPasses(agent);
        for (int i = 0; i < 20 && unchangedPasses(agent) == before; i++) {
            clock.advance(Duration.ofSeconds(1));
            assertEquals(0, agent.pass().apiWrites());
            Thread.sleep(20);
        }
        assertTrue(unchangedPasses(agent) > before, "a steady pass was decided from unchanged inputs");
        writes();
    }

    /**
     * A steady pass whose inputs are those of the last pass that changed nothing decides nothing without building the
     * desired state; whatever changes one of those inputs is still acted on at the very next pass: our labels edited
     * by someone, the record deleted, the heartbeat falling due, the GPUs changing.
     */
    @Test
    void aPassFromUnchangedInputsWritesNothingAndTheNextChangeIsStillActedOn() throws Exception {
        startWithNode();
        AtomicReference<Inventory> inventory = new AtomicReference<>(t4());
        NodeAgent agent = agent(inventory);
        assertNull(agent.pass().error());
        untilUnchanged(agent);
        assertEquals(List.of(), writes(), "unchanged passes write nothing");

        // Someone removes one of our labels: the Node the informer holds is a new object, so the pass decides again.
        String edited = client.nodes().withName(NODE).edit(n -> new NodeBuilder(n).editMetadata()
                .removeFromLabels("gpu-detect.io/gpu.model").endMetadata().build()).getMetadata().getResourceVersion();
        awaitNodeVersion(agent, edited);
        writes();
        assertEquals(1, agent.pass().apiWrites());
        assertEquals("t4", labels().get("gpu-detect.io/gpu.model"), "our label is back at the next pass");
        untilUnchanged(agent);

        // Someone deletes the record: the sink forgets it, and the next pass creates it again.
        client.resources(GpuCapacity.class).withName(NODE).delete();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (client.resources(GpuCapacity.class).withName(NODE).get() != null && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Thread.sleep(200); // the record informer's delete event
        writes();
        assertTrue(agent.pass().apiWrites() > 0);
        assertNotNull(client.resources(GpuCapacity.class).withName(NODE).get(), "the record is back");
        untilUnchanged(agent);

        // The heartbeat falls due: the status moves though nothing else did.
        clock.advance(Duration.ofMinutes(6));
        agent.pass();
        assertEquals(List.of("PATCH /apis/gpu-detect.io/v1alpha1/gpucapacities/node-1/status"), writes(),
                "the heartbeat is written at the first pass it is due");
        untilUnchanged(agent);

        // The GPUs change (another card, after a reboot): labels, record and the condition's message (it names each
        // GPU) follow at once.
        reboot(agent, "boot-2");
        writes();
        inventory.set(rtx4090());
        assertEquals(3, agent.pass().apiWrites());
        assertEquals("rtx4090", labels().get("gpu-detect.io/gpu.model"));
    }

    /** {@code inventory} with its one GPU changed by {@code edit}: what the detector hands back when NVML's pulse moved. */
    private static Inventory withGpu(Inventory inventory, UnaryOperator<Gpu.Builder> edit) {
        List<Gpu> gpus = new ArrayList<>(inventory.gpus());
        int t4 = gpus.indexOf(inventory.realGpus().get(0));
        gpus.set(t4, edit.apply(gpus.get(t4).toBuilder("nvml")).build());
        return new Inventory(inventory.source(), gpus, inventory.probes(), inventory.diagnostics(), inventory.machine(),
                inventory.gaps(), inventory.failure());
    }

    /** A labelled and recorded node whose passes are now decided from unchanged inputs. */
    private NodeAgent unchangedAgent(AtomicReference<Inventory> inventory) throws Exception {
        startWithNode();
        NodeAgent agent = agent(inventory);
        assertNull(agent.pass().error());
        untilUnchanged(agent);
        return agent;
    }

    @Test
    void aMigModeOrEccChangeTheDetectorSawIsWrittenAtTheVeryNextPass() throws Exception {
        AtomicReference<Inventory> inventory = new AtomicReference<>(t4());
        NodeAgent agent = unchangedAgent(inventory);

        inventory.set(withGpu(inventory.get(), b -> b.partitioning(
                new Partitioning("mig", true, null, List.of(), null, null, null))));
        agent.pass();
        assertTrue(writes().contains("PATCH /apis/gpu-detect.io/v1alpha1/gpucapacities/node-1"), "the spec moved");
        assertEquals(Boolean.TRUE, client.resources(GpuCapacity.class).withName(NODE).get().getSpec().gpus().get(0)
                .partitioned(), "MIG mode on");
        untilUnchanged(agent);

        inventory.set(withGpu(inventory.get(), b -> b.health(
                new Health(Health.Status.DEGRADED, 2L, List.of("2 uncorrected ECC errors")))));
        agent.pass();
        assertTrue(writes().contains("PATCH /apis/gpu-detect.io/v1alpha1/gpucapacities/node-1"), "the spec moved");
        assertEquals(Health.Status.DEGRADED, client.resources(GpuCapacity.class).withName(NODE).get().getSpec().gpus()
                .get(0).health(), "uncorrected ECC errors");
        // The metrics follow the new inventory at once, though a steady pass does not count the same one again.
        assertTrue(agent.metrics().render().contains("model=\"t4\",state=\"degraded\"} 1"), agent.metrics().render());
        untilUnchanged(agent);
        inventory.set(t4());
        agent.pass();
        assertTrue(agent.metrics().render().contains("model=\"t4\",state=\"ok\"} 1"), agent.metrics().render());
    }

    @Test
    void aGpuGoneFromTheBusIsWrittenLostAtTheVeryNextPass() throws Exception {
        AtomicReference<Inventory> inventory = new AtomicReference<>(t4());
        NodeAgent agent = unchangedAgent(inventory);

        Inventory seen = inventory.get();
        inventory.set(new Inventory(seen.source(), seen.gpus().stream().filter(g -> !seen.realGpus().contains(g)).toList(),
                seen.probes(), seen.diagnostics(), seen.machine(), seen.gaps(), seen.failure()));
        PassReport report = agent.pass();
        assertEquals(1, report.gpus(), "the GPU of the pass before, lost");
        assertTrue(report.labelChange().writes(), "the GPU's labels say it");
        assertEquals("1", labels().get("gpu-detect.io/gpu.unhealthy.count"), labels().toString());
        var recorded = client.resources(GpuCapacity.class).withName(NODE).get().getSpec().gpus();
        assertEquals(List.of(Health.Status.LOST), recorded.stream().map(GpuCapacitySpec.GpuEntry::health).toList());

        // After a reboot the GPU is forgotten: its labels are withdrawn, the record lists no GPU.
        reboot(agent, "boot-2");
        report = agent.pass();
        assertEquals(0, report.gpus());
        assertFalse(labels().containsKey("gpu-detect.io/gpu.model"), labels().toString());
        recorded = client.resources(GpuCapacity.class).withName(NODE).get().getSpec().gpus();
        assertTrue(recorded == null || recorded.isEmpty(), String.valueOf(recorded));
    }

    @Test
    void aRecordSomeoneDeletedIsCreatedAgainAtTheVeryNextPass() throws Exception {
        NodeAgent agent = unchangedAgent(new AtomicReference<>(t4()));
        java.util.concurrent.CountDownLatch deleted = new java.util.concurrent.CountDownLatch(1);
        agent.onExternalChange(why -> deleted.countDown());
        client.resources(GpuCapacity.class).withName(NODE).delete();
        assertTrue(deleted.await(10, TimeUnit.SECONDS), "the record's informer saw the deletion");
        writes();

        agent.pass();
        assertEquals(List.of("POST /apis/gpu-detect.io/v1alpha1/gpucapacities",
                "PATCH /apis/gpu-detect.io/v1alpha1/gpucapacities/node-1/status"), writes());
        assertEquals("t4", client.resources(GpuCapacity.class).withName(NODE).get().getSpec().gpus().get(0).model());
    }

    @Test
    void theHeartbeatIsWrittenAtThePassItFallsDueAndNotBefore() throws Exception {
        NodeAgent agent = unchangedAgent(new AtomicReference<>(t4()));
        // lastGoodPass is 00:00:00 (the first pass), the heartbeat 5 min: due at 00:05:00.
        String lastGood = client.resources(GpuCapacity.class).withName(NODE).get().getStatus().lastGoodPass();
        assertEquals("2026-01-01T00:00:00Z", lastGood);
        clock.advance(Duration.between(clock.instant(), Instant.parse("2026-01-01T00:04:59Z")));
        long before = unchangedPasses(agent);
        agent.pass();
        assertEquals(before + 1, unchangedPasses(agent), "a second before it falls due, the pass is still unchanged");
        assertEquals(List.of(), writes());

        clock.advance(Duration.ofSeconds(1));
        agent.pass();
        assertEquals(List.of("PATCH /apis/gpu-detect.io/v1alpha1/gpucapacities/node-1/status"), writes());
        assertEquals("2026-01-01T00:05:00Z", client.resources(GpuCapacity.class).withName(NODE).get()
                .getStatus().lastGoodPass());
    }

    /**
     * Our own profile under {@code --prefix nvidia.com} and the {@code nvidia} profile both write
     * {@code nvidia.com/gpu.count}: the profiles disagree, so the pass is incomplete everywhere at once: the labels
     * are kept, and the record's status says incomplete and does not advance {@code lastGoodPass}.
     */
    @Test
    void profilesThatWriteOneKeyMakeAnIncompletePassInTheRecordToo() throws Exception {
        startWithNode();
        NodeAgent good = agent(new AtomicReference<>(t4()));
        assertEquals(PassOutcome.COMPLETE, good.pass().outcome());
        good.close();
        Map<String, String> before = labels();
        assertEquals("2026-01-01T00:00:00Z", client.resources(GpuCapacity.class).withName(NODE).get()
                .getStatus().lastGoodPass());
        writes();

        clock.advance(Duration.ofMinutes(10));
        NodeAgent colliding = agent(new AtomicReference<>(t4()),
                AgentSettings.defaults(NODE, Profiles.of("gpu-detect,nvidia", "nvidia.com"), "test"));
        PassReport report = colliding.pass();
        assertEquals(PassOutcome.INCOMPLETE, report.outcome(), report.toString());
        assertNull(report.error(), report.toString());
        assertTrue(log.toString().contains("label profiles disagree; labels kept"), log.toString());
        assertEquals(before, labels(), "labels kept as they were");
        GpuCapacity record = client.resources(GpuCapacity.class).withName(NODE).get();
        assertEquals("incomplete", record.getStatus().lastPassOutcome(), "the record agrees with the pass");
        assertEquals("2026-01-01T00:00:00Z", record.getStatus().lastGoodPass(), "an incomplete pass confirms nothing");
        assertEquals(List.of("PATCH /apis/gpu-detect.io/v1alpha1/gpucapacities/node-1/status"), writes(),
                "only the status changes");
    }

    /**
     * A DaemonSet whose host mount is wrong sees no PCI bus: live detection from it must not read as "no GPUs"
     * and withdraw the node's labels. The pass fails, nothing is written, and /readyz says why.
     */
    @Test
    void aLiveHostWithoutAPciBusChangesNothingAndReadyzSaysWhy() throws Exception {
        startWithNode();
        AtomicReference<Inventory> inventory = new AtomicReference<>(t4());
        NodeAgent agent = agent(inventory);
        agent.pass();
        Map<String, String> before = labels();
        writes();

        Path notMounted = Files.createTempDirectory("no-sys");
        io.gpudetect.source.LiveSource host = new io.gpudetect.source.LiveSource(notMounted,
                new io.gpudetect.source.ToolSearch(null, List.of()), Duration.ofSeconds(5), 1 << 20);
        inventory.set(Fixtures.detect(host));
        PassReport report = agent.pass();

        assertTrue(report.failed(), report.toString());
        assertTrue(report.error().startsWith("detection: cannot see the PCI bus (/sys/bus/pci/devices: "), report.error());
        assertEquals(List.of(), writes(), "a pass that could not see the host writes nothing");
        assertEquals(before, labels());
        assertEquals("1", labels().get("gpu-detect.io/gpu.count"));
        try (AgentHttpServer http = new AgentHttpServer(0, agent, Loops.immediate(agent, Duration.ofMinutes(1), 0, () -> 0),
                AgentHttpServer.IDLE)) {
            var response = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + http.port() + "/readyz")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(503, response.statusCode());
            assertTrue(response.body().startsWith("last pass failed: detection: cannot see the PCI bus"), response.body());
        }
    }

    @Test
    void aModelChangeReplacesTheOldLabelsAndKeepsEveryoneElses() throws Exception {
        startWithNode();
        AtomicReference<Inventory> inventory = new AtomicReference<>(t4());
        NodeAgent agent = agent(inventory);
        agent.pass();
        // GPU Feature Discovery writes a key of its own between our passes.
        String edited = client.nodes().withName(NODE).edit(n -> new NodeBuilder(n).editMetadata()
                .addToLabels("nvidia.com/gpu.product", "Tesla-T4").endMetadata().build()).getMetadata().getResourceVersion();
        writes();
        // The pass reads the node from the informer: let it see GFD's edit, as it would long before the next pass.
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!edited.equals(agent.cachedNodeVersion()) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        // A model change is another card, put in with the power off.
        reboot(agent, "boot-2");
        writes();

        inventory.set(rtx4090());
        PassReport report = agent.pass();
        assertNull(report.error(), report.toString());
        assertEquals(List.of("PATCH /api/v1/nodes/node-1", "PATCH /apis/gpu-detect.io/v1alpha1/gpucapacities/node-1",
                "PATCH /api/v1/nodes/node-1/status"), writes(), "the condition's message names the new GPU");
        Map<String, String> labels = labels();
        assertFalse(labels.keySet().stream().anyMatch(k -> k.contains(".t4")), labels.toString());
        assertEquals("1", labels.get("akash.network/capabilities.gpu.vendor.nvidia.model.rtx4090"));
        assertEquals("rtx4090", labels.get("gpu-detect.io/gpu.model"));
        assertEquals("a", labels.get("example.com/zone"));
        assertEquals("Tesla-T4", labels.get("nvidia.com/gpu.product"), "a key we never wrote survives");
        assertEquals("rtx4090", client.resources(GpuCapacity.class).withName(NODE).get().getSpec().gpus().get(0).model());
    }

    /** The node's keys that Akash's inventory operator treats as its own. */
    private Map<String, String> akashKeys() {
        Map<String, String> akash = new TreeMap<>(labels());
        akash.keySet().removeIf(k -> !k.startsWith("akash.network") && !k.equals("nvidia.com/gpu.present"));
        return akash;
    }

    @Test
    void whereAkashsOperatorLabelsTheNodeTheAgentLeavesEveryAkashKeyAsItIs() throws Exception {
        startWithNode();
        // The operator's labels (its view: one t4(), a storage class), plus two keys an older agent wrote before
        // the operator arrived and still lists as its own.
        client.nodes().withName(NODE).edit(n -> new NodeBuilder(n).editMetadata()
                .addToLabels("akash.network", "true")
                .addToLabels("akash.network/capabilities.gpu.vendor.nvidia.model.t4", "1")
                .addToLabels("akash.network/capabilities.storage.class.beta3", "1")
                .addToLabels("nvidia.com/gpu.present", "true")
                .addToLabels("akash.network/gpu", "true")
                .addToLabels("gpu-detect.io/gpu.model", "t4")
                .addToAnnotations(OwnedLabels.ANNOTATION, "akash.network/gpu,gpu-detect.io/gpu.model")
                .endMetadata().build());
        Map<String, String> akashBefore = akashKeys();
        writes();
        NodeAgent agent = agent(new AtomicReference<>(rtx4090()));

        PassReport first = agent.pass();
        assertNull(first.error(), first.toString());
        assertEquals(akashBefore, akashKeys(), "no Akash key added, changed or removed");
        assertEquals("rtx4090", labels().get("gpu-detect.io/gpu.model"), "our own keys still follow the pass");
        assertEquals("1", labels().get("gpu-detect.io/gpu.model.rtx4090.count"));
        Node node = client.nodes().withName(NODE).get();
        var owned = OwnedLabels.parse(node.getMetadata().getAnnotations());
        assertTrue(owned.contains("gpu-detect.io/gpu.model"), owned.toString());
        assertFalse(owned.stream().anyMatch(k -> k.startsWith("akash.network") || k.equals("nvidia.com/gpu.present")),
                "Akash keys are left to the operator, not claimed: " + owned);
        assertEquals("owned by Akash inventory operator (node label akash.network=true)",
                client.resources(GpuCapacity.class).withName(NODE).get().getStatus().akashLabels());
        writes();

        clock.advance(Duration.ofSeconds(60));
        PassReport second = agent.pass();
        assertFalse(second.labelChange().writes(), second.labelChange().summary());
        assertEquals(List.of(), writes(), "and no write war: a second pass writes nothing");
    }

    @Test
    void withTheOperatorDeclaredPresentNoAkashKeyIsWrittenEvenOnANodeWithoutOne() throws Exception {
        startWithNode();
        NodeAgent agent = agent(new AtomicReference<>(t4()), Settings.akashOperator(
                AgentSettings.defaults(NODE, Profiles.of("gpu-detect,akash"), "test"),
                AkashCoexistence.OperatorSetting.PRESENT));
        PassReport report = agent.pass();
        assertNull(report.error(), report.toString());
        assertEquals(Map.of(), akashKeys());
        assertEquals("t4", labels().get("gpu-detect.io/gpu.model"));
        assertEquals("owned by Akash inventory operator (setting akash-operator=present)",
                client.resources(GpuCapacity.class).withName(NODE).get().getStatus().akashLabels());
    }

    @Test
    void withoutTheOperatorTheAkashProfileWritesItsMarkerAndKeepsManagingItsKeys() throws Exception {
        startWithNode();
        AtomicReference<Inventory> inventory = new AtomicReference<>(t4());
        NodeAgent agent = agent(inventory);
        agent.pass();
        assertEquals(Map.of("akash.network", "true", "nvidia.com/gpu.present", "true",
                "akash.network/capabilities.gpu.vendor.nvidia.model.t4", "1",
                "akash.network/capabilities.gpu.vendor.nvidia.model.t4.ram.16Gi", "1",
                "akash.network/capabilities.gpu.vendor.nvidia.model.t4.interface.pcie", "1"), akashKeys());
        assertNull(client.resources(GpuCapacity.class).withName(NODE).get().getStatus().akashLabels());

        // The marker on the node is the agent's own (its annotation lists it): the next pass still updates.
        String version = client.nodes().withName(NODE).get().getMetadata().getResourceVersion();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!version.equals(agent.cachedNodeVersion()) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        reboot(agent, "boot-2");
        inventory.set(rtx4090());
        assertNull(agent.pass().error());
        assertEquals(Map.of("akash.network", "true", "nvidia.com/gpu.present", "true",
                "akash.network/capabilities.gpu.vendor.nvidia.model.rtx4090", "1",
                "akash.network/capabilities.gpu.vendor.nvidia.model.rtx4090.ram.24Gi", "1",
                "akash.network/capabilities.gpu.vendor.nvidia.model.rtx4090.interface.pcie", "1"), akashKeys());
    }

    @Test
    void aFailedPassKeepsEveryLabelAndReportsInTheRecordStatus() throws Exception {
        startWithNode();
        AtomicReference<Inventory> inventory = new AtomicReference<>(t4());
        NodeAgent agent = agent(inventory);
        agent.pass();
        Map<String, String> before = labels();
        var specBefore = client.resources(GpuCapacity.class).withName(NODE).get().getSpec();
        writes();

        inventory.set(FAILED);
        PassReport report = agent.pass();
        assertEquals(PassOutcome.INCOMPLETE, report.outcome());
        assertFalse(report.labelChange().writes(), report.labelChange().summary());
        assertEquals(List.of("PATCH /apis/gpu-detect.io/v1alpha1/gpucapacities/node-1/status"), writes(),
                "only the record's status says what happened");
        assertEquals(before, labels());
        GpuCapacity record = client.resources(GpuCapacity.class).withName(NODE).get();
        assertEquals(specBefore, record.getSpec(), "the GPUs of the last good pass stay in the spec");
        assertEquals("incomplete", record.getStatus().lastPassOutcome());
        assertEquals("nvidia-smi timed out after 5s", record.getStatus().problems().get(0).message());
        assertEquals("2026-01-01T00:00:00Z", record.getStatus().lastGoodPass());
    }

    @Test
    void stoppingTheAgentLikeSigtermKeepsEveryLabel() throws Exception {
        startWithNode();
        NodeAgent agent = agent(new AtomicReference<>(t4()));
        AgentLoop loop = Loops.immediate(agent, Duration.ofMillis(200), 0.1, () -> 0.5);
        Thread worker = new Thread(loop);
        worker.start();
        long deadline = System.currentTimeMillis() + 10_000;
        while (agent.lastPass() == null && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        assertNotNull(agent.lastPass());
        Map<String, String> before = labels();
        writes();

        loop.stop(); // what the SIGTERM hook does
        worker.join(5_000);
        agent.close();
        assertFalse(worker.isAlive());
        assertEquals(List.of(), writes(), "shutting down writes nothing");
        assertEquals(before, labels());
        assertTrue(before.containsKey("gpu-detect.io/gpu.count"));
    }

    @Test
    void anApiServerThatIsDownAtStartIsConvergedWithOnceItAnswers() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        client = clientFor(port);
        NodeAgent agent = agent(new AtomicReference<>(t4()));
        PassReport down = agent.pass();
        assertTrue(down.failed(), down.toString());
        assertTrue(down.error().startsWith("api-unavailable"), down.error());

        startServer(port);
        createNodeAndPods();
        PassReport up = agent.pass();
        assertNull(up.error(), up.toString());
        assertEquals("1", labels().get("akash.network/capabilities.gpu.vendor.nvidia.model.t4"));
        assertNotNull(client.resources(GpuCapacity.class).withName(NODE).get());
        assertEquals(0, agent.pass().apiWrites(), "converged");
    }

    @Test
    void aConflictIsRetriedFromAFreshRead() throws Exception {
        startWithNode();
        server.expect().patch().withPath("/api/v1/nodes/" + NODE)
                .andReturn(409, new StatusBuilder().withCode(409).withReason("Conflict").withMessage("changed").build())
                .once();
        NodeAgent agent = agent(new AtomicReference<>(t4()));
        PassReport report = agent.pass();
        assertNull(report.error(), report.toString());
        assertEquals("1", labels().get("akash.network/capabilities.gpu.vendor.nvidia.model.t4"));
        assertTrue(agent.metrics().render().contains("gpu_detect_errors_total{kind=\"conflict\"} 1"),
                agent.metrics().render());
        List<String> writes = writes();
        assertEquals(2, writes.stream().filter(w -> w.equals("PATCH /api/v1/nodes/node-1")).count(), writes.toString());
    }

    @Test
    void aDryRunPrintsThePatchAndTheRecordAndWritesNothing() throws Exception {
        startWithNode();
        writes();
        NodeAgent agent = agent(new AtomicReference<>(t4()),
                Settings.dryRun(AgentSettings.defaults(NODE, Profiles.of("akash"), "test")));
        PassReport report = agent.pass();
        assertNull(report.error(), report.toString());
        assertEquals(List.of(), writes());
        assertTrue(out.toString().contains("\"akash.network/capabilities.gpu.vendor.nvidia.model.t4\":\"1\""), out.toString());
        assertTrue(out.toString().contains("would write GpuCapacity node-1"), out.toString());
        assertNull(client.resources(GpuCapacity.class).withName(NODE).get());
    }

    @Test
    void nfdFileOutputWritesTheFileOnlyWhenItChanges(@TempDir Path dir) throws Exception {
        startWithNode();
        Path file = dir.resolve("features.d/gpu-detect");
        NodeAgent agent = agent(new AtomicReference<>(t4()), Settings.labelOutput(
                AgentSettings.defaults(NODE, Profiles.of("akash"), "test"), LabelOutput.NFD_FILE, file));
        agent.pass();
        String content = Files.readString(file);
        assertTrue(content.contains("akash.network/capabilities.gpu.vendor.nvidia.model.t4=1\n"), content);
        assertFalse(labels().containsKey("akash.network/gpu"), "the node itself is not patched");
        var modified = Files.getLastModifiedTime(file);
        Thread.sleep(20);
        assertFalse(agent.pass().labelChange().writes(), agent.pass().labelChange().summary());
        assertEquals(modified, Files.getLastModifiedTime(file));
    }

    @Test
    void nfdFileOutputLeavesOutTheAkashKeysWhereTheOperatorLabelsTheNode(@TempDir Path dir) throws Exception {
        startWithNode();
        client.nodes().withName(NODE).edit(n -> new NodeBuilder(n).editMetadata().addToLabels("akash.network", "true")
                .endMetadata().build());
        Path file = dir.resolve("features.d/gpu-detect");
        NodeAgent agent = agent(new AtomicReference<>(t4()), Settings.labelOutput(
                AgentSettings.defaults(NODE, Profiles.of("gpu-detect,akash"), "test"), LabelOutput.NFD_FILE, file));
        assertNull(agent.pass().error());
        String content = Files.readString(file);
        assertTrue(content.contains("gpu-detect.io/gpu.model=t4\n"), content);
        assertFalse(content.contains("akash.network"), content);
        assertFalse(content.contains("nvidia.com/gpu.present"), content);
    }

    /**
     * An Error met by an informer on fabric8's thread (a model class missing from an installation's lib/, at the
     * first list) is not retried behind an agent that looks alive: the next pass ends the agent with it.
     */
    @Test
    void anErrorAnInformerMetEndsTheAgentAtTheNextPass() throws IOException {
        startWithNode();
        NodeAgent agent = agent(new AtomicReference<>(t4()));
        agent.pass();
        agent.watchFailed("node " + NODE, new io.fabric8.kubernetes.client.KubernetesClientException("list failed",
                new NoClassDefFoundError("io/fabric8/kubernetes/api/model/autoscaling/v1/Scale")));
        NoClassDefFoundError e = assertThrows(NoClassDefFoundError.class, agent::pass);
        assertEquals("io/fabric8/kubernetes/api/model/autoscaling/v1/Scale", e.getMessage());
        agent.watchFailed("node " + NODE, new io.fabric8.kubernetes.client.KubernetesClientException("connection refused"));
        assertTrue(log.toString().contains("watch failed; the informer retries"), "an ordinary failure is retried");
    }
}
