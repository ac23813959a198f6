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
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AgentLoopTest {

    @Test
    void waitsAreTheIntervalPlusBoundedJitter() {
        assertEquals(Duration.ofSeconds(60), AgentLoop.nextWait(Duration.ofSeconds(60), 0.1, 0));
        assertEquals(Duration.ofSeconds(63), AgentLoop.nextWait(Duration.ofSeconds(60), 0.1, 0.5));
        assertTrue(AgentLoop.nextWait(Duration.ofSeconds(60), 0.1, 0.9999).compareTo(Duration.ofSeconds(66)) < 0);
    }

    @Test
    void backoffWaitsAreDrawnFromTheUpperHalfOfTheStep() {
        assertEquals(Duration.ofMillis(500), AgentLoop.backoffWait(Duration.ofSeconds(1), 0));
        assertEquals(Duration.ofMillis(750), AgentLoop.backoffWait(Duration.ofSeconds(1), 0.5));
        assertTrue(AgentLoop.backoffWait(Duration.ofSeconds(60), 0.9999).compareTo(Duration.ofSeconds(60)) < 0);
        // 1000 pods that lost the API server together come back spread over half the step, not at one instant.
        java.util.Random rnd = new java.util.Random(1);
        java.util.Set<Long> seconds = new java.util.TreeSet<>();
        for (int pod = 0; pod < 1000; pod++) {
            seconds.add(AgentLoop.backoffWait(Duration.ofSeconds(32), rnd.nextDouble()).toSeconds());
        }
        assertEquals(16, seconds.size(), seconds.toString());
    }

    @Test
    void failedPassesAreRetriedWithBackoffLongBeforeTheInterval() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://localhost:" + port)
                .withRequestRetryBackoffLimit(0).build();
        var inventory = Fixtures.detect(Fixtures.host("tesla-t4_515.105.01_v11"));
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
             NodeAgent agent = new NodeAgent(AgentSettings.defaults("n1", LabelProfiles.parse("gpu-detect"), "test"),
                     () -> inventory, () -> null, client, new AgentLog(new PrintWriter(new StringWriter()), Clock.systemUTC()),
                     new AgentMetrics(), new PrintWriter(new StringWriter()), Clock.systemUTC())) {
            AgentLoop loop = new AgentLoop(agent, Duration.ofHours(1), 0.1, () -> 0.5);
            Thread worker = new Thread(loop);
            worker.start();
            // Passes at about 0 s, 1 s and 3 s (backoff 1 s, then 2 s), not an hour apart.
            long deadline = System.currentTimeMillis() + 15_000;
            while (agent.metrics().passCount() < 3 && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            loop.stop();
            worker.join(5_000);
            assertEquals(3, agent.metrics().passCount(), agent.metrics().render());
            assertTrue(agent.metrics().render().contains("gpu_detect_passes_total{outcome=\"error\"} 3"));
            assertTrue(agent.metrics().render().contains("gpu_detect_errors_total{kind=\"api-unavailable\"} 3"),
                    agent.metrics().render());
        }
    }

    @Test
    void theStartupDelayIsBoundedByTheJitterAndSpreadsOverIt() {
        assertEquals(Duration.ZERO, AgentLoop.startupDelay(Duration.ofSeconds(30), 0));
        assertEquals(Duration.ofSeconds(15), AgentLoop.startupDelay(Duration.ofSeconds(30), 0.5));
        assertTrue(AgentLoop.startupDelay(Duration.ofSeconds(30), 0.9999).compareTo(Duration.ofSeconds(30)) < 0);
        assertEquals(Duration.ZERO, AgentLoop.startupDelay(Duration.ZERO, 0.7));
    }

    @Test
    void noPassRunsDuringTheStartupDelayButATriggerEndsItAndStopEndsTheLoop() throws Exception {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://localhost:1").withRequestRetryBackoffLimit(0)
                .build();
        var inventory = Fixtures.detect(Fixtures.host("tesla-t4_515.105.01_v11"));
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
             NodeAgent agent = new NodeAgent(AgentSettings.defaults("n1", LabelProfiles.parse("gpu-detect"), "test"),
                     () -> inventory, () -> null, client, new AgentLog(new PrintWriter(new StringWriter()), Clock.systemUTC()),
                     new AgentMetrics(), new PrintWriter(new StringWriter()), Clock.systemUTC())) {
            AgentLoop waiting = AgentLoop.withStartupDelay(agent, Duration.ofHours(1), 0, () -> 0, Duration.ofHours(1));
            Thread worker = new Thread(waiting);
            worker.start();
            Thread.sleep(300);
            assertEquals(0, agent.metrics().passCount(), "no pass before the start-up delay ends");
            waiting.trigger("test");
            long deadline = System.currentTimeMillis() + 10_000;
            while (agent.metrics().passCount() < 1 && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(1, agent.metrics().passCount(), "a trigger runs the first pass at once");
            waiting.stop();
            worker.join(5_000);

            AgentLoop stopped = AgentLoop.withStartupDelay(agent, Duration.ofHours(1), 0, () -> 0, Duration.ofHours(1));
            Thread second = new Thread(stopped);
            second.start();
            stopped.stop();
            second.join(5_000);
            assertTrue(!second.isAlive(), "stop ends the start-up wait");
            assertEquals(1, agent.metrics().passCount(), "stopping during the delay runs no pass");
        }
    }
}
