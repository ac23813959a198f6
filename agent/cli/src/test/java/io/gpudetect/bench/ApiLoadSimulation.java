package io.gpudetect.bench;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
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
import io.gpudetect.agent.AgentLog;
import io.gpudetect.agent.AgentLoop;
import io.gpudetect.agent.AgentMetrics;
import io.gpudetect.agent.AgentSettings;
import io.gpudetect.agent.HealthOutputs;
import io.gpudetect.agent.LabelOutput;
import io.gpudetect.agent.NodeAgent;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.k8s.AkashCoexistence;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.Observations;
import io.gpudetect.testing.Profiles;
import java.io.PrintWriter;
import java.io.Writer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * By hand and from {@code bench/run.sh}, not a test: the API-server load of many nodes' agents, in one JVM
 * against one fabric8 mock API server (CRUD mode) on loopback, bounded in time.
 *
 * <p>What is real: each node has its own {@link NodeAgent} (its own {@code NodeView} with the two informers,
 * a watch on its Node and one on its pods, {@code LabelSync}, the node label sink and the capacity record
 * sink), and every request they send reaches the server and is counted. What is simulated: the agents share
 * one {@link KubernetesClient} (one HTTP client and connection pool instead of one per pod); passes are run by
 * a small scheduler with the agent loop's timing (interval plus up to 10% jitter, a random start-up delay)
 * instead of one {@link AgentLoop} thread per node; detection is one replayed inventory shared by all; time is
 * compressed (interval 60 s / C, heartbeat 5 min / C) and counts are scaled back to an hour. Watch
 * re-connections are not measured (the mock server never ends a watch): the report adds them as modelled
 * from the {@code timeoutSeconds} each watch request carries (a real API server ends the watch then and the
 * informer opens a new one from its last resource version; with watch bookmarks on, no re-list).
 *
 * <p>Usage: {@code ApiLoadSimulation [NODES=1000] [STEADY_SECONDS=60] [COMPRESSION=10] [STARTUP_JITTER_SECONDS=30]}.
 * Prints {@code RESULT key value} lines for the benchmark table, and the requests by kind.
 */
public final class ApiLoadSimulation {

    private static final Duration INTERVAL = Duration.ofSeconds(60);
    private static final Duration HEARTBEAT = Duration.ofMinutes(5);

    private ApiLoadSimulation() {
    }

    /** Kept so the level set on it stays: the mock server logs every request, which costs more than the agents. */
    private static final java.util.logging.Logger MOCK_SERVER_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    public static void main(String[] args) throws Exception {
        MOCK_SERVER_LOG.setLevel(java.util.logging.Level.WARNING);
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int steadySeconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        int compression = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        int jitterSeconds = args.length > 3 ? Integer.parseInt(args[3]) : 30;
        Inventory inventory = Fixtures.detect(Fixtures.host("tesla-t4_515.105.01_v11"));

        Phase burst = Phase.start(nodes, inventory, compression, Duration.ZERO);
        StartUp atOnce = burst.awaitFirstPasses();
        burst.close();
        report("startup_at_once", atOnce);

        Phase spread = Phase.start(nodes, inventory, compression, Duration.ofSeconds(jitterSeconds));
        StartUp jittered = spread.awaitFirstPasses();
        report("startup_jitter_" + jitterSeconds + "s", jittered);
        // From the spread start: there every informer opened its watch once (no failed pass re-opened one).
        double rewatchesPerNodeHour = spread.watchesPerHour / nodes;

        // Two intervals for the last agents to settle (labels patched, record created) before counting.
        Thread.sleep(2 * INTERVAL.dividedBy(compression).toMillis());
        spread.drainRequests();
        long before = spread.server.getRequestCount();
        long passesBefore = spread.passes();
        long failuresBefore = spread.failures.get();
        Thread.sleep(steadySeconds * 1000L);
        long requests = spread.server.getRequestCount() - before;
        Map<String, Integer> byKind = spread.drainRequests();
        long passes = spread.passes() - passesBefore;
        long failures = spread.failures.get() - failuresBefore;
        spread.close();
        long reads = byKind.entrySet().stream().filter(e -> e.getKey().startsWith("GET") && !e.getKey().endsWith("(watch)"))
                .mapToLong(Map.Entry::getValue).sum();

        double simulatedHours = steadySeconds * (double) compression / 3600.0;
        double measured = requests / (double) nodes / simulatedHours;
        System.out.printf("steady state: %d nodes, %d s at %dx (%.2f simulated h), %d passes (%d failed), %d requests: %s%n",
                nodes, steadySeconds, compression, simulatedHours, passes, failures, requests, byKind);
        System.out.printf("RESULT steady_failed_passes %d%n", failures);
        System.out.printf("RESULT steady_reads_per_pass %.4f%n", reads / (double) Math.max(1, passes));
        System.out.printf("RESULT steady_requests_per_node_hour_measured %.2f%n", measured);
        System.out.printf("RESULT steady_rewatches_per_node_hour_modelled %.2f%n", rewatchesPerNodeHour);
        System.out.printf("RESULT steady_requests_per_node_hour %.2f%n", measured + rewatchesPerNodeHour);
        System.out.printf("RESULT steady_requests_per_pass %.4f%n", requests / (double) Math.max(1, passes));
        System.exit(0);
    }

    private static void report(String name, StartUp s) {
        System.out.printf("%s: %d requests, every agent's first good pass done in %.1f s, peak %d requests in one second,"
                + " %d failed passes retried %s: %s%n", name, s.requests, s.seconds, s.peakPerSecond, s.failures,
                s.errorKinds, s.byKind);
        System.out.printf("RESULT %s_failed_passes %d%n", name, s.failures);
        System.out.printf("RESULT %s_peak_requests_per_second %d%n", name, s.peakPerSecond);
        System.out.printf("RESULT %s_seconds %.1f%n", name, s.seconds);
        System.out.printf("RESULT %s_requests %d%n", name, s.requests);
    }

    record StartUp(long requests, double seconds, long peakPerSecond, long failures, String errorKinds,
                   Map<String, Integer> byKind) {
    }

    /** One server, its nodes and one agent per node, started together. */
    private static final class Phase implements AutoCloseable {
        final KubernetesMockServer server;
        final KubernetesClient client;
        final List<NodeAgent> agents = new ArrayList<>();
        final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(64, r -> {
            Thread t = new Thread(r, "simulated-agent-loop");
            t.setDaemon(true);
            return t;
        });
        final CountDownLatch firstPasses;
        final long started;
        /** Sum over the watches opened of 3600 / timeoutSeconds: how often a real server would end them. */
        double watchesPerHour;
        final java.util.concurrent.atomic.AtomicLong failures = new java.util.concurrent.atomic.AtomicLong();
        final Map<String, Integer> errorKinds = new java.util.concurrent.ConcurrentSkipListMap<>();
        private volatile boolean stopping;

        private Phase(int nodes) {
            Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
            server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                    new KubernetesMixedDispatcher(responses), false);
            server.init();
            server.expectCustomResource(CustomResourceDefinitionContext.fromCustomResourceType(GpuCapacity.class));
            Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://localhost:" + server.getPort())
                    .withRequestRetryBackoffLimit(0).withMaxConcurrentRequests(256).withMaxConcurrentRequestsPerHost(256)
                    .build();
            client = new KubernetesClientBuilder().withConfig(config).build();
            for (int i = 0; i < nodes; i++) {
                client.nodes().resource(new NodeBuilder().withNewMetadata().withName(nodeName(i)).endMetadata()
                        .withNewStatus().addToAllocatable("nvidia.com/gpu", new Quantity("1")).endStatus().build())
                        .create();
            }
            firstPasses = new CountDownLatch(nodes);
            drainRequests();
            started = System.nanoTime();
        }

        static Phase start(int nodes, Inventory inventory, int compression, Duration startupJitter) {
            Phase p = new Phase(nodes);
            AgentLog quiet = new AgentLog(Boolean.getBoolean("simulation.log") ? new PrintWriter(System.err, true)
                    : new PrintWriter(Writer.nullWriter()), Clock.systemUTC());
            for (int i = 0; i < nodes; i++) {
                AgentSettings settings = new AgentSettings(nodeName(i), Profiles.of("gpu-detect,nvidia,akash"),
                        INTERVAL.dividedBy(compression), 0.1, HEARTBEAT.dividedBy(compression), false, LabelOutput.NODE,
                        AgentSettings.DEFAULT_NFD_FILE, "gpu-detect", "simulation", AkashCoexistence.OperatorSetting.AUTO,
                        HealthOutputs.DEFAULT);
                NodeAgent agent = new NodeAgent(settings, Observations.of(() -> inventory), p.client, new RetryAfterHint(), quiet, new AgentMetrics(),
                        new PrintWriter(Writer.nullWriter()), Clock.systemUTC());
                p.agents.add(agent);
                Duration delay = AgentLoop.startupDelay(startupJitter, ThreadLocalRandom.current().nextDouble());
                p.scheduler.schedule(() -> p.passAndReschedule(agent, settings.interval(), false), delay.toMillis(),
                        TimeUnit.MILLISECONDS);
            }
            return p;
        }

        /** One pass; the next after the interval plus jitter, failed or not (as the agent loop does). */
        private void passAndReschedule(NodeAgent agent, Duration interval, boolean hadGoodPass) {
            if (stopping) {
                return;
            }
            io.gpudetect.agent.PassReport report = agent.pass();
            boolean failed = report.failed();
            if (failed) {
                failures.incrementAndGet();
                errorKinds.merge(String.valueOf(report.error()).replaceAll(":.*", ""), 1, Integer::sum);
            } else if (!hadGoodPass) {
                firstPasses.countDown();
            }
            long wait = interval.toMillis() + (long) (interval.toMillis() * 0.1 * ThreadLocalRandom.current().nextDouble());
            boolean good = hadGoodPass || !failed;
            scheduler.schedule(() -> passAndReschedule(agent, interval, good), wait, TimeUnit.MILLISECONDS);
        }

        /** Waits for every agent's first pass, sampling the server's request count to find the busiest second. */
        StartUp awaitFirstPasses() throws InterruptedException {
            List<Integer> samples = new ArrayList<>();
            long start = System.nanoTime();
            while (!firstPasses.await(100, TimeUnit.MILLISECONDS)) {
                samples.add(server.getRequestCount());
            }
            samples.add(server.getRequestCount());
            double seconds = (System.nanoTime() - start) / 1e9;
            long peak = 0;
            for (int i = 0; i < samples.size(); i++) {
                int from = i >= 10 ? samples.get(i - 10) : 0;
                peak = Math.max(peak, samples.get(i) - from);
            }
            Map<String, Integer> byKind = drainRequests();
            return new StartUp(byKind.values().stream().mapToLong(Integer::longValue).sum(), seconds, peak,
                    failures.get(), errorKinds.toString(), byKind);
        }

        long passes() {
            return agents.stream().mapToLong(a -> a.metrics().passCount()).sum();
        }

        /** The requests recorded since the last call, by method, resource and watch. */
        Map<String, Integer> drainRequests() {
            Map<String, Integer> byKind = new TreeMap<>();
            try {
                RecordedRequest r;
                while ((r = server.takeRequest(1, TimeUnit.MILLISECONDS)) != null) {
                    byKind.merge(kind(r.getMethod(), r.getPath()), 1, Integer::sum);
                    watchesPerHour += rewatchesPerHour(r.getPath());
                    if (Boolean.getBoolean("simulation.log")) {
                        System.err.println("request: " + r.getMethod() + " " + r.getPath());
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return byKind;
        }

        @Override
        public void close() {
            stopping = true;
            scheduler.shutdownNow();
            agents.forEach(NodeAgent::close);
            client.close();
            server.destroy();
        }
    }

    /** For a watch request, 3600 / its {@code timeoutSeconds} (0 when it has none or is no watch). */
    static double rewatchesPerHour(String path) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("[?&]timeoutSeconds=(\\d+)").matcher(path);
        return path.contains("watch=true") && m.find() ? 3600.0 / Long.parseLong(m.group(1)) : 0;
    }

    static String nodeName(int i) {
        return String.format("node-%04d", i);
    }

    /** {@code GET nodes (watch)}, {@code PATCH gpucapacities/status}: the method, resource and subresource. */
    static String kind(String method, String path) {
        String p = path.replaceAll("\\?.*", "");
        boolean watch = path.contains("watch=true");
        String[] parts = p.split("/");
        String resource = "?";
        for (int i = 0; i < parts.length; i++) {
            if (parts[i].equals("nodes") || parts[i].equals("pods") || parts[i].equals("gpucapacities")) {
                resource = parts[i] + (i + 2 < parts.length ? "/" + parts[i + 2] : "");
            }
        }
        return method + " " + resource + (watch ? " (watch)" : "");
    }
}
