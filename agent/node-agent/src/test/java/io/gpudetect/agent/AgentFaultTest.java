package io.gpudetect.agent;

import static io.gpudetect.testing.FaultyApiServer.isWatch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.testing.FaultyApiServer.Seen;
import io.gpudetect.testing.FaultyApiServer;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.Loops;
import io.gpudetect.testing.Observations;
import io.gpudetect.testing.Profiles;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The running agent (loop, informers, sinks) against a CRUD mock API server that misbehaves on demand.
 * The loop's interval is an hour, so every pass after the first comes from a trigger or from the backoff
 * after a failure; the first backoff step is 100 ms instead of 1 s so an outage takes seconds. Each test
 * counts the agent's own requests (the "someone else" client is left out) in each phase.
 */
class AgentFaultTest {

    static final String NODE = "node-1";
    /** A Tesla t4() host, from the shared recordings (the test is skipped without them). */
    static Inventory t4() {
        return Fixtures.detect(Fixtures.host("tesla-t4_515.105.01_v11"));
    }

    /** An RTX 4090 host, from the shared recordings. */
    static Inventory rtx4090() {
        return Fixtures.detect(Fixtures.host("geforce-rtx-4090_535.86.05_v12"));
    }
    static final String T4_KEY = "akash.network/capabilities.gpu.vendor.nvidia.model.t4";
    static final String RTX4090_KEY = "akash.network/capabilities.gpu.vendor.nvidia.model.rtx4090";

    private final AtomicReference<Inventory> inventory = new AtomicReference<>(t4());
    private final StringWriter log = new StringWriter();
    /** The pass interval of the tests that wait for failed passes to be retried. */
    static final Duration RETRY_INTERVAL = Duration.ofMillis(500);

    private FaultyApiServer api;
    private KubernetesClient client;
    private KubernetesClient admin;
    private NodeAgent agent;
    private AgentLoop loop;
    private Thread worker;
    private String firstUid;

    @BeforeEach
    void start() throws Exception {
        api = new FaultyApiServer();
        admin = api.admin();
        admin.nodes().resource(node("uid-1")).create();
        RetryAfterHint hint = new RetryAfterHint();
        client = api.client(Duration.ofMillis(800), hint);
        agent = new NodeAgent(AgentSettings.defaults(NODE, Profiles.of("gpu-detect,akash"), "test"),
                Observations.of(inventory::get), client, hint, new AgentLog(new PrintWriter(log, true), Clock.systemUTC()),
                new AgentMetrics(), new PrintWriter(new StringWriter()), Clock.systemUTC());
        runLoop(Duration.ofHours(1));
        await("first pass labels the node and writes the record", () -> T4_KEY.length() > 0 && "1".equals(label(T4_KEY))
                && record() != null && "t4".equals(record().getSpec().gpus().get(0).model()));
        // Let the informers finish their first list and open their watches.
        Thread.sleep(300);
        firstUid = admin.nodes().withName(NODE).get().getMetadata().getUid();
    }

    /**
     * (Re)starts the loop with {@code interval}: an hour where only triggers and informer events may bring a
     * pass, {@link #RETRY_INTERVAL} where a test waits for failed passes to be retried.
     */
    private void runLoop(Duration interval) throws InterruptedException {
        if (loop != null) {
            stopLoop();
        }
        long passesBefore = agent.metrics().passCount();
        loop = Loops.immediate(agent, interval, 0.1, Math::random);
        worker = new Thread(loop, "agent-under-test");
        worker.start();
        // A loop starts with a pass: let it end before the test changes anything.
        await("the loop's first pass", () -> agent.metrics().passCount() > passesBefore);
    }

    private void stopLoop() throws InterruptedException {
        loop.stop();
        worker.join(10_000);
        assertFalse(worker.isAlive(), "the loop ends on stop, whatever the API server did");
    }

    @AfterEach
    void stop() throws Exception {
        stopLoop();
        agent.close();
        client.close();
        admin.close();
        api.close();
    }

    @Test
    void serverErrorsAreRetriedAtThePassIntervalAndTheAgentConverges() throws Exception {
        runLoop(RETRY_INTERVAL);
        reboot();
        long passesBefore = agent.metrics().passCount();
        api.failWhen(r -> !isWatch(r), FaultyApiServer.status(500, "InternalError"));
        long t0 = System.currentTimeMillis();
        inventory.set(rtx4090());
        loop.trigger("test");
        Thread.sleep(3_000);
        long failedPasses = agent.metrics().passCount() - passesBefore;
        Map<String, Integer> during = api.countSince(t0);
        api.heal();
        long t1 = System.currentTimeMillis();
        await("labels and record follow the new inventory", () -> "1".equals(label(RTX4090_KEY)) && label(T4_KEY) == null
                && "rtx4090".equals(record().getSpec().gpus().get(0).model()));
        report("500 for 3 s", during, failedPasses, api.countSince(t1));
        // One pass per 500-550 ms interval, failed or not: at most 7 fit in 3 s, not 3000 / latency.
        assertTrue(failedPasses >= 3 && failedPasses <= 7, "passes during 3 s of 500s: " + failedPasses);
        assertTrue(total(during) <= failedPasses * 2, "requests during the 500s: " + during);
        assertTrue(worker.isAlive(), "never exits on API errors");
    }

    @Test
    void aTooManyRequestsAnswerIsHonouredBeforeTheNextTry() throws Exception {
        runLoop(RETRY_INTERVAL);
        reboot();
        AtomicInteger refusals = new AtomicInteger();
        api.failWhen(r -> "PATCH".equals(r.getMethod()) && r.getPath().startsWith("/api/v1/nodes/")
                && !r.getPath().endsWith("/status") && refusals.getAndIncrement() == 0, FaultyApiServer.tooManyRequests(2));
        long t0 = System.currentTimeMillis();
        inventory.set(rtx4090());
        loop.trigger("test");
        await("converges after the Retry-After", () -> "1".equals(label(RTX4090_KEY)));
        // The label patches: the same pass then writes the GpuHealthy condition (nodes/N/status), which may or may
        // not have arrived when the label is seen.
        List<Seen> patches = api.since(t0).stream()
                .filter(s -> "PATCH".equals(s.method()) && s.path().startsWith("/api/v1/nodes/")
                        && !s.path().endsWith("/status")).toList();
        report("429 Retry-After: 2", api.countSince(t0), agent.metrics().passCount(), Map.of());
        assertEquals(2, patches.size(), patches.toString());
        long gap = patches.get(1).atMillis() - patches.get(0).atMillis();
        assertTrue(gap >= 1_950, "the retry waited " + gap + " ms, the server asked for 2 s (the interval alone: 500-550 ms)");
        assertTrue(gap < 4_000, "and not much more: " + gap + " ms");
    }

    @Test
    void droppedWatchesAreReopenedAndWhatChangedMeanwhileIsRepaired() throws Exception {
        // Watches resumed in the next 2.5 s are told their resource version expired (the API server's watch
        // cache moved on), so the informers must list again; meanwhile someone deletes the record, which
        // only that new list can show (a resumed watch does not replay it).
        api.failWhen(FaultyApiServer::isWatch, FaultyApiServer.expiredWatch());
        long t0 = System.currentTimeMillis();
        int dropped = api.dropWatches();
        admin.resources(GpuCapacity.class).withName(NODE).delete();
        Thread.sleep(2_500);
        api.heal();
        await("the record is back", () -> record() != null);
        Thread.sleep(1_000);
        Map<String, Integer> counts = api.countSince(t0);
        report("watches dropped (" + dropped + "), 2.5 s of expired watches, record deleted", counts,
                agent.metrics().passCount(), Map.of());
        assertTrue(dropped >= 3, "node, pod and record watches were open: " + dropped);
        assertEquals("t4", record().getSpec().gpus().get(0).model());
        assertEquals(firstUid, record().getMetadata().getOwnerReferences().get(0).getUid());
        int watchRequests = counts.entrySet().stream().filter(e -> e.getKey().endsWith("(watch)"))
                .mapToInt(Map.Entry::getValue).sum();
        assertTrue(watchRequests <= 24, "watch reconnects back off: " + counts);
    }

    @Test
    void slowResponsesBoundAPassAndTriggersDoNotPileUp() throws Exception {
        runLoop(RETRY_INTERVAL);
        reboot();
        api.slowDown(r -> !isWatch(r), Duration.ofSeconds(3));
        inventory.set(rtx4090());
        long passesBefore = agent.metrics().passCount();
        long t0 = System.currentTimeMillis();
        for (int i = 0; i < 20; i++) {
            loop.trigger("impatient user " + i);
            Thread.sleep(50);
        }
        Thread.sleep(3_000);
        long passes = agent.metrics().passCount() - passesBefore;
        Map<String, Integer> during = api.countSince(t0);
        api.heal();
        await("converges once the server is quick again", () -> "1".equals(label(RTX4090_KEY)));
        report("3 s responses, 800 ms client timeout, 20 triggers", during, passes, Map.of());
        // Each pass gives up after the 800 ms request timeout; 20 triggers during passes make one more pass each.
        assertTrue(passes >= 2 && passes <= 6, "passes in 4 s: " + passes);
        assertTrue(total(during) <= passes * 2, during.toString());
        assertTrue(log.toString().contains("api-unavailable"), log.toString());
    }

    @Test
    void aNodeDeletedAndCreatedAgainIsLabelledAgainAndOwnsTheRecord() throws Exception {
        long t0 = System.currentTimeMillis();
        admin.nodes().withName(NODE).delete();
        await("node gone", () -> admin.nodes().withName(NODE).get() == null);
        Thread.sleep(200);
        admin.nodes().resource(node("uid-2")).create();
        // The interval is an hour: only the informer's add event can bring a pass this soon.
        await("labels on the new node", () -> "1".equals(label(T4_KEY)));
        String uid = admin.nodes().withName(NODE).get().getMetadata().getUid();
        assertFalse(uid.equals(firstUid), "the mock server gave the new node a new uid");
        await("record owned by the new node", () -> uid.equals(record().getMetadata().getOwnerReferences().get(0).getUid()));
        report("node deleted and recreated (record survives)", api.countSince(t0), agent.metrics().passCount(), Map.of());
        assertEquals(1, record().getMetadata().getOwnerReferences().size());
    }

    @Test
    void aNodeRecreatedAfterTheGarbageCollectorTookItsRecordGetsANewRecord() throws Exception {
        long t0 = System.currentTimeMillis();
        admin.nodes().withName(NODE).delete();
        admin.resources(GpuCapacity.class).withName(NODE).delete(); // what the garbage collector does
        Thread.sleep(500);
        admin.nodes().resource(node("uid-2")).create();
        await("labels on the new node", () -> "1".equals(label(T4_KEY)));
        String uid = admin.nodes().withName(NODE).get().getMetadata().getUid();
        await("a new record owned by the new node", () -> record() != null
                && uid.equals(record().getMetadata().getOwnerReferences().get(0).getUid()));
        report("node deleted and recreated (record collected)", api.countSince(t0), agent.metrics().passCount(), Map.of());
    }

    @Test
    void aRecordDeletedBySomeoneElseIsBackAtOnceAndTheSteadyStateSendsNothing() throws Exception {
        long t0 = System.currentTimeMillis();
        Thread.sleep(1_500);
        assertEquals(Map.of(), api.countSince(t0), "steady state: no request, the watches stay open");

        long t1 = System.currentTimeMillis();
        admin.resources(GpuCapacity.class).withName(NODE).delete();
        await("recreated long before the hour-long interval", () -> record() != null);
        long back = System.currentTimeMillis() - t1;
        Thread.sleep(500);
        Map<String, Integer> counts = api.countSince(t1);
        report("record deleted by someone else (back in " + back + " ms)", counts, agent.metrics().passCount(), Map.of());
        assertEquals(Map.of("GET /apis/gpu-detect.io/v1alpha1/gpucapacities/node-1", 1,
                "PATCH /apis/gpu-detect.io/v1alpha1/gpucapacities/node-1/status", 1,
                "POST /apis/gpu-detect.io/v1alpha1/gpucapacities", 1), counts);
        assertEquals(firstUid, record().getMetadata().getOwnerReferences().get(0).getUid());
        assertEquals("complete", record().getStatus().lastPassOutcome());
    }

    @Test
    void anOutageMidRunIsRiddenOutAndTheAgentConvergesAfterIt() throws Exception {
        runLoop(RETRY_INTERVAL);
        reboot();
        api.failWhen(r -> true, FaultyApiServer.status(503, "ServiceUnavailable"));
        api.dropWatches();
        long t0 = System.currentTimeMillis();
        long passesBefore = agent.metrics().passCount();
        inventory.set(rtx4090());
        loop.trigger("test");
        Thread.sleep(4_000);
        Map<String, Integer> during = api.countSince(t0);
        long passes = agent.metrics().passCount() - passesBefore;
        api.heal();
        long t1 = System.currentTimeMillis();
        // The pass that writes labels and spec ends after one more request (the status): wait for its report too.
        await("labels and record follow the new inventory", () -> "1".equals(label(RTX4090_KEY)) && label(T4_KEY) == null
                && "rtx4090".equals(record().getSpec().gpus().get(0).model()) && agent.lastPass().error() == null);
        long recovered = System.currentTimeMillis() - t1;
        report("4 s outage, every request 503 (recovered in " + recovered + " ms)", during, passes, api.countSince(t1));
        assertTrue(passes <= 9, "one pass per interval during the outage, no faster: " + passes);
        assertTrue(total(during) <= 60, "requests during 4 s of outage, informers included: " + during);
        assertTrue(worker.isAlive());
        assertNull(agent.lastPass().error(), agent.lastPass().toString());
    }

    @Test
    void garbageAnswersFromAProxyNeverStopTheLoop() throws Exception {
        runLoop(RETRY_INTERVAL);
        reboot();
        // A misconfigured proxy answers 200 with an HTML page; the record must be read again to see it.
        api.failWhen(r -> !isWatch(r), new io.fabric8.mockwebserver.http.MockResponse().setResponseCode(200)
                .setHeader("Content-Type", "text/html").setBody("<html><body>Gateway login</body></html>"));
        admin.resources(GpuCapacity.class).withName(NODE).delete();
        long t0 = System.currentTimeMillis();
        long passesBefore = agent.metrics().passCount();
        inventory.set(rtx4090());
        loop.trigger("test");
        Thread.sleep(2_000);
        long passes = agent.metrics().passCount() - passesBefore;
        Map<String, Integer> during = api.countSince(t0);
        api.heal();
        await("converges once real answers come back", () -> "1".equals(label(RTX4090_KEY)) && record() != null
                && "rtx4090".equals(record().getSpec().gpus().get(0).model()));
        report("2 s of HTML answers with status 200", during, passes, Map.of());
        assertTrue(worker.isAlive(), "the loop survived");
        assertTrue(passes >= 2 && passes <= 6, "retried at the interval, no faster: " + passes);
    }

    @Test
    void anUnexpectedExceptionInAPassIsAFailedPassNotADeadAgent() {
        // A clock that fails when the pass asks it the time for the record's status, as a bug of ours would: the
        // pass has observed the host and read the Node by then.
        Clock failing = new Clock() {
            @Override
            public long millis() {
                return System.currentTimeMillis();
            }

            @Override
            public Instant instant() {
                throw new IllegalArgumentException("the clock is broken");
            }

            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }
        };
        try (NodeAgent broken = new NodeAgent(AgentSettings.defaults(NODE, Profiles.of("gpu-detect"), "test"),
                Observations.of(inventory::get), client, new RetryAfterHint(),
                new AgentLog(new PrintWriter(log, true), Clock.systemUTC()), new AgentMetrics(),
                new PrintWriter(new StringWriter()), failing)) {
            PassReport report = broken.pass();
            assertTrue(report.failed(), report.toString());
            assertTrue(report.error().startsWith("internal: IllegalArgumentException"), report.error());
            assertTrue(broken.metrics().render().contains("gpu_detect_errors_total{kind=\"internal\"} 1"));
        }
    }

    private static Node node(String uid) {
        return new NodeBuilder().withNewMetadata().withName(NODE).withUid(uid).addToLabels("example.com/zone", "a")
                .endMetadata().withNewStatus().addToAllocatable("nvidia.com/gpu", new Quantity("1"))
                .withNewNodeInfo().withBootID("boot-1").endNodeInfo().endStatus().build();
    }

    /**
     * The host's GPUs are changed as on a real node, with the power off: the Node reports a new boot id, which the
     * agent's informer sees before the test goes on. Without it, the T4 gone from the bus would read lost (LostGpus).
     */
    private void reboot() throws Exception {
        String version = admin.nodes().withName(NODE).editStatus(n -> new NodeBuilder(n).editStatus().editOrNewNodeInfo()
                .withBootID("boot-2").endNodeInfo().endStatus().build()).getMetadata().getResourceVersion();
        await("the agent sees the new boot id", () -> version.equals(agent.cachedNodeVersion()));
    }

    private String label(String key) {
        Node n = admin.nodes().withName(NODE).get();
        return n == null || n.getMetadata().getLabels() == null ? null : n.getMetadata().getLabels().get(key);
    }

    private GpuCapacity record() {
        return admin.resources(GpuCapacity.class).withName(NODE).get();
    }

    private static int total(Map<String, Integer> counts) {
        return counts.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** One line per scenario for the report: what the agent sent during the fault and after it. */
    private static void report(String scenario, Map<String, Integer> during, long passes, Map<String, Integer> after) {
        System.out.println("FAULT " + scenario + " | passes " + passes + " | requests " + total(during) + " " + during
                + " | after " + after);
    }

    private void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < deadline) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (RuntimeException e) {
                // The admin client may see the fault too; try again.
            }
            Thread.sleep(25);
        }
        throw new AssertionError("timed out waiting for: " + what + "\nlog:\n" + log);
    }
}
