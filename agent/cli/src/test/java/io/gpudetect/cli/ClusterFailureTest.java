package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.gpudetect.testing.FaultyApiServer;
import io.gpudetect.testing.MockApiServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code inventory --cluster} and {@code match --cluster} against clusters that cannot be read, run as a user
 * would through the command line, each with a kubeconfig of its own (no global {@code kubeconfig} property):
 * one line on stderr naming the server and the cause, exit status 2, and no wait for fabric8's retries (which
 * took some 21 s to report a refused connection).
 */
class ClusterFailureTest {

    /** Far above the few hundred milliseconds these take, far below the 21 s of fabric8's default retries. */
    static final Duration PROMPT = Duration.ofSeconds(15);

    @TempDir
    Path dir;

    record Run(int exit, String out, String err, Duration took) {
    }

    /** The whole command line, with {@code settings} as the cluster's client settings of the three commands. */
    static Run run(Supplier<Config> settings, String... args) {
        return run(settings, ClusterOption.STALL_LIMIT, args);
    }

    /** As {@link #run(Supplier, String...)}, a list that stands still for {@code stallLimit} given up. */
    static Run run(Supplier<Config> settings, Duration stallLimit, String... args) {
        CommandLine cli = GpuDetectCommand.newCommandLine();
        for (ClusterOption option : AgentCommands.clusterOptions(cli)) {
            option.settings = settings;
            option.stallLimit = stallLimit;
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        long start = System.nanoTime();
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString(), Duration.ofNanos(System.nanoTime() - start));
    }

    /** The settings fabric8 reads from a kubeconfig file whose only context talks to {@code server}. */
    Supplier<Config> kubeconfig(String server) throws IOException {
        Path file = dir.resolve("kubeconfig");
        MockApiServer.writeKubeconfig(file, server);
        return () -> Config.fromKubeconfig(file.toFile());
    }

    static void assertOneLineFailure(String expectedLine, Run r) {
        assertEquals(expectedLine + System.lineSeparator(), r.err(), "one line on stderr");
        assertEquals(2, r.exit(), r.err());
        assertEquals("", r.out());
        assertTrue(r.took().compareTo(PROMPT) < 0, "took " + r.took());
    }

    @Test
    void refusedConnection() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Supplier<Config> settings = kubeconfig("https://127.0.0.1:" + port);
        assertOneLineFailure("gpu-detect inventory: cannot reach the Kubernetes API at https://127.0.0.1:" + port
                + ": connection refused", run(settings, "inventory", "--cluster"));
        assertOneLineFailure("gpu-detect match: cannot reach the Kubernetes API at https://127.0.0.1:" + port
                + ": connection refused", run(settings, "match", "--cluster", "--gpu", "vendor=nvidia"));
    }

    @Test
    void forbiddenByRbac() throws IOException {
        String rbac = "gpucapacities.gpu-detect.io is forbidden: User \"system:serviceaccount:x:y\" cannot list "
                + "resource \"gpucapacities\" in API group \"gpu-detect.io\" at the cluster scope";
        try (FaultyApiServer api = new FaultyApiServer()) {
            api.failWhen(r -> r.getPath().startsWith("/apis/gpu-detect.io/"), new MockResponse().setResponseCode(403)
                    .setHeader("Content-Type", "application/json").setBody(Serialization.asJson(new StatusBuilder()
                            .withStatus("Failure").withCode(403).withReason("Forbidden").withMessage(rbac).build())));
            Supplier<Config> settings = kubeconfig("http://localhost:" + api.port());
            String said = "the Kubernetes API at http://localhost:" + api.port() + " answered 403 Forbidden: " + rbac
                    + " (RBAC)";
            assertOneLineFailure("gpu-detect inventory: " + said, run(settings, "inventory", "--cluster"));
            assertOneLineFailure("gpu-detect match: " + said, run(settings, "match", "--cluster", "--gpu", "vendor=amd"));
        }
    }

    @Test
    void crdNotInstalled() throws IOException {
        KubernetesMockServer server = new KubernetesMockServer(false);   // no expectations: 404 to everything
        server.init();
        try {
            Supplier<Config> settings = kubeconfig("http://localhost:" + server.getPort());
            assertOneLineFailure("gpu-detect inventory: the GpuCapacity CRD is not installed in the cluster at "
                    + "http://localhost:" + server.getPort() + " (no gpucapacities.gpu-detect.io/v1alpha1): kubectl "
                    + "apply -f daemonset/crds/gpucapacities.gpu-detect.io-v1.yml", run(settings, "inventory", "--cluster"));
        } finally {
            server.destroy();
        }
    }

    /**
     * A page whose answer stops half-way (headers and part of the body, then nothing: what a stalled server or proxy
     * sends) was waited for for ever, as was one whose body the client failed to join (a StackOverflowError in its
     * thread): the client's request timeout ends only the wait for headers. Each command now ends with one line
     * naming the list, its page and the server, exit status 2. Run on a thread of its own, so that the old
     * behaviour fails the test instead of hanging it.
     */
    @Test
    void pageThatStopsHalfWay() throws IOException {
        KubernetesMockServer server = new KubernetesMockServer(false);
        server.init();
        try {
            server.expect().get().withPath("/apis/gpu-detect.io/v1alpha1/gpucapacities?limit=500")
                    .andReturn(200, "{\"apiVersion\": \"gpu-detect.io/v1alpha1\", \"kind\": \"GpuCapacityList\", "
                            + "\"metadata\": {}, \"items\": []}").always();
            server.expect().get().withPath("/api/v1/nodes?limit=500").andReturn(200, new NodeListBuilder()
                    .withNewMetadata().withContinue("n2").endMetadata()
                    .addToItems(new NodeBuilder().withNewMetadata().withName("a").endMetadata().build()).build()).always();
            String begun = "{\"apiVersion\": \"v1\", \"kind\": \"NodeList\", \"metadata\": {}, \"items\": [";
            server.expect().get().withPath("/api/v1/nodes?continue=n2&limit=500").andReturn(200, begun)
                    .withHeader("Content-Length", String.valueOf(begun.length() + 10_000)).always();
            Supplier<Config> settings = kubeconfig("http://localhost:" + server.getPort());
            String said = "listing nodes (page 2) from the Kubernetes API at http://localhost:" + server.getPort()
                    + " stopped: nothing came for 2 s (a stalled server, proxy or connection, or a failure inside the "
                    + "client); run the command again, and if it stops again check the API server: "
                    + "kubectl get --raw='/readyz?verbose'";
            Duration stall = Duration.ofSeconds(2);
            assertOneLineFailure("gpu-detect inventory: " + said,
                    assertTimeoutPreemptively(PROMPT, () -> run(settings, stall, "inventory", "--cluster")));
            assertOneLineFailure("gpu-detect match: " + said, assertTimeoutPreemptively(PROMPT,
                    () -> run(settings, stall, "match", "--cluster", "--gpu", "vendor=nvidia")));
            Path table = Files.writeString(dir.resolve("akash-gpus.json"), "{\"10de\": {\"name\": \"nvidia\", "
                    + "\"devices\": {\"2330\": {\"name\": \"h100\", \"interface\": \"SXM5\", \"memory_size\": \"80Gi\"}}}}");
            assertOneLineFailure("gpu-detect akash: " + said, assertTimeoutPreemptively(PROMPT,
                    () -> run(settings, stall, "akash", "--cluster", "--akash-table", table.toString())));
        } finally {
            server.destroy();
        }
    }

    /**
     * The bound is on a list that stands still, not on a page's whole time: a page that keeps coming, a piece a second
     * for some 4 s, is read to its end under a 2 s bound (a 10 MB page of Nodes over a thin link is not cut off). The
     * mock server answers a page at once, so this one is the JDK's HTTP server, writing the Nodes page in chunks.
     */
    @Test
    void aSlowPageThatKeepsComingIsReadToItsEnd() throws Exception {
        HttpServer api = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        ExecutorService answering = Executors.newCachedThreadPool();
        api.setExecutor(answering);
        api.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            List<String> pieces = path.startsWith("/apis/gpu-detect.io/")
                    ? List.of("{\"apiVersion\": \"gpu-detect.io/v1alpha1\", \"kind\": \"GpuCapacityList\", \"metadata\": {}, "
                            + "\"items\": []}")
                    : List.of("{\"apiVersion\": \"v1\", ", "\"kind\": \"NodeList\", ", "\"metadata\": {}, ", "\"items\": [", "]}");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream body = exchange.getResponseBody()) {
                for (int i = 0; i < pieces.size(); i++) {
                    if (i > 0) {
                        Thread.sleep(1_000);
                    }
                    body.write(pieces.get(i).getBytes(StandardCharsets.UTF_8));
                    body.flush();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        api.start();
        try {
            Run r = assertTimeoutPreemptively(PROMPT, () -> run(kubeconfig("http://127.0.0.1:" + api.getAddress().getPort()),
                    Duration.ofSeconds(2), "inventory", "--cluster", "-o", "json"));
            assertEquals("", r.err());
            assertEquals(0, r.exit(), r.out());
            assertTrue(r.out().contains("\"nodes\""), r.out());
            assertTrue(r.took().compareTo(Duration.ofSeconds(3)) > 0, "the Nodes page took " + r.took()
                    + ": longer than the 2 s bound, or this proves nothing");
        } finally {
            api.stop(0);
            answering.shutdownNow();
        }
    }

    /** What fabric8 configures when it finds no kubeconfig and no service account: the in-cluster name. */
    @Test
    void noKubeconfig() throws IOException {
        assumeFalse(resolves("kubernetes.default.svc"), "this runs in a pod: the in-cluster name resolves");
        assertOneLineFailure("gpu-detect match: cannot reach the Kubernetes API at https://kubernetes.default.svc: "
                        + "unknown host kubernetes.default.svc (the in-cluster default: no kubeconfig was found in "
                        + "KUBECONFIG or ~/.kube/config)",
                run(Config::empty, "match", "--cluster", "--gpu", "vendor=nvidia"));
    }

    @Test
    void unreadableKubeconfig() throws IOException {
        Path file = dir.resolve("kubeconfig");
        Files.writeString(file, "apiVersion: v1\nkind: Config\nclusters: [ {");
        assertOneLineFailure("gpu-detect inventory: cannot read the kubeconfig: while parsing a flow node: expected "
                        + "the node content, but found '<stream end>' (line 3, column 14)",
                run(() -> Config.fromKubeconfig(file.toFile()), "inventory", "--cluster"));
    }

    private static boolean resolves(String host) {
        try {
            InetAddress.getByName(host);
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
