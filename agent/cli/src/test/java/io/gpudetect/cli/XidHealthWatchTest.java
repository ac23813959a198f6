package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
import io.gpudetect.model.Health;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.GpuCapacitySpec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole agent command on a live host whose NVML is the stand-in, against the tests' API server: an Xid 79
 * injected while the agent waits for events reaches the record and the metrics within 5 s, and the GPU, back
 * after a driver reload, is healthy again. The agent is ended as the kubelet ends it, with SIGTERM.
 */
class XidHealthWatchTest {

    private static final String NODE = "gpu-node-1";
    private static final String ADDRESS = "0000:18:00.0";

    @TempDir
    Path dir;

    /** A host with the fake h100 scenario's one GPU on its PCI bus, bound to nvidia, and no vendor tools. */
    private Path host() throws Exception {
        Path root = dir.resolve("host");
        Path f = Files.createDirectories(root.resolve("sys/devices/pci0000:00").resolve(ADDRESS));
        Files.writeString(f.resolve("class"), "0x030200\n");
        Files.writeString(f.resolve("vendor"), "0x10de\n");
        Files.writeString(f.resolve("device"), "0x2330\n");
        Files.writeString(f.resolve("subsystem_vendor"), "0x10de\n");
        Files.writeString(f.resolve("subsystem_device"), "0x16c1\n");
        Files.writeString(f.resolve("revision"), "0xa1\n");
        Path driver = Files.createDirectories(root.resolve("sys/bus/pci/drivers/nvidia"));
        Files.createSymbolicLink(f.resolve("driver"), f.relativize(driver));
        Path devices = Files.createDirectories(root.resolve("sys/bus/pci/devices"));
        Files.createSymbolicLink(devices.resolve(ADDRESS), devices.relativize(f));
        return root;
    }

    /** The stand-in compiled here (this module's build does not compile it): native's script, gcc. */
    private Path driverRoot() throws Exception {
        Path script = Path.of("../../native/src/test/c/build-fake-nvml.sh");
        Process build = new ProcessBuilder("sh", script.toString(), dir.resolve("fake-nvml").toString())
                .redirectErrorStream(true).start();
        String said = new String(build.getInputStream().readAllBytes());
        assertEquals(0, build.waitFor(), said);
        Path built = dir.resolve("fake-nvml/current/usr/lib64/libnvidia-ml.so.1");
        Path lib = Files.createDirectories(dir.resolve("driver/usr/lib64"));
        Files.copy(built, lib.resolve("libnvidia-ml.so.1"));
        Files.writeString(lib.resolve("fake-nvml-scenario"), "h100\n");
        return dir.resolve("driver");
    }

    @Test
    void anXid79ReachesTheRecordAndTheMetricsWithinFiveSecondsAndADriverReloadClearsIt() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/bin/kill")) || Files.isExecutable(Path.of("/usr/bin/kill")),
                "needs kill(1)");
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses), false);
        server.init();
        server.expectCustomResource(CustomResourceDefinitionContext.fromCustomResourceType(GpuCapacity.class));
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://localhost:" + server.getPort())
                .withRequestRetryBackoffLimit(0).withNamespace("default").build();
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path host = host();
        Path driverRoot = driverRoot();
        Path control = driverRoot.resolve("usr/lib64/fake-nvml-events");
        StringWriter out = new StringWriter();
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata()
                    .withNewStatus().addToAllocatable("nvidia.com/gpu", new Quantity("1")).endStatus().build()).create();
            picocli.CommandLine cmd = GpuDetectCommand.newCommandLine();
            cmd.setOut(new PrintWriter(out, true));
            cmd.setErr(new PrintWriter(out, true));
            AgentCommands.useClientSettings(cmd, () -> config);
            int[] code = {-1};
            Thread agent = new Thread(() -> code[0] = cmd.execute("agent", "--node", NODE, "--host-root", host.toString(),
                    "--driver-root", driverRoot.toString(), "--akash-table", "none", "--port", String.valueOf(port),
                    "--interval", "1h", "--startup-jitter", "0", "--min-trigger-interval", "100ms"));
            agent.start();
            try {
                waitFor(() -> health(client) == Health.Status.OK && metrics(port).contains(
                        "gpu_detect_health_events_watched_gpus 1"), 30, out);
                String before = metrics(port);
                assertTrue(before.contains("gpu_detect_gpu_health{pci_address=\"" + ADDRESS + "\",uuid=\""), before);

                long t0 = System.nanoTime();
                Files.writeString(control, "xid 0 79\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                waitFor(() -> health(client) == Health.Status.LOST && metrics(port).contains("state=\"lost\"} 1"), 5, out);
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                System.out.println("HEALTHWATCH Xid 79 -> record and metric changed in " + ms + " ms");
                String after = metrics(port);
                assertTrue(after.contains("gpu_detect_xid_events_total{xid=\"79\"} 1"), after);
                GpuCapacitySpec.GpuEntry gpu = client.resources(GpuCapacity.class).withName(NODE).get().getSpec().gpus().get(0);
                assertEquals(ADDRESS, gpu.pciAddress());

                Files.writeString(control, "reload\n", StandardOpenOption.APPEND);
                HttpResponse<String> post = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://localhost:" + port + "/detect")).POST(HttpRequest.BodyPublishers.noBody())
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertTrue(post.statusCode() == 202 || post.statusCode() == 429, post::body);
                waitFor(() -> health(client) == Health.Status.OK && metrics(port).contains("state=\"ok\"} 1"), 5, out);
                assertTrue(out.toString().contains("GPU answers again after it was lost"), out::toString);
            } finally {
                // Only while the command runs does its handler take SIGTERM: sent later, it would end this JVM.
                if (agent.isAlive()) {
                    new ProcessBuilder("kill", "-TERM", String.valueOf(ProcessHandle.current().pid())).inheritIO()
                            .start().waitFor();
                }
                agent.join(20_000);
                server.destroy();
                System.out.println("HEALTHWATCH agent log:\n" + out);
            }
            assertEquals(0, code[0], out::toString);
        }
    }

    private static Health.Status health(KubernetesClient client) {
        GpuCapacity record = client.resources(GpuCapacity.class).withName(NODE).get();
        if (record == null || record.getSpec() == null || record.getSpec().gpus().isEmpty()) {
            return null;
        }
        return record.getSpec().gpus().get(0).health();
    }

    private static String metrics(int port) {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/metrics"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            return "";
        }
    }

    private static void waitFor(BooleanSupplier condition, int seconds, StringWriter log) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + seconds + " s; the agent said:\n" + log);
            }
            Thread.sleep(50);
        }
    }
}
