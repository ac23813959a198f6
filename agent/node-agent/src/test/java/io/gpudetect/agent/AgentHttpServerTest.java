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
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
            try (AgentHttpServer http = new AgentHttpServer(0, agent, loop, AgentHttpServer.IDLE)) {
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
            try (AgentHttpServer http = new AgentHttpServer(0, agent, loop, AgentHttpServer.IDLE)) {
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

    @Test
    void aConnectionThatSendsNoRequestIsClosedAfterTheIdleTimeAndOneThatDidAfterItsAnswer() throws Exception {
        try (KubernetesClient client = unreachableClient();
             NodeAgent agent = dryRunAgent(client);
             AgentHttpServer http = new AgentHttpServer(0, agent, Loops.immediate(agent, Duration.ofHours(1), 0, () -> 0),
                     Duration.ofMillis(600))) {
            try (Socket never = new Socket("127.0.0.1", http.port())) {
                long t0 = System.nanoTime();
                assertEquals(-1, readWithin(never, Duration.ofSeconds(10)), "a connection that never sent a byte is closed");
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertTrue(ms >= 400, "closed after " + ms + " ms, before the idle time");
            }
            try (Socket once = new Socket("127.0.0.1", http.port())) {
                Thread.sleep(300);
                send(once, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
                String answer = response(once.getInputStream());
                assertTrue(answer.startsWith("HTTP/1.1 200 OK\r\n") && answer.contains("\r\nConnection: close\r\n"), answer);
                assertEquals(-1, readWithin(once, Duration.ofMillis(300)), "closed at once after its answer");
            }
        }
    }

    @Test
    void connectionsThatSendNothingOrHalfARequestDoNotHoldUpTheProbes() throws Exception {
        try (KubernetesClient client = unreachableClient();
             NodeAgent agent = dryRunAgent(client);
             AgentHttpServer http = new AgentHttpServer(0, agent, Loops.immediate(agent, Duration.ofHours(1), 0, () -> 0),
                     AgentHttpServer.IDLE);
             Socket silent = new Socket("127.0.0.1", http.port());
             Socket halfARequest = new Socket("127.0.0.1", http.port())) {
            send(halfARequest, "GET /metr");
            HttpClient web = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> health = web.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port()
                        + "/healthz")).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, health.statusCode());
                assertEquals("ok\n", health.body());
            }
        }
    }

    @Test
    void bodiesBadRequestsUnknownPathsHeadAndQueries() throws Exception {
        try (KubernetesClient client = unreachableClient();
             NodeAgent agent = dryRunAgent(client);
             AgentHttpServer http = new AgentHttpServer(0, agent, Loops.immediate(agent, Duration.ofHours(1), 0, () -> 0),
                     AgentHttpServer.IDLE)) {
            int port = http.port();
            // A body, by its length or in chunks, is read to its end: the answer comes whole, then the connection ends.
            String sized = exchange(port, "POST /detect HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
            assertTrue(sized.startsWith("HTTP/1.1 202 Accepted\r\n") && sized.endsWith("\r\n\r\npass requested\n"), sized);
            String chunked = exchange(port, "POST /detect HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "3;x=y\r\nabc\r\n0\r\nT: 1\r\n\r\n");
            assertTrue(chunked.startsWith("HTTP/1.1 202 Accepted\r\n") && chunked.endsWith("\r\n\r\npass requested\n"), chunked);
            String get = exchange(port, "GET /detect HTTP/1.1\r\nHost: x\r\n\r\n");
            assertTrue(get.startsWith("HTTP/1.1 405 Method Not Allowed\r\n") && get.contains("\r\nAllow: POST\r\n"), get);
            String head = exchange(port, "HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
            assertTrue(head.startsWith("HTTP/1.1 200 OK\r\n") && head.contains("\r\nContent-Length: 3\r\n")
                    && head.endsWith("\r\n\r\n"), "no body after the headers: " + head);
            String metrics = exchange(port, "GET /metrics?x=1 HTTP/1.0\r\n\r\n");
            assertTrue(metrics.startsWith("HTTP/1.1 200 OK\r\n") && metrics.contains("\r\nContent-Type: text/plain; version=0.0.4\r\n")
                    && metrics.contains("\r\nDate: ") && metrics.contains("gpu_detect_passes_total"), metrics);
            assertTrue(exchange(port, "GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n").startsWith("HTTP/1.1 404 Not Found\r\n"));
            long passesAsked = agent.metrics().passCount();
            for (String bad : List.of("GET\r\n\r\n", "GET /healthz\r\n\r\n", "GET /healthz HTTP/1.1\r\nNo colon\r\n\r\n",
                    "GET /healthz HTTP/2.0\r\n\r\n", "POST /detect HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx",
                    "POST /detect HTTP/1.1\r\nContent-Length: -1\r\n\r\n")) {
                String answer = exchange(port, bad);
                assertTrue(answer.startsWith("HTTP/1.1 400 Bad Request\r\n"), bad + " -> " + answer);
            }
            assertTrue(exchange(port, "POST /detect HTTP/1.1\r\nContent-Length: 100000\r\n\r\n")
                    .startsWith("HTTP/1.1 413 Content Too Large\r\n"));
            assertEquals(passesAsked, agent.metrics().passCount(), "no bad request asked for a pass");
        }
    }

    @Test
    void closeEndsAConnectionWaitingForItsRequest() throws Exception {
        try (KubernetesClient client = unreachableClient();
             NodeAgent agent = dryRunAgent(client)) {
            AgentHttpServer http = new AgentHttpServer(0, agent, Loops.immediate(agent, Duration.ofHours(1), 0, () -> 0),
                    AgentHttpServer.IDLE);
            try (Socket s = new Socket("127.0.0.1", http.port())) {
                send(s, "GET /heal");
                Thread.sleep(200);
                http.close();
                assertEquals(-1, readWithin(s, Duration.ofSeconds(5)), "the open connection is closed with the server");
            }
        }
    }

    /** One request on a connection of its own: the whole answer, and the connection closed after it. */
    private static String exchange(int port, String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            send(s, request);
            String answer = request.startsWith("HEAD ") ? headers(s.getInputStream()) : response(s.getInputStream());
            assertEquals(-1, readWithin(s, Duration.ofSeconds(5)), "closed after the answer to " + request);
            return answer;
        }
    }

    private static KubernetesClient unreachableClient() {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://localhost:1").withRequestRetryBackoffLimit(0).build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    private static NodeAgent dryRunAgent(KubernetesClient client) throws Exception {
        var inventory = Fixtures.detect(Fixtures.host("tesla-t4_515.105.01_v11"));
        return new NodeAgent(Settings.dryRun(AgentSettings.defaults("n1", Profiles.of("akash"), "test")),
                Observations.of(() -> inventory), client, new RetryAfterHint(), new AgentLog(new PrintWriter(new StringWriter()), Clock.systemUTC()),
                new AgentMetrics(), new PrintWriter(new StringWriter()), Clock.systemUTC());
    }

    private static void send(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
        s.getOutputStream().flush();
    }

    /** The next byte, or -1 when the server closed the connection; fails when neither comes within {@code limit}. */
    private static int readWithin(Socket s, Duration limit) throws IOException {
        s.setSoTimeout((int) limit.toMillis());
        try {
            return s.getInputStream().read();
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the connection was still open after " + limit);
        }
    }

    /** A response's status line and headers, through the blank line. */
    private static String headers(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (!b.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new AssertionError("closed within the headers: " + b.toString(StandardCharsets.ISO_8859_1));
            }
            b.write(c);
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    /** A whole response: headers, then as many bytes as its Content-Length says. */
    private static String response(InputStream in) throws IOException {
        String head = headers(in);
        int at = head.indexOf("Content-Length: ");
        int length = Integer.parseInt(head.substring(at + 16, head.indexOf("\r\n", at)));
        return head + new String(in.readNBytes(length), StandardCharsets.UTF_8);
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
