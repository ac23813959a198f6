package io.gpudetect.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.gpudetect.inventory.Inventories;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.k8s.AgentClient;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.k8s.health.DeviceTaints;
import io.gpudetect.k8s.health.HealthTaint;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.MockApiServer;
import io.gpudetect.testing.MutableClock;
import io.gpudetect.testing.Observations;
import io.gpudetect.testing.Profiles;
import io.gpudetect.testing.Settings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The health outputs of a pass against fabric8's mock API server in CRUD mode: the Node condition {@code GpuHealthy},
 * the Events on the Node and the opt-in taint. Health comes from the agent's own inputs: a replayed NVML recording
 * in which one GPU answers {@code GPU_IS_LOST} and another cannot even be given a handle (the case
 * {@code nvml-lost-gpus}), and the same GPUs after a driver reload, all answering again.
 */
class NodeConditionTest {

    static final String NODE = "node-1";
    static final ResourceDefinitionContext EVENTS = new ResourceDefinitionContext.Builder().withGroup("events.k8s.io")
            .withVersion("v1").withKind("Event").withPlural("events").withNamespaced(true).build();
    static final Inventory INCOMPLETE = Inventories.of("test", List.of(),
            List.of(new Inventory.ProbeSummary("nvml", ProbeResult.Outcome.FAILED, 0)),
            List.of(Diagnostic.error("nvml", "nvml.json", null, "nvmlInit timed out")));

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final StringWriter log = new StringWriter();
    private KubernetesMockServer server;
    private KubernetesClient client;
    private KubernetesClient agentClient;
    private final RetryAfterHint retryAfter = new RetryAfterHint();

    /** Two GPUs lost (one at 0000:3b:00.0 without a UUID, one NVML could not even address) and two healthy. */
    static Inventory lost() {
        return Fixtures.detect(Fixtures.testCase("nvml-lost-gpus"));
    }

    /** The same host after the driver was reloaded: every GPU answers again. */
    static Inventory recovered() {
        Inventory lost = lost();
        List<Gpu> back = lost.gpus().stream().map(g -> g.toBuilder("nvml").health(Health.ok()).build()).toList();
        return Inventories.of("test", back, lost.probes(), List.of());
    }

    @BeforeEach
    void startServer() {
        server = MockApiServer.crud();
        toClose.add(server::destroy);
        Config config = MockApiServer.config(server);
        client = new KubernetesClientBuilder().withConfig(config).build();
        toClose.add(client);
        // The agent reads through its own client, which reads of a Node only what the agent uses (AgentClient).
        agentClient = AgentClient.build(config, retryAfter);
        toClose.add(agentClient);
        // The kubelet's Ready, node-problem-detector's KernelDeadlock, and the taint GPU nodes usually carry.
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata()
                .withNewSpec().withTaints(new TaintBuilder().withKey("nvidia.com/gpu").withValue("present")
                        .withEffect("NoSchedule").build()).endSpec()
                .withNewStatus().addToAllocatable("nvidia.com/gpu", new Quantity("4"))
                .withConditions(new NodeConditionBuilder().withType("Ready").withStatus("True").withReason("KubeletReady")
                                .withMessage("kubelet is posting ready status").withLastHeartbeatTime("2025-12-31T23:59:00Z")
                                .withLastTransitionTime("2025-12-01T00:00:00Z").build(),
                        new NodeConditionBuilder().withType("KernelDeadlock").withStatus("False").withReason("KernelHasNoDeadlock")
                                .withMessage("kernel has no deadlock").withLastHeartbeatTime("2025-12-31T23:58:00Z")
                                .withLastTransitionTime("2025-12-02T00:00:00Z").build())
                .endStatus().build()).create();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private NodeAgent agent(AtomicReference<Inventory> inventory, HealthOutputs health) {
        AgentSettings settings = Settings.health(AgentSettings.defaults(NODE, Profiles.of("gpu-detect"), "test"), health);
        NodeAgent agent = new NodeAgent(settings, Observations.of(inventory::get), agentClient, retryAfter,
                new AgentLog(new PrintWriter(log), clock), new AgentMetrics(), new PrintWriter(new StringWriter()), clock);
        toClose.add(agent);
        return agent;
    }

    private Node node() {
        return client.nodes().withName(NODE).get();
    }

    private NodeCondition condition(String type) {
        return node().getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
    }

    private String foreignConditions() {
        return Serialization.asJson(node().getStatus().getConditions().stream()
                .filter(c -> !"GpuHealthy".equals(c.getType())).toList());
    }

    private List<GenericKubernetesResource> events() {
        return client.genericKubernetesResources(EVENTS).inNamespace("default").list().getItems();
    }

    /** The write requests since the last call, as "METHOD path". */
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

    @Test
    void aLostGpuTurnsTheNodeConditionFalseNamingEachGpuAndARecoveredOneTurnsItTrue() throws Exception {
        String foreign = foreignConditions();
        AtomicReference<Inventory> inventory = new AtomicReference<>(lost());
        NodeAgent agent = agent(inventory, HealthOutputs.DEFAULT);
        writes();

        assertNull(agent.pass().error());
        NodeCondition down = condition("GpuHealthy");
        assertEquals("False", down.getStatus());
        assertEquals("GpuLost", down.getReason());
        assertEquals("GPU 0000:3b:00.0 (UUID unknown) lost (GpuLost): nvmlDeviceGetName returned NVML_ERROR_GPU_IS_LOST"
                + " (GPU is lost); GPU at an unknown PCI address (UUID unknown) lost (GpuLost): nvmlDeviceGetHandleByIndex_v2"
                + " returned NVML_ERROR_UNKNOWN (Unknown Error); 2 GPUs healthy: 0000:19:00.0"
                + " (GPU-5e1f0019-0000-0000-2330-000000abc019), 0000:4c:00.0 (GPU-5e1f226e-0000-0000-2330-000000abc04c)",
                down.getMessage());
        assertEquals("2026-01-01T00:00:00Z", down.getLastTransitionTime());
        assertEquals(foreign, foreignConditions(), "Ready and KernelDeadlock untouched, byte for byte");
        assertEquals(1, writes().stream().filter(w -> w.startsWith("PATCH /api/v1/nodes/node-1/status")).count(),
                "one status patch, decided from the Node as the label patch left it");

        clock.advance(Duration.ofMinutes(1));
        assertEquals(0, agent.pass().apiWrites(), "the same state: nothing written");
        assertEquals(down, condition("GpuHealthy"));

        clock.advance(Duration.ofMinutes(1));
        inventory.set(recovered());
        assertNull(agent.pass().error());
        NodeCondition up = condition("GpuHealthy");
        assertEquals("True", up.getStatus());
        assertEquals("GpusHealthy", up.getReason());
        assertTrue(up.getMessage().startsWith("4 GPUs healthy: 0000:19:00.0 (GPU-5e1f0019-0000-0000-2330-000000abc019), "
                + "0000:3b:00.0 (UUID unknown)"), up.getMessage());
        assertEquals("2026-01-01T00:02:00Z", up.getLastTransitionTime(), "the status changed");
        assertEquals(foreign, foreignConditions(), "Ready and KernelDeadlock untouched, byte for byte");
        assertEquals(3, node().getStatus().getConditions().size(), "one condition of ours, replaced in place");
    }

    @Test
    void theConditionIsKeptThroughAnIncompletePassAnApiOutageAndShutdown() throws Exception {
        AtomicReference<Inventory> inventory = new AtomicReference<>(lost());
        NodeAgent agent = agent(inventory, HealthOutputs.DEFAULT);
        agent.pass();
        NodeCondition down = condition("GpuHealthy");
        assertEquals("False", down.getStatus());

        clock.advance(Duration.ofMinutes(1));
        inventory.set(INCOMPLETE);
        agent.pass();
        assertEquals(down, condition("GpuHealthy"), "an incomplete pass keeps the condition");

        // The API server refuses the status patch once (an outage while the GPUs come back): the pass fails, the
        // condition stays as last written, and the next pass writes it.
        clock.advance(Duration.ofMinutes(1));
        inventory.set(recovered());
        server.expect().patch().withPath("/api/v1/nodes/" + NODE + "/status")
                .andReturn(503, new StatusBuilder().withCode(503).withMessage("etcd unavailable").build()).once();
        PassReport failed = agent.pass();
        assertTrue(failed.failed(), failed.toString());
        assertEquals(down, condition("GpuHealthy"));
        assertNull(agent.pass().error());
        assertEquals("True", condition("GpuHealthy").getStatus());

        clock.advance(Duration.ofMinutes(1));
        inventory.set(lost());
        agent.pass();
        NodeCondition before = condition("GpuHealthy");
        assertEquals("False", before.getStatus());
        agent.close();
        assertEquals(before, condition("GpuHealthy"), "shutting down removes nothing");
    }

    @Test
    void oneEventPerChangeOfAGpusStateNotPerPassNorPerRestart() throws Exception {
        AtomicReference<Inventory> inventory = new AtomicReference<>(lost());
        NodeAgent agent = agent(inventory, HealthOutputs.DEFAULT);
        agent.pass();
        List<GenericKubernetesResource> lostEvents = events();
        assertEquals(2, lostEvents.size(), "the two lost GPUs");
        GenericKubernetesResource first = lostEvents.stream()
                .filter(e -> String.valueOf(e.getAdditionalProperties().get("note")).contains("0000:3b:00.0")).findFirst()
                .orElseThrow();
        Map<String, Object> p = first.getAdditionalProperties();
        assertEquals("GpuLost", p.get("reason"));
        assertEquals("Warning", p.get("type"));
        assertEquals("gpu-detect.io/agent", p.get("reportingController"));
        assertEquals("gpu-detect-agent-node-1", p.get("reportingInstance"));
        assertEquals("GPU 0000:3b:00.0 (UUID unknown): first seen lost: nvmlDeviceGetName returned"
                + " NVML_ERROR_GPU_IS_LOST (GPU is lost)", p.get("note"));
        assertEquals(Map.of("apiVersion", "v1", "kind", "Node", "name", NODE, "uid", node().getMetadata().getUid()),
                p.get("regarding"));

        clock.advance(Duration.ofMinutes(1));
        agent.pass();
        assertEquals(2, events().size(), "no change, no Event");

        // A new agent (a restart, an upgrade) finds the states in the record: nothing to say again.
        NodeAgent restarted = agent(inventory, HealthOutputs.DEFAULT);
        clock.advance(Duration.ofMinutes(1));
        restarted.pass();
        assertEquals(2, events().size(), "a restart posts nothing again");

        clock.advance(Duration.ofMinutes(1));
        inventory.set(recovered());
        restarted.pass();
        List<Object> recovered = events().stream().map(e -> e.getAdditionalProperties().get("reason"))
                .filter("GpuRecovered"::equals).toList();
        assertEquals(2, recovered.size(), "one Event per GPU back");
        assertTrue(events().stream().map(e -> String.valueOf(e.getAdditionalProperties().get("note")))
                .anyMatch("GPU 0000:3b:00.0 (UUID unknown): lost -> ok"::equals));
        clock.advance(Duration.ofMinutes(1));
        restarted.pass();
        assertEquals(4, events().size());
    }

    @Test
    void theTaintAndTheDeviceTaintRulesAreOffByDefault() throws Exception {
        assertEquals(HealthTaint.Policy.NONE, HealthOutputs.DEFAULT.taint());
        assertEquals(DeviceTaints.OFF, HealthOutputs.DEFAULT.deviceTaints());
        NodeAgent agent = agent(new AtomicReference<>(lost()), HealthOutputs.DEFAULT);
        writes();
        agent.pass();
        assertEquals(List.of("nvidia.com/gpu"), node().getSpec().getTaints().stream().map(Taint::getKey).toList());
        assertEquals(List.of("PATCH /api/v1/nodes/node-1"), writes().stream().filter(w -> w.startsWith("PATCH /api/v1/nodes/node-1"))
                .filter(w -> !w.endsWith("/status")).toList(), "the labels' patch alone");
    }

    @Test
    void theTaintIsAddedWhileAnyGpuIsLostAndRemovedWhenBackLeavingOtherTaints() throws Exception {
        AtomicReference<Inventory> inventory = new AtomicReference<>(lost());
        NodeAgent agent = agent(inventory,
                new HealthOutputs(true, true, HealthTaint.Policy.ANY_FAILED, DeviceTaints.OFF));
        Taint foreign = node().getSpec().getTaints().get(0);
        agent.pass();
        List<Taint> taints = node().getSpec().getTaints();
        assertEquals(List.of(foreign, new TaintBuilder().withKey("gpu-detect.io/gpu-unhealthy").withEffect("NoSchedule").build()),
                taints);

        clock.advance(Duration.ofMinutes(1));
        inventory.set(recovered());
        agent.pass();
        assertEquals(List.of(foreign), node().getSpec().getTaints(), "ours removed, the other taint as it was");
    }

    @Test
    void allFailedTaintsOnlyANodeWhoseEveryGpuIsUnusable() throws Exception {
        NodeAgent agent = agent(new AtomicReference<>(lost()),
                new HealthOutputs(false, false, HealthTaint.Policy.ALL_FAILED, DeviceTaints.OFF));
        agent.pass();
        assertEquals(1, node().getSpec().getTaints().size(), "two of four GPUs still work: no taint");
        assertNull(condition("GpuHealthy"), "the condition is off");
        assertNotEquals(0, client.resources(GpuCapacity.class).withName(NODE).get().getSpec().gpus().size());
        assertEquals(List.of(), events(), "Events are off");
    }
}
