package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.gpudetect.daemonset.Debian11Root.Result;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The product as shipped, run as a provider runs it: the archive the build just made (its runtime, its
 * {@code lib/}, its launcher), installed as daemonset/host/README.md says into a Debian 11 root
 * ({@link Debian11Root}), run as the system user its units name ({@code gpu-detect}, made from the archive's
 * {@code systemd/gpu-detect.sysusers}) against fabric8's mock API server in CRUD mode, started in this JVM on
 * loopback (the chroot shares this network) and named by a kubeconfig written into the root. Tests that ran from
 * Maven's class path passed while this archive's agent died at the informer's first list, a jar left out of
 * {@code lib/}.
 *
 * <p>Every run: the expected exit status, no stack trace on stderr, and (with {@code -Xlog:class+load}) every
 * class loaded from the archive's {@code runtime/} or {@code lib/}. Runs in the {@code integration-test} phase;
 * needs root and debootstrap, as {@link HostArchiveTest}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShippedArchiveTest {

    private static final String INSTALLED = "/opt/gpu-detect-" + Debian11Root.VERSION;
    private static final String GPU_DETECT = "/opt/gpu-detect/bin/gpu-detect";
    /** The test's folder in the root, owned by the unprivileged user: kubeconfig, bundles, logs. */
    private static final String WORK = "/tmp/gpu-detect-shipped";
    private static final String KUBECONFIG = WORK + "/kubeconfig";
    /** The H100 host gpu-detect recorded itself: its nvidia-smi output, and the whole live bundle (NVML, sysfs). */
    private static final Path H100_TEXT = Chart.MODULE.resolve("../test-fixtures/live-bundles/h100-sxm5-80gb_580.159.04_vm-raw")
            .normalize();
    private static final Path H100_LIVE = Chart.MODULE.resolve("../test-fixtures/live-bundles/h100-sxm5-80gb_580.159.04_vm")
            .normalize();
    private static final String NODE = "shipped-once";
    private static final String LONG_RUNNING_NODE = "shipped-agent";
    private static final String GROUP_VERSION = "gpu-detect.io/v1alpha1";

    private static Debian11Root debian;
    private static KubernetesMockServer server;
    private static KubernetesClient client;
    private static int uid;
    private static int gid;

    @BeforeAll
    static void installAndStartTheApiServer() throws Exception {
        debian = Debian11Root.prepare("ShippedArchiveTest");
        // Installed as daemonset/host/README.md says: unpacked into /opt, linked as /opt/gpu-detect, then
        // `sudo gpu-detect --version`, which writes the start-up archives.
        Debian11Root.run(List.of("rm", "-rf", debian.resolve(INSTALLED).toString(), debian.resolve(WORK).toString()), 60);
        Files.createDirectories(debian.resolve("/opt"));
        Result unpacked = Debian11Root.run(List.of("tar", "-xzf", Debian11Root.ARCHIVE.toString(), "-C",
                debian.resolve("/opt").toString()), 120);
        assertEquals(0, unpacked.exit(), unpacked.output());
        Path link = debian.resolve("/opt/gpu-detect");
        Files.deleteIfExists(link);
        Files.createSymbolicLink(link, Path.of(INSTALLED));
        Result version = debian.chroot(0, GPU_DETECT, "--version");
        assertEquals(0, version.exit(), version.output());
        assertNoStackTrace(version);

        // The user the units run as, made by systemd-sysusers from the archive's own file.
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/systemd-sysusers")), "systemd-sysusers is not "
                + "installed (Debian package systemd; .ci/run installs it): the archive is not run as the units' user");
        Result sysusers = Debian11Root.run(List.of("systemd-sysusers", "--root=" + debian.path(),
                debian.resolve(INSTALLED + "/systemd/gpu-detect.sysusers").toString()), 60);
        assertEquals(0, sysusers.exit(), "systemd-sysusers (Debian package systemd): " + sysusers.output());
        String passwd = Files.readAllLines(debian.resolve("/etc/passwd")).stream()
                .filter(l -> l.startsWith("gpu-detect:")).findFirst()
                .orElseThrow(() -> new AssertionError("no user gpu-detect in the root's /etc/passwd"));
        String[] fields = passwd.split(":");
        uid = Integer.parseInt(fields[2]);
        gid = Integer.parseInt(fields[3]);
        assertTrue(uid > 0 && uid < 1000, "a system user: " + passwd);

        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        client = server.createClient();
        // The GpuCapacity CRD as the chart installs it (daemonset/crds/), known to the CRUD server by its scope.
        CustomResourceDefinition crd;
        try (Stream<Path> files = Files.list(Chart.MODULE.resolve("crds"))) {
            crd = Serialization.unmarshal(Files.readString(files.findFirst().orElseThrow()), CustomResourceDefinition.class);
        }
        server.expectCustomResource(CustomResourceDefinitionContext.fromCrd(crd));
        client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
        for (String node : List.of(NODE, LONG_RUNNING_NODE)) {
            createNode(node);
        }

        Path work = Files.createDirectories(debian.resolve(WORK));
        Files.writeString(work.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: mock, cluster: {server: "http://127.0.0.1:%d"}}]
                users: [{name: mock, user: {token: mock}}]
                contexts: [{name: mock, context: {cluster: mock, user: mock}}]
                current-context: mock
                """.formatted(server.getPort()));
        copyBundle(H100_TEXT, work.resolve("h100-text"));
        Optional<Path> table = Debian11Root.sharedAkashTable();
        if (table.isPresent()) {
            Files.copy(table.get(), work.resolve("akash-gpus.json"), StandardCopyOption.REPLACE_EXISTING);
        }
        Debian11Root.run(List.of("chown", "-R", uid + ":" + gid, work.toString()), 30);
    }

    @AfterAll
    static void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.destroy();
        }
        if (debian != null) {
            debian.unmount("proc");
        }
    }

    private static void createNode(String name) {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().addToAllocatable("nvidia.com/gpu", new Quantity("1"))
                .addToCapacity("nvidia.com/gpu", new Quantity("1"))
                .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
    }

    private static void copyBundle(Path from, Path to) throws Exception {
        Files.createDirectories(to.getParent());
        Result copied = Debian11Root.run(List.of("cp", "-r", from.toString(), to.toString()), 30);
        assertEquals(0, copied.exit(), copied.output());
    }

    @Test
    @Order(1)
    void agentOnceLabelsTheNodeAndWritesItsRecord() throws Exception {
        Result once = gpuDetect("agent-once", "agent", "--node", NODE, "--once", "--port", "-1", "--replay", WORK + "/h100-text");
        assertEquals(0, once.exit(), once.output());
        assertLabelledWithItsRecord(NODE, "h100");
    }

    @Test
    @Order(2)
    void theLongRunningAgentLabelsAnswersItsProbesAndKeepsItsLabelsOnSigterm() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        Path log = debian.resolve(WORK + "/agent.err");
        ProcessBuilder pb = new ProcessBuilder(debian.line(uid, gid, environment("agent"), List.of(GPU_DETECT, "agent",
                "--node", LONG_RUNNING_NODE, "--replay", WORK + "/h100-text", "--port", String.valueOf(port),
                "--startup-jitter", "0", "--interval", "2s")))
                .redirectOutput(debian.resolve(WORK + "/agent.out").toFile()).redirectError(log.toFile());
        // chroot, env and the launcher each exec the next: the process is the agent's JVM, as in a unit or a pod.
        Process agent = pb.start();
        try {
            // A pass labels the node, then writes the record.
            waitFor(() -> {
                assertTrue(agent.isAlive(), () -> "the agent ended, status " + agent.exitValue() + ": " + read(log));
                return labels(LONG_RUNNING_NODE).containsKey("gpu-detect.io/gpu.count") && record(LONG_RUNNING_NODE) != null;
            }, Duration.ofSeconds(60), () -> "the long-running agent labelled no node or wrote no record: " + read(log));
            assertLabelledWithItsRecord(LONG_RUNNING_NODE, "h100");
            HttpClient http = HttpClient.newHttpClient();
            for (String probe : List.of("/healthz", "/readyz")) {
                HttpResponse<String> answer = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + probe)).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, answer.statusCode(), probe + ": " + answer.body());
            }
            Map<String, String> before = labels(LONG_RUNNING_NODE);
            agent.destroy();
            assertTrue(agent.waitFor(30, TimeUnit.SECONDS), "the agent did not stop within 30 s of SIGTERM");
            Result stopped = new Result(agent.exitValue(), "", read(log));
            assertEquals(0, stopped.exit(), stopped.err());
            assertNoStackTrace(stopped);
            assertTrue(stopped.err().contains("stopping; labels and record stay as they are"), stopped.err());
            assertEquals(before, labels(LONG_RUNNING_NODE), "SIGTERM removed or changed labels");
            assertClassesFromTheArchive("agent");
        } finally {
            agent.destroyForcibly().waitFor();
        }
    }

    @Test
    @Order(3)
    void inventoryFromTheClusterCountsBothNodes() throws Exception {
        Result inventory = gpuDetect("inventory", "inventory", "--cluster", "-o", "json");
        assertEquals(0, inventory.exit(), inventory.output());
        JsonNode doc = new ObjectMapper().readTree(inventory.out());
        List<String> nodes = new ArrayList<>();
        doc.get("nodes").forEach(n -> nodes.add(n.get("node").asText() + "=" + n.get("state").asText()));
        assertEquals(List.of(LONG_RUNNING_NODE + "=ok", NODE + "=ok"), nodes.stream().sorted().toList(), inventory.out());
    }

    @Test
    @Order(4)
    void matchFromTheClusterPlacesAReplicaOnAnH100() throws Exception {
        Result match = gpuDetect("match", "match", "--cluster", "--gpu", "vendor=nvidia,model=h100,count=1", "-o", "json");
        assertEquals(0, match.exit(), match.output());
        JsonNode placement = new ObjectMapper().readTree(match.out()).get("placements").get(0);
        assertEquals(1, placement.get("placed").asInt(), match.out());
    }

    @Test
    @Order(5)
    void akashFromTheClusterBidsOnTheH100OfBothNodes() throws Exception {
        Assumptions.assumeTrue(akashTable(), "skipped: no shared/data/akash-gpus.json above " + Chart.MODULE
                + " (Akash's table, which gpu-detect akash needs)");
        Result akash = gpuDetect("akash", "akash", "--cluster", "-o", "json");
        assertEquals(0, akash.exit(), akash.output());
        JsonNode doc = new ObjectMapper().readTree(akash.out());
        assertEquals("every-card-bid-on", doc.path("verdict").asText(), akash.out());
        Map<String, String> h100 = new java.util.TreeMap<>();
        doc.get("nodes").forEach(n -> h100.put(n.get("node").asText(),
                n.path("labels").path("akash.network/capabilities.gpu.vendor.nvidia.model.h100").asText()));
        assertEquals(Map.of(LONG_RUNNING_NODE, "1", NODE, "1"), h100, akash.out());
    }

    @Test
    @Order(6)
    void recordThenReplayAsTheUnprivilegedUser() throws Exception {
        Result record = gpuDetect("record", "record", WORK + "/recorded");
        assertEquals(0, record.exit(), record.output());
        assertTrue(Files.isRegularFile(debian.resolve(WORK + "/recorded/bundle.json")));
        Result replay = gpuDetect("replay", "--output", "json", "--replay", WORK + "/recorded");
        assertEquals(0, replay.exit(), replay.output());
        assertTrue(new ObjectMapper().readTree(replay.out()).path("complete").asBoolean(), replay.out());
    }

    /** The whole live recording of the H100 host (NVML's answer and sysfs), as gpu-detect record wrote it. */
    @Test
    @Order(7)
    void theLiveH100BundleLabelsANodeAsAnH100() throws Exception {
        copyBundle(H100_LIVE, debian.resolve(WORK + "/h100"));
        Debian11Root.run(List.of("chown", "-R", uid + ":" + gid, debian.resolve(WORK + "/h100").toString()), 30);
        createNode("shipped-h100");
        Result once = gpuDetect("agent-h100", "agent", "--node", "shipped-h100", "--once", "--port", "-1",
                "--profiles", "gpu-detect,nvidia", "--replay", WORK + "/h100");
        assertEquals(0, once.exit(), once.output());
        assertLabelledWithItsRecord("shipped-h100", "h100");
        assertTrue(labels("shipped-h100").getOrDefault("nvidia.com/gpu.product", "").startsWith("NVIDIA-H100"),
                labels("shipped-h100").toString());
        Result replay = gpuDetect("replay-h100", "--output", "json", "--replay", WORK + "/h100");
        assertEquals(0, replay.exit(), replay.output());
    }

    /**
     * Runs the installed launcher in the root as the unprivileged user, with the kubeconfig and a class-loading
     * log named after {@code name}; checks that stderr has no stack trace and every class came from the archive.
     */
    private static Result gpuDetect(String name, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(GPU_DETECT));
        command.addAll(List.of(args));
        Result result = Debian11Root.run(new ProcessBuilder(debian.line(uid, gid, environment(name), command)), 120);
        assertNoStackTrace(result);
        assertClassesFromTheArchive(name);
        return result;
    }

    private static Map<String, String> environment(String name) {
        return Map.of("KUBECONFIG", KUBECONFIG,
                "GPU_DETECT_JAVA_OPTS", "-Xlog:class+load=info:file=" + WORK + "/" + name + ".classes",
                "GPU_DETECT_AKASH_TABLE", akashTable() ? WORK + "/akash-gpus.json" : "none");
    }

    private static boolean akashTable() {
        return Files.isRegularFile(debian.resolve(WORK + "/akash-gpus.json"));
    }

    private static void assertNoStackTrace(Result result) {
        assertFalse(result.err().contains("\tat "), result.err());
        assertFalse(result.err().contains("Exception in thread"), result.err());
        assertFalse(result.err().contains("Caused by:"), result.err());
    }

    /**
     * Every class a run loaded came from the archive: its runtime's module image or class-data-sharing archive,
     * a jar in its lib/, or was made at run time (lambdas, proxies). Nothing from the build machine.
     */
    private static void assertClassesFromTheArchive(String name) throws IOException {
        Path log = debian.resolve(WORK + "/" + name + ".classes");
        assertTrue(Files.isRegularFile(log), "no class-loading log " + log);
        List<String> foreign = new ArrayList<>();
        int fromLibOrSharedArchive = 0;
        for (String line : Files.readAllLines(log)) {
            int at = line.indexOf(" source: ");
            if (at < 0) {
                continue;
            }
            String source = line.substring(at + " source: ".length());
            if (source.startsWith("file:") || source.startsWith("jar:")) {
                if (source.contains(":" + INSTALLED + "/lib/")) {
                    fromLibOrSharedArchive++;
                } else {
                    foreign.add(line);
                }
            } else if (source.equals("shared objects file")) {
                // A run whose classes all come from the class-data-sharing archive dumped in lib/ (a replay
                // since it reads its bundle files without databind) loads none from the jars themselves.
                fromLibOrSharedArchive++;
            }
        }
        assertEquals(List.of(), foreign, name + ": classes loaded from outside the archive");
        assertTrue(fromLibOrSharedArchive > 0, name + ": no class came from lib/ or its archive (was the log written?)");
    }

    private static void assertLabelledWithItsRecord(String node, String model) {
        Map<String, String> labels = labels(node);
        assertEquals("1", labels.get("gpu-detect.io/gpu.count"), labels.toString());
        assertEquals(model, labels.get("gpu-detect.io/gpu.model"), labels.toString());
        GenericKubernetesResource record = record(node);
        assertNotNull(record, "no GpuCapacity record " + node);
        JsonNode gpus = new ObjectMapper().valueToTree(record.getAdditionalProperties().get("spec")).path("gpus");
        assertEquals(1, gpus.size(), record.toString());
        assertEquals(model, gpus.get(0).path("model").asText(), record.toString());
    }

    private static GenericKubernetesResource record(String node) {
        return client.genericKubernetesResources(GROUP_VERSION, "GpuCapacity").withName(node).get();
    }

    private static Map<String, String> labels(String name) {
        Node node = client.nodes().withName(name).get();
        return node == null || node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    }

    private static void waitFor(Supplier<Boolean> condition, Duration limit, Supplier<String> otherwise)
            throws InterruptedException {
        long end = System.nanoTime() + limit.toNanos();
        while (!condition.get()) {
            if (System.nanoTime() > end) {
                throw new AssertionError(otherwise.get());
            }
            Thread.sleep(200);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(" + file + " unreadable: " + e.getMessage() + ")";
        }
    }
}
