package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.gpudetect.testing.FaultyApiServer;
import io.gpudetect.testing.MockApiServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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

    /** The whole command line, with {@code settings} as the cluster's client settings of both commands. */
    static Run run(Supplier<Config> settings, String... args) {
        CommandLine cli = GpuDetectCommand.newCommandLine();
        ((InventoryCommand) cli.getSubcommands().get("inventory").getCommand()).cluster.settings = settings;
        ((MatchCommand) cli.getSubcommands().get("match").getCommand()).offers.cluster.settings = settings;
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
