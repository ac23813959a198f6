package io.gpudetect.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpudetect.labels.LabelProfiles;
import io.gpudetect.testing.Fixtures;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Health, readiness, metrics and POST /detect over real HTTP, with the agent running in dry-run mode. */
class AgentHttpServerTest {

    @Test
    void endpointsAnswerAndDetectTriggersAPass() throws Exception {
        var inventory = Fixtures.detect(Fixtures.host("tesla-t4_515.105.01_v11"));
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://localhost:1").withRequestRetryBackoffLimit(0).build();
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
             NodeAgent agent = new NodeAgent(AgentSettings.defaults("n1", LabelProfiles.parse("akash"), "test").withDryRun(true),
                     () -> inventory, () -> null, client, new AgentLog(new PrintWriter(new StringWriter()), Clock.systemUTC()),
                     new AgentMetrics(), new PrintWriter(new StringWriter()), Clock.systemUTC())) {
            AgentLoop loop = new AgentLoop(agent, Duration.ofHours(1), 0, () -> 0);
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
