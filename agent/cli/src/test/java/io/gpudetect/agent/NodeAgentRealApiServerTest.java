package io.gpudetect.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.k8s.AgentClient;
import io.gpudetect.k8s.OwnedLabels;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.testing.InstalledChart;
import io.gpudetect.testing.MutableClock;
import io.gpudetect.testing.Observations;
import io.gpudetect.testing.Profiles;
import io.gpudetect.testing.RealApiServer;
import io.gpudetect.testing.TcpProxy;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The agent's whole life on a real kube-apiserver (v1.26.1, RBAC, garbage collector), acting as the chart's
 * service account with the chart's exact ClusterRole, on nodes shaped as real ones are and as bare ones can
 * be. Requests are counted from the server's audit log. Each test has a node of its own.
 */
@ExtendWith(RealApiServer.Extension.class)
class NodeAgentRealApiServerTest {

    private static RealApiServer server;
    private static KubernetesClient admin;

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final StringWriter log = new StringWriter();
    private String node;

    @BeforeAll
    static void install(RealApiServer realServer) {
        server = realServer;
        InstalledChart.install(server);
        admin = server.adminClient();
    }

    @org.junit.jupiter.api.BeforeEach
    void name(TestInfo test) {
        node = "n-" + test.getTestMethod().orElseThrow().getName().toLowerCase().replaceAll("[^a-z0-9]", "").substring(0, 20);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        admin.nodes().withName(node).delete();
    }

    private NodeAgent agent(AtomicReference<Inventory> inventory, String profiles) {
        return agent((java.util.function.Supplier<Inventory>) inventory::get, profiles);
    }

    private NodeAgent agent(java.util.function.Supplier<Inventory> detector, String profiles) {
        RetryAfterHint hint = new RetryAfterHint();
        KubernetesClient client = AgentClient.build(InstalledChart.agentConfig(server), hint);
        toClose.add(client);
        NodeAgent agent = new NodeAgent(AgentSettings.defaults(node, Profiles.of(profiles), "test"),
                Observations.of(detector), client, hint, new io.gpudetect.agent.AgentLog(new PrintWriter(log), clock),
                new AgentMetrics(), new PrintWriter(new StringWriter()), clock);
        toClose.add(agent);
        return agent;
    }

    private Node createNode(Map<String, String> labels, Map<String, String> annotations) {
        NodeBuilder b = new NodeBuilder().withNewMetadata().withName(node).endMetadata();
        if (labels != null) {
            b.editMetadata().withLabels(labels).endMetadata();
        }
        if (annotations != null) {
            b.editMetadata().withAnnotations(annotations).endMetadata();
        }
        Node created = admin.nodes().resource(b.build()).create();
        bootId("boot-1");
        return created;
    }

    /** The node's boot id as a kubelet reports it ({@code status.nodeInfo.bootID}), set through the status subresource. */
    private void bootId(String id) {
        admin.nodes().withName(node).editStatus(n -> new NodeBuilder(n).editOrNewStatus().editOrNewNodeInfo()
                .withBootID(id).endNodeInfo().endStatus().build());
    }

    /**
     * The host's GPUs are changed as on a real node, with the power off: a new boot id, which the agent's informer sees
     * before its next pass. Without it, the GPU gone from one pass to the next reads lost (LostGpus).
     */
    private void reboot(NodeAgent agent) {
        bootId("boot-2");
        waitFor(() -> agent.cachedNodeVersion() != null
                && agent.cachedNodeVersion().equals(admin.nodes().withName(node).get().getMetadata().getResourceVersion()),
                "the informer to see the new boot id");
    }

    private Map<String, String> labels() {
        Map<String, String> labels = admin.nodes().withName(node).get().getMetadata().getLabels();
        return labels == null ? Map.of() : labels;
    }

    private List<RealApiServer.Request> agentRequestsSince(int mark) {
        // The audit event is written as the response goes out: give the last one a moment to land.
        sleep(300);
        return server.requestsSince(mark, InstalledChart.agentUser());
    }

    @Test
    void aBareNodeWithoutLabelsOrAnnotationsGetsLabelledAndItsRecord() {
        createNode(null, null);
        NodeAgent agent = agent(new AtomicReference<>(t4()), "gpu-detect");

        int mark = server.auditMark();
        PassReport first = agent.pass();

        assertNull(first.error(), () -> first.error() + "\n" + log);
        Map<String, String> labels = labels();
        assertEquals("1", labels.get("gpu-detect.io/gpu.count"), labels::toString);
        assertEquals("t4", labels.get("gpu-detect.io/gpu.model"), labels::toString);
        String owned = admin.nodes().withName(node).get().getMetadata().getAnnotations().get(OwnedLabels.ANNOTATION);
        assertNotNull(owned);
        assertTrue(owned.contains("gpu-detect.io/gpu.count"), owned);
        GpuCapacity record = admin.resources(GpuCapacity.class).withName(node).get();
        assertNotNull(record, "record created");
        assertEquals(admin.nodes().withName(node).get().getMetadata().getUid(),
                record.getMetadata().getOwnerReferences().get(0).getUid());
        List<RealApiServer.Request> requests = agentRequestsSince(mark);
        System.out.println("REAL-API first pass on a bare node: " + requests.size() + " requests " + requests);
        // The one 404 is the agent's read of a record that does not exist yet.
        assertTrue(requests.stream().noneMatch(r -> r.code() >= 400 && !(r.code() == 404 && r.verb().equals("get"))),
                requests::toString);
        assertEquals(1, requests.stream().filter(r -> r.verb().equals("patch") && r.uri().startsWith("/api/v1/nodes/"))
                .count(), requests::toString);
    }

    @Test
    void anUnchangedPassSendsNoRequestAtAll() {
        createNode(Map.of("kubernetes.io/hostname", node), Map.of("example.com/owner", "ops"));
        NodeAgent agent = agent(new AtomicReference<>(t4()), "gpu-detect,nvidia");
        assertNull(agent.pass().error(), log::toString);
        waitFor(() -> agent.cachedNodeVersion() != null
                && agent.cachedNodeVersion().equals(admin.nodes().withName(node).get().getMetadata().getResourceVersion()),
                "the informer to see the agent's own write");

        int mark = server.auditMark();
        PassReport second = agent.pass();
        PassReport third = agent.pass();

        assertEquals(0, second.apiWrites());
        assertEquals(0, third.apiWrites());
        List<RealApiServer.Request> requests = agentRequestsSince(mark);
        System.out.println("REAL-API two unchanged passes: " + requests.size() + " requests");
        assertEquals(List.of(), requests);
    }

    @Test
    void foreignLabelsAndAnnotationsStayWhenTheAgentsOwnLabelsChange() {
        createNode(Map.of("kubernetes.io/hostname", node, "example.com/zone", "a", "gpu-detect.io/custom", "mine"),
                Map.of("example.com/owner", "ops"));
        AtomicReference<Inventory> inventory = new AtomicReference<>(t4());
        NodeAgent agent = agent(inventory, "gpu-detect,nvidia");
        assertNull(agent.pass().error(), log::toString);
        assertEquals("t4", labels().get("gpu-detect.io/gpu.model"));

        waitFor(() -> agent.cachedNodeVersion() != null
                && agent.cachedNodeVersion().equals(admin.nodes().withName(node).get().getMetadata().getResourceVersion()),
                "the informer to see the agent's own write");

        reboot(agent);
        inventory.set(rtx4090());
        int mark = server.auditMark();
        PassReport changed = agent.pass();

        assertNull(changed.error(), log::toString);
        List<RealApiServer.Request> requests = agentRequestsSince(mark);
        System.out.println("REAL-API pass after the host changed: " + requests.size() + " requests " + requests);
        // The record's status (outcome, last good pass) is the same on this fixed clock: only labels and spec change,
        // and the GpuHealthy condition, whose message names each GPU (nodes/N/status, written after them).
        assertEquals(List.of("patch /api/v1/nodes/" + node, "patch /apis/gpu-detect.io/v1alpha1/gpucapacities/" + node,
                        "patch /api/v1/nodes/" + node + "/status"),
                requests.stream().map(r -> r.verb() + " " + r.uri()).toList(),
                "one patch each of labels, spec and the condition");
        assertEquals("rtx4090", admin.resources(GpuCapacity.class).withName(node).get().getSpec().gpus().get(0).model(),
                "the record follows the host");
        Map<String, String> labels = labels();
        assertEquals("rtx4090", labels.get("gpu-detect.io/gpu.model"), labels::toString);
        assertEquals("a", labels.get("example.com/zone"));
        assertEquals("mine", labels.get("gpu-detect.io/custom"), "a key under our prefix that we did not write stays");
        assertEquals(node, labels.get("kubernetes.io/hostname"));
        assertEquals("ops", admin.nodes().withName(node).get().getMetadata().getAnnotations().get("example.com/owner"));
    }

    @Test
    void anotherWriterBetweenReadAndPatchIsDecidedAgainNotOverwritten() {
        createNode(Map.of("kubernetes.io/hostname", node), null);
        AtomicReference<Runnable> duringDetection = new AtomicReference<>(() -> { });
        AtomicReference<Inventory> inventory = new AtomicReference<>(t4());
        NodeAgent agent = agent(() -> {
            duringDetection.getAndSet(() -> { }).run();
            return inventory.get();
        }, "gpu-detect");
        assertNull(agent.pass().error(), log::toString);
        waitFor(() -> agent.cachedNodeVersion() != null
                && agent.cachedNodeVersion().equals(admin.nodes().withName(node).get().getMetadata().getResourceVersion()),
                "the informer to see the agent's own write");
        String memoryKey = labels().keySet().stream().filter(k -> k.startsWith("gpu-detect.io/gpu.memory")).findFirst()
                .orElseThrow(() -> new AssertionError("no memory label: " + labels()));

        // While the agent detects, someone removes one of its labels and adds their own: the agent's cached
        // node does not have that change yet when it decides, so its first patch is refused.
        reboot(agent);
        duringDetection.set(() -> admin.nodes().withName(node).edit(n -> new NodeBuilder(n).editMetadata()
                .removeFromLabels(memoryKey).addToLabels("example.com/added", "during-pass").endMetadata().build()));
        inventory.set(rtx4090());
        PassReport pass = agent.pass();

        assertNull(pass.error(), () -> pass.error() + "\n" + log);
        Map<String, String> labels = labels();
        assertEquals("during-pass", labels.get("example.com/added"), "the other writer's label stays");
        assertEquals("rtx4090", labels.get("gpu-detect.io/gpu.model"), labels::toString);
        assertTrue(labels.keySet().stream().anyMatch(k -> k.startsWith("gpu-detect.io/gpu.memory")), labels::toString);
    }

    @Test
    void aNodeDeletedAndCreatedAgainIsLabelledAgainAndItsRecordReowned() {
        Node first = createNode(Map.of("kubernetes.io/hostname", node), null);
        NodeAgent agent = agent(new AtomicReference<>(t4()), "gpu-detect");
        assertNull(agent.pass().error(), log::toString);

        admin.nodes().withName(node).withGracePeriod(0).delete();
        waitFor(() -> admin.nodes().withName(node).get() == null, "the node to go");
        Node second = createNode(Map.of("kubernetes.io/hostname", node), null);
        assertNotEquals(first.getMetadata().getUid(), second.getMetadata().getUid());
        waitFor(() -> {
            agent.pass();
            GpuCapacity record = admin.resources(GpuCapacity.class).withName(node).get();
            return "1".equals(labels().get("gpu-detect.io/gpu.count")) && record != null
                    && second.getMetadata().getUid().equals(record.getMetadata().getOwnerReferences().get(0).getUid());
        }, "labels and a record owned by the new node");
    }

    @Test
    void theRecordIsCollectedWithItsNode() {
        org.junit.jupiter.api.Assumptions.assumeTrue(server.garbageCollectorRunning(),
                "kube-controller-manager not supplied: the garbage collector is not running");
        createNode(null, null);
        NodeAgent agent = agent(new AtomicReference<>(t4()), "gpu-detect");
        assertNull(agent.pass().error(), log::toString);
        assertNotNull(admin.resources(GpuCapacity.class).withName(node).get());
        agent.close();

        admin.nodes().withName(node).delete();

        waitFor(() -> admin.resources(GpuCapacity.class).withName(node).get() == null,
                "the garbage collector to delete the record with its node");
    }

    @Test
    void afterAnOutageTheFirstPassConvergesWithoutPatchesRefusedForAStaleCache() {
        createNode(Map.of("kubernetes.io/hostname", node), Map.of("example.com/owner", "ops"));
        java.net.URI url = java.net.URI.create(server.masterUrl());
        TcpProxy proxy = new TcpProxy(url.getHost(), url.getPort());
        toClose.add(proxy);
        io.fabric8.kubernetes.client.Config viaProxy = new io.fabric8.kubernetes.client.ConfigBuilder(
                InstalledChart.agentConfig(server)).withMasterUrl("https://" + url.getHost() + ":" + proxy.port())
                .withRequestRetryBackoffLimit(0).withConnectionTimeout(1000).withRequestTimeout(2000).build();
        AtomicReference<Inventory> inventory = new AtomicReference<>(t4());
        RetryAfterHint hint = new RetryAfterHint();
        KubernetesClient client = AgentClient.build(viaProxy, hint);
        toClose.add(client);
        NodeAgent agent = new NodeAgent(AgentSettings.defaults(node, Profiles.of("gpu-detect"), "test"),
                Observations.of(inventory::get), client, hint, new AgentLog(new PrintWriter(log), clock), new AgentMetrics(),
                new PrintWriter(new StringWriter()), clock);
        toClose.add(agent);
        assertNull(agent.pass().error(), log::toString);
        waitFor(() -> agent.cachedNodeVersion() != null
                && agent.cachedNodeVersion().equals(admin.nodes().withName(node).get().getMetadata().getResourceVersion()),
                "the informer to see the agent's own write");
        String memoryKey = labels().keySet().stream().filter(k -> k.startsWith("gpu-detect.io/gpu.memory")).findFirst()
                .orElseThrow(() -> new AssertionError("no memory label: " + labels()));

        // The host's GPUs change with a reboot (a new boot id, seen before the outage).
        reboot(agent);
        // The API server goes away (an upgrade); meanwhile the host changes, and so does the node: someone
        // removes one of the agent's labels and the kubelet's writes move its resourceVersion on.
        proxy.cut();
        inventory.set(rtx4090());
        admin.nodes().withName(node).edit(n -> new NodeBuilder(n).editMetadata().removeFromLabels(memoryKey)
                .addToLabels("example.com/zone", "b").endMetadata().build());
        PassReport during = agent.pass();
        assertNotNull(during.error(), "a pass without the API server fails");
        assertEquals("t4", labels().get("gpu-detect.io/gpu.model"), "and changes nothing");

        proxy.restore();
        int mark = server.auditMark();
        PassReport after = agent.pass();
        PassReport next = agent.pass();

        assertNull(after.error(), () -> after.error() + "\n" + log);
        Map<String, String> labels = labels();
        assertEquals("rtx4090", labels.get("gpu-detect.io/gpu.model"), labels::toString);
        assertTrue(labels.keySet().stream().anyMatch(k -> k.startsWith("gpu-detect.io/gpu.memory")), labels::toString);
        assertEquals("b", labels.get("example.com/zone"));
        assertNull(next.error(), () -> next.error() + "\n" + log);
        assertEquals(0, next.apiWrites(), "the pass after decides from the node its write returned");
        // The label patches: the same pass then writes the GpuHealthy condition (nodes/N/status), not counted here.
        List<RealApiServer.Request> patches = agentRequestsSince(mark).stream()
                .filter(r -> r.verb().equals("patch") && r.uri().startsWith("/api/v1/nodes/")
                        && !r.uri().endsWith("/status")).toList();
        assertTrue(patches.stream().filter(r -> r.code() == 409 || r.code() == 422).count() <= 1, patches::toString);
        assertTrue(patches.size() <= 2, patches::toString);
    }

    @Test
    void whereAkashsOperatorRunsNoAkashKeyIsAddedChangedOrRemoved() {
        // As the operator leaves a T4 node: its marker, its capability keys, and a stale count of its own.
        Map<String, String> operators = Map.of("akash.network", "true",
                "akash.network/capabilities.gpu.vendor.nvidia.model.t4", "2",
                "akash.network/capabilities.gpu.vendor.nvidia.model.t4.ram.16Gi", "2",
                "nvidia.com/gpu.present", "true");
        Map<String, String> initial = new java.util.HashMap<>(operators);
        initial.put("kubernetes.io/hostname", node);
        createNode(initial, null);
        NodeAgent agent = agent(new AtomicReference<>(t4()), "gpu-detect,akash");

        PassReport pass = agent.pass();

        assertNull(pass.error(), log::toString);
        Map<String, String> labels = labels();
        java.util.SortedMap<String, String> akashKeys = new java.util.TreeMap<>();
        labels.forEach((k, v) -> {
            if (k.startsWith("akash.network") || k.equals("nvidia.com/gpu.present")) {
                akashKeys.put(k, v);
            }
        });
        assertEquals(new java.util.TreeMap<>(operators), akashKeys, "the operator's keys, exactly as it left them");
        assertEquals("1", labels.get("gpu-detect.io/gpu.count"), "the agent's own profile still writes");
        String status = admin.resources(GpuCapacity.class).withName(node).get().getStatus().akashLabels();
        assertNotNull(status);
        assertTrue(status.contains("Akash inventory operator"), status);
    }

    @Test
    void withoutAkashsOperatorTheAkashProfileWritesTheOperatorsKeys() {
        createNode(Map.of("kubernetes.io/hostname", node), null);
        NodeAgent agent = agent(new AtomicReference<>(t4()), "akash");

        PassReport pass = agent.pass();

        assertNull(pass.error(), log::toString);
        Map<String, String> labels = labels();
        assertEquals("true", labels.get("akash.network"), labels::toString);
        assertEquals("1", labels.get("akash.network/capabilities.gpu.vendor.nvidia.model.t4"), labels::toString);
        assertEquals("1", labels.get("akash.network/capabilities.gpu.vendor.nvidia.model.t4.ram.16Gi"), labels::toString);
        assertNull(labels.get("akash.network/gpu"), "nothing in Akash reads it");
        assertNull(admin.resources(GpuCapacity.class).withName(node).get().getStatus().akashLabels());
    }

    @Test
    void theChartsRoleAllowsNothingBeyondWhatTheAgentUses() {
        createNode(Map.of("kubernetes.io/hostname", node), null);
        NodeAgent agent = agent(new AtomicReference<>(t4()), "gpu-detect");
        assertNull(agent.pass().error(), log::toString);
        try (KubernetesClient asAgent = new io.fabric8.kubernetes.client.KubernetesClientBuilder()
                .withConfig(InstalledChart.agentConfig(server)).build()) {
            Map<String, Runnable> forbidden = new java.util.LinkedHashMap<>();
            forbidden.put("delete its node", () -> asAgent.nodes().withName(node).delete());
            forbidden.put("replace its node", () -> asAgent.nodes().resource(asAgent.nodes().withName(node).get()).update());
            forbidden.put("create a node", () -> asAgent.nodes().resource(new NodeBuilder().withNewMetadata()
                    .withName(node + "-x").endMetadata().build()).create());
            forbidden.put("delete its record", () -> asAgent.resources(GpuCapacity.class).withName(node).delete());
            forbidden.put("list secrets", () -> asAgent.secrets().inAnyNamespace().list());
            forbidden.put("delete a pod", () -> asAgent.pods().inNamespace("default").withName("any").delete());
            forbidden.put("create a pod", () -> asAgent.pods().inNamespace("default").resource(
                    new io.fabric8.kubernetes.api.model.PodBuilder().withNewMetadata().withName("any").endMetadata()
                            .withNewSpec().addNewContainer().withName("c").withImage("busybox").endContainer().endSpec()
                            .build()).create());
            forbidden.forEach((what, call) -> {
                io.fabric8.kubernetes.client.KubernetesClientException e = org.junit.jupiter.api.Assertions.assertThrows(
                        io.fabric8.kubernetes.client.KubernetesClientException.class, call::run, what);
                assertEquals(403, e.getCode(), what + ": " + e.getMessage());
            });
        }
    }

    @Test
    void theAgentCommandLabelsItsNodeInItsFirstPass() {
        createNode(Map.of("kubernetes.io/hostname", node), null);
        StringWriter out = new StringWriter();
        int mark = server.auditMark();
        picocli.CommandLine cmd = io.gpudetect.cli.GpuDetectCommand.newCommandLine();
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(out));
        io.gpudetect.cli.AgentCommands.useClientSettings(cmd, () -> InstalledChart.agentConfig(server));
        long t0 = System.nanoTime();
        int code = cmd.execute("agent", "--node", node, "--once", "--port", "-1", "--replay",
                io.gpudetect.testing.Fixtures.host("tesla-t4_515.105.01_v11").toString());
        long ms = (System.nanoTime() - t0) / 1_000_000;

        assertEquals(0, code, out::toString);
        assertEquals("1", labels().get("gpu-detect.io/gpu.count"), out::toString);
        List<RealApiServer.Request> requests = agentRequestsSince(mark);
        System.out.println("REAL-API agent --once, start to labels written (in this JVM): " + ms + " ms, "
                + requests.size() + " requests " + requests);
        assertTrue(requests.stream().noneMatch(r -> r.code() == 401 || r.code() == 403 || r.code() == 422),
                requests::toString);
    }

    static void waitFor(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            sleep(100);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static Duration seconds(long s) {
        return Duration.ofSeconds(s);
    }

    /** NodeAgentTest's Tesla T4 host (that test is in the node agent's module, this one in the command line's). */
    static Inventory t4() {
        return io.gpudetect.testing.Fixtures.detect(io.gpudetect.testing.Fixtures.host("tesla-t4_515.105.01_v11"));
    }

    /** NodeAgentTest's RTX 4090 host. */
    static Inventory rtx4090() {
        return io.gpudetect.testing.Fixtures.detect(io.gpudetect.testing.Fixtures.host("geforce-rtx-4090_535.86.05_v12"));
    }
}
