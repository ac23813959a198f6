package io.gpudetect.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.Loops;
import io.gpudetect.testing.Observations;
import io.gpudetect.testing.Profiles;
import io.gpudetect.testing.Settings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Health, readiness, metrics and POST /detect over real HTTP, with the agent running in dry-run mode. */
class AgentHttpServerTest {

    @Test
    void endpointsAnswerAndDetectTriggersAPass() throws Exception {
        var inventory = Fixtures.detect(Fixtures.host("tesla-t4_515.105.01_v11"));
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://localhost:1").withRequestRetryBackoffLimit(0).build();
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
             NodeAgent agent = new NodeAgent(Settings.dryRun(AgentSettings.defaults("n1", Profiles.of("akash"), "test")),
                     Observations.of(() -> inventory), client, new RetryAfterHint(), new AgentLog(new PrintWriter(new StringWriter()), Clock.systemUTC()),
                     new AgentMetrics(), new PrintWriter(new StringWriter()), Clock.systemUTC())) {
            AgentLoop loop = Loops.immediate(agent, Duration.ofHours(1), 0, () -> 0);
            try (AgentHttpServer http = new AgentHttpServer(0, agent, loop)) {
                HttpClient web = HttpClient.newHttpClient();
                String base = "http://localhost:" + http.port();
                assertEquals(200, get(web, base + "/healthz").statusCode());
                assertEquals(503, get(web, base + "/readyz").statusCode(), "not ready before a pass");

                Thread worker = new Thread(loop);
                worker.start();
                waitForPasses(agent, 1);
                assertEquals(200, get(web, base + "/readyz").statusCode());
                HttpResponse<String> post = web.send(HttpRequest.newBuilder(URI.create(base + "/detect"))
                        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(202, post.statusCode());
                waitForPasses(agent, 2);
                String metrics = get(web, base + "/metrics").body();
                assertTrue(metrics.contains("gpu_detect_passes_total{outcome=\"complete\"} 2"), metrics);
                assertTrue(metrics.contains("gpu_detect_gpus{vendor=\"nvidia\",model=\"t4\"} 1"), metrics);
                assertEquals(405, get(web, base + "/detect").statusCode());
                loop.stop();
                worker.join(5_000);
            }
        }
    }

    @Test
    void twoHundredPostsInOneSecondScheduleOnePassAndTheRestAreTold429WithRetryAfter() throws Exception {
        var inventory = Fixtures.detect(Fixtures.host("tesla-t4_515.105.01_v11"));
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://localhost:1").withRequestRetryBackoffLimit(0).build();
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
             NodeAgent agent = new NodeAgent(Settings.dryRun(AgentSettings.defaults("n1", Profiles.of("akash"), "test")),
                     Observations.of(() -> inventory), client, new RetryAfterHint(), new AgentLog(new PrintWriter(new StringWriter()), Clock.systemUTC()),
                     new AgentMetrics(), new PrintWriter(new StringWriter()), Clock.systemUTC())) {
            // A minute between triggered passes: the burst ends long before the scheduled pass is due.
            PassTriggers triggers = new PassTriggers(Duration.ofMinutes(1), Clock.systemUTC());
            AgentLoop loop = new AgentLoop(agent, Duration.ofHours(1), 0, () -> 0, triggers, Duration.ZERO);
            Thread worker = new Thread(loop);
            try (AgentHttpServer http = new AgentHttpServer(0, agent, loop)) {
                worker.start();
                waitForPasses(agent, 1);
                HttpClient web = HttpClient.newHttpClient();
                HttpRequest detect = HttpRequest.newBuilder(URI.create("http://localhost:" + http.port() + "/detect"))
                        .POST(HttpRequest.BodyPublishers.noBody()).build();
                List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
                long start = System.nanoTime();
                for (int i = 0; i < 200; i++) {
                    long at = start + i * 5_000_000L;
                    while (System.nanoTime() < at) {
                        Thread.sleep(1);
                    }
                    sent.add(web.sendAsync(detect, HttpResponse.BodyHandlers.ofString()));
                }
                List<HttpResponse<String>> answers = new ArrayList<>();
                for (var f : sent) {
                    answers.add(f.get(30, TimeUnit.SECONDS));
                }
                Thread.sleep(300);

                assertEquals(1, answers.stream().filter(a -> a.statusCode() == 202).count(), "one request scheduled the pass");
                List<HttpResponse<String>> refused = answers.stream().filter(a -> a.statusCode() == 429).toList();
                assertEquals(199, refused.size());
                for (HttpResponse<String> r : refused) {
                    long retryAfter = Long.parseLong(r.headers().firstValue("Retry-After").orElseThrow());
                    assertTrue(retryAfter >= 1 && retryAfter <= 60, "Retry-After " + retryAfter);
                }
                assertEquals(1, agent.metrics().passCount(), "no pass before the minimum interval has passed");
                assertTrue(triggers.due().isPresent(), "the requests are folded into one pass at the interval's end");
                assertTrue(triggers.untilDue().orElseThrow().compareTo(Duration.ofSeconds(55)) > 0,
                        triggers.untilDue().toString());
            } finally {
                loop.stop();
                worker.join(5_000);
            }
        }
    }

    private static void waitForPasses(NodeAgent agent, long n) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (agent.metrics().passCount() < n && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(n, agent.metrics().passCount());
    }

    private static HttpResponse<String> get(HttpClient web, String url) throws Exception {
        return web.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
