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
    void failedPassesAreRetriedAtTheIntervalNeverSooner() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://localhost:" + port)
                .withRequestRetryBackoffLimit(0).build();
        var inventory = Fixtures.detect(Fixtures.host("tesla-t4_515.105.01_v11"));
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
             NodeAgent agent = new NodeAgent(AgentSettings.defaults("n1", Profiles.of("gpu-detect"), "test"),
                     Observations.of(() -> inventory), client, new RetryAfterHint(), new AgentLog(new PrintWriter(new StringWriter()), Clock.systemUTC()),
                     new AgentMetrics(), new PrintWriter(new StringWriter()), Clock.systemUTC())) {
            AgentLoop loop = Loops.immediate(agent, Duration.ofMillis(400), 0.1, () -> 0.5);
            Thread worker = new Thread(loop);
            long started = System.nanoTime();
            worker.start();
            // Every pass fails (nothing listens): passes at about 0, 420, 840 and 1260 ms, one per interval.
            while (agent.metrics().passCount() < 4 && System.nanoTime() - started < 15_000_000_000L) {
                Thread.sleep(5);
            }
            long elapsedMs = (System.nanoTime() - started) / 1_000_000;
            loop.stop();
            worker.join(5_000);
            assertTrue(elapsedMs >= 3 * 420, "four failed passes took " + elapsedMs + " ms: retried sooner than the interval");
            long passes = agent.metrics().passCount();
            assertTrue(passes == 4 || passes == 5, agent.metrics().render());
            assertTrue(agent.metrics().render().contains("gpu_detect_passes_total{outcome=\"error\"} " + passes));
            assertTrue(agent.metrics().render().contains("gpu_detect_errors_total{kind=\"api-unavailable\"} " + passes),
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
             NodeAgent agent = new NodeAgent(AgentSettings.defaults("n1", Profiles.of("gpu-detect"), "test"),
                     Observations.of(() -> inventory), client, new RetryAfterHint(), new AgentLog(new PrintWriter(new StringWriter()), Clock.systemUTC()),
                     new AgentMetrics(), new PrintWriter(new StringWriter()), Clock.systemUTC())) {
            AgentLoop waiting = new AgentLoop(agent, Duration.ofHours(1), 0, () -> 0,
                    new PassTriggers(Duration.ofSeconds(10), Clock.systemUTC()), Duration.ofHours(1));
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

            AgentLoop stopped = new AgentLoop(agent, Duration.ofHours(1), 0, () -> 0,
                    new PassTriggers(Duration.ofSeconds(10), Clock.systemUTC()), Duration.ofHours(1));
            Thread second = new Thread(stopped);
            second.start();
            stopped.stop();
            second.join(5_000);
            assertTrue(!second.isAlive(), "stop ends the start-up wait");
            assertEquals(1, agent.metrics().passCount(), "stopping during the delay runs no pass");
        }
    }

    @Test
    void triggersWithinTheMinimumIntervalMakeOnePassAtItsEnd() throws Exception {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://localhost:1").withRequestRetryBackoffLimit(0)
                .build();
        var inventory = Fixtures.detect(Fixtures.host("tesla-t4_515.105.01_v11"));
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
             NodeAgent agent = new NodeAgent(Settings.dryRun(AgentSettings.defaults("n1", Profiles.of("gpu-detect"), "test")),
                     Observations.of(() -> inventory), client, new RetryAfterHint(),
                     new AgentLog(new PrintWriter(new StringWriter()), Clock.systemUTC()), new AgentMetrics(),
                     new PrintWriter(new StringWriter()), Clock.systemUTC())) {
            AgentLoop loop = new AgentLoop(agent, Duration.ofHours(1), 0, () -> 0,
                    new PassTriggers(Duration.ofMillis(500), Clock.systemUTC()), Duration.ZERO);
            Thread worker = new Thread(loop);
            worker.start();
            waitForPasses(agent, 1);
            PassTriggers.Decision first = loop.trigger("record deleted");
            assertTrue(first instanceof PassTriggers.Accepted, first.toString());
            for (int i = 0; i < 50; i++) {
                loop.trigger("node recreated");
            }
            waitForPasses(agent, 2);
            Thread.sleep(800);
            assertEquals(2, agent.metrics().passCount(), "51 triggers, one pass");
            loop.stop();
            worker.join(5_000);
        }
    }

    private static void waitForPasses(NodeAgent agent, long n) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (agent.metrics().passCount() < n && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(n, agent.metrics().passCount());
    }
}
