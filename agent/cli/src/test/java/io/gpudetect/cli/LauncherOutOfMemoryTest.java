package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.gpudetect.bench.ClusterObjects;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.testing.MockApiServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A command that runs out of heap ends, as the repository's launcher starts it after {@code package}: with the JVM's
 * status 3 and its one line on stderr, within seconds. Before, {@code inventory}, {@code match} and {@code akash} with
 * {@code --cluster} hung for good once an HTTP client thread ran out of heap: fabric8 builds each page's body in a
 * {@code CompletableFuture} callback, the {@code OutOfMemoryError} ended that callback's own future, which nothing
 * reads, the page's future was never completed and {@code main} waited on it for ever, ignoring SIGTERM (no heap to
 * dispatch it); no uncaught-exception handler ever sees such an error. {@code -XX:+ExitOnOutOfMemoryError} in
 * {@code command-jvm.flags} ends the JVM at the first allocation that fails, wherever it is caught. Runs in the
 * {@code integration-test} phase (agent/cli/pom.xml).
 */
class LauncherOutOfMemoryTest {

    /** The repository's launcher, two folders above this module. */
    private static final Path LAUNCHER = Path.of("../../gpu-detect").toAbsolutePath().normalize();

    /** A mid-sized provider's cluster; the commands list it 500 objects a page, as from a real API server. */
    private static final int NODES = 2_000;

    /**
     * A heap that a 500-object page does not fit (the launcher's default under {@code MaxRAM=256m} is 126 MiB, which
     * the benches' 10,000 nodes fit: docs/performance.md).
     */
    private static final String SMALL_HEAP = "-Xmx16m";

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private HttpServer server;

    @BeforeEach
    void serveTheCluster() throws IOException {
        Assumptions.assumeTrue("integration-test".equals(System.getProperty("gpudetect.phase")),
                "runs after package, which writes the launcher's class paths (the integration-test phase)");
        ClusterObjects cluster = new ClusterObjects(NODES);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        String records = GpuCapacity.GROUP + "/" + GpuCapacity.VERSION;
        server.createContext("/apis/" + records + "/gpucapacities",
                exchange -> page(exchange, records, "GpuCapacityList", cluster::record));
        server.createContext("/api/v1/nodes", exchange -> page(exchange, "v1", "NodeList", cluster::node));
        server.start();
    }

    @AfterEach
    void stopServing() {
        if (server != null) {
            server.stop(0);
        }
    }

    /** Each command that lists the cluster; {@code akash} with Akash's table from a file (TABLE), not fetched. */
    @ParameterizedTest
    @ValueSource(strings = {"inventory --cluster -o json", "match --cluster --gpu vendor=nvidia,count=1 -o json",
            "akash --cluster --akash-table TABLE -o json"})
    void aClusterCommandOutOfHeapEndsWithStatusThreeAndTheJvmsLine(String arguments) throws Exception {
        Path kubeconfig = tmp.resolve("kubeconfig");
        MockApiServer.writeKubeconfig(kubeconfig, "http://127.0.0.1:" + server.getAddress().getPort());
        Path out = tmp.resolve("out.txt");
        Path err = tmp.resolve("err.txt");
        Path table = Files.writeString(tmp.resolve("akash-gpus.json"), "{\"10de\": {\"name\": \"nvidia\", \"devices\":"
                + " {\"2330\": {\"name\": \"h100\", \"interface\": \"SXM5\", \"memory_size\": \"80Gi\"}}}}");
        List<String> command = new ArrayList<>(List.of(LAUNCHER.toString()));
        for (String argument : arguments.split(" ")) {
            command.add(argument.equals("TABLE") ? table.toString() : argument);
        }
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        Map<String, String> env = pb.environment();
        env.put("KUBECONFIG", kubeconfig.toString());
        env.put("GPU_DETECT_JAVA_OPTS", SMALL_HEAP);
        Process p = pb.start();
        // A bound against a hang, not a timing: the error comes within seconds of the first page.
        boolean ended = p.waitFor(60, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly().waitFor();
        }
        assertTrue(ended, "no exit in 60 s with " + SMALL_HEAP + ": a JVM out of heap hangs; stderr: "
                + Files.readString(err));
        String stderr = Files.readString(err);
        assertEquals(3, p.exitValue(), stderr);
        List<String> lines = stderr.strip().lines().toList();
        assertFalse(lines.isEmpty(), "status 3 without a line on stderr");
        assertEquals("Terminating due to java.lang.OutOfMemoryError: Java heap space", lines.get(lines.size() - 1),
                stderr);
        assertFalse(stderr.contains("\tat "), stderr);
        assertEquals("", Files.readString(out), "the JVM's line belongs on stderr, not in the document a script reads"
                + " (-XX:+DisplayVMOutputToStderr)");
    }

    /**
     * The agent's flags end it the same way: {@code agent --once --dry-run} prints on stdout the changes it would make,
     * so the JVM's line goes to stderr there too ({@code -XX:+DisplayVMOutputToStderr} in {@code agent-jvm.flags};
     * without it the line was the whole of stdout). A replayed host and no API server: the dry run only prints.
     */
    @Test
    void theAgentOutOfHeapEndsWithStatusThreeAndItsLineOnStderr() throws Exception {
        Path out = tmp.resolve("agent-out.txt");
        Path err = tmp.resolve("agent-err.txt");
        Path bundle = Path.of("../../test-fixtures/live-bundles/h100-sxm5-80gb_580.159.04_vm").toAbsolutePath()
                .normalize();
        ProcessBuilder pb = new ProcessBuilder(LAUNCHER.toString(), "agent", "--node", "n1", "--once", "--dry-run",
                "--replay", bundle.toString(), "--port", "-1").redirectOutput(out.toFile()).redirectError(err.toFile());
        // 6 MiB: the agent's detection does not fit (its own flags give it 20).
        pb.environment().put("GPU_DETECT_JAVA_OPTS", "-Xms6m -Xmx6m");
        Process p = pb.start();
        boolean ended = p.waitFor(60, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly().waitFor();
        }
        String stderr = Files.readString(err);
        assertTrue(ended, "no exit in 60 s with -Xmx6m; stderr: " + stderr);
        assertEquals(3, p.exitValue(), stderr);
        List<String> lines = stderr.strip().lines().toList();
        assertFalse(lines.isEmpty(), "status 3 without a line on stderr");
        assertEquals("Terminating due to java.lang.OutOfMemoryError: Java heap space", lines.get(lines.size() - 1),
                stderr);
        assertEquals("", Files.readString(out), "the JVM's line belongs on stderr, not among the dry run's changes");
    }

    /**
     * A list of {@link #NODES} items answered as a real API server does with {@code limit}: that many items and a
     * {@code continue} token. Each page is written when asked for (a command out of heap asks for one).
     */
    private static void page(HttpExchange exchange, String apiVersion, String kind,
                             IntFunction<Map<String, Object>> item) throws IOException {
        int limit = NODES;
        int from = 0;
        String query = exchange.getRequestURI().getRawQuery();
        for (String parameter : query == null ? new String[0] : query.split("&")) {
            if (parameter.startsWith("limit=")) {
                limit = Integer.parseInt(parameter.substring("limit=".length()));
            } else if (parameter.startsWith("continue=")) {
                from = Integer.parseInt(parameter.substring("continue=".length()));
            }
        }
        int to = Math.min(NODES, from + limit);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(("{\"apiVersion\":\"" + apiVersion + "\",\"kind\":\"" + kind + "\",\"metadata\":{\"resourceVersion\":\"1\""
                + (to < NODES ? ",\"continue\":\"" + to + "\"" : "") + "},\"items\":[")
                .getBytes(StandardCharsets.UTF_8));
        for (int i = from; i < to; i++) {
            if (i > from) {
                body.write(',');
            }
            body.writeBytes(JSON.writeValueAsBytes(item.apply(i)));
        }
        body.writeBytes("]}".getBytes(StandardCharsets.UTF_8));
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.size());
        try (OutputStream response = exchange.getResponseBody()) {
            body.writeTo(response);
        }
    }
}
