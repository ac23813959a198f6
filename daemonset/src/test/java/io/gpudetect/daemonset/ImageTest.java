package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.gpudetect.daemonset.Debian11Root.Result;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The agent's image, built here without a registry from what {@code package} made (the dist the host archive
 * is made of), or, when this build made a release, the release's (the linux/amd64 image of its OCI index:
 * {@link ReleaseFiles}), and run as the chart's pod spec says: the pod spec is read from the rendered chart, never
 * retyped. Built by {@code src/test/image/build-image.sh} with buildah from scratch, with the Dockerfile's last
 * stage (user, entrypoint, command, env: read from {@code daemonset/Dockerfile}) and a root standing in for its
 * distroless base; run by podman with runc. The container's agent talks to fabric8's mock server (CRUD, HTTPS)
 * in this JVM through its in-cluster configuration: a service-account token, CA and namespace where
 * Kubernetes mounts them, {@code KUBERNETES_SERVICE_HOST} and {@code _PORT}, the host's network.
 * Runs in the {@code integration-test} phase; needs root and Debian's podman, buildah and runc.
 */
class ImageTest {

    private static final String IMAGE = "localhost/gpu-detect:image-test";
    private static final String CONTAINER = "gpu-detect-image-test";
    private static final String NODE = "image-test-node";
    private static final Path DIST = Chart.MODULE.resolve("target/dist/gpu-detect");
    private static final Path WORK = Chart.MODULE.resolve("target/image-test");
    private static final Path BUILD_SCRIPT = Chart.MODULE.resolve("src/test/image/build-image.sh");
    /** The H100's recorded PCI function (class, ids, config space): ours, so it is in the project. */
    private static final Path H100_SYS = Chart.MODULE
            .resolve("../test-fixtures/live-bundles/h100-sxm5-80gb_580.159.04_vm/sys/devices/pci0000:00/0000:00:06.0")
            .normalize();
    /** Where the stand-in NVML (native/src/test/c/fake_nvml.c) puts its H100. */
    private static final String H100_ADDRESS = "0000:18:00.0";
    private static final String SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount";

    private static Podman podman;
    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void buildImage() throws Exception {
        skipUnless("integration-test".equals(System.getProperty("gpudetect.phase")),
                "runs in the integration-test phase, after package has built the dist");
        assertTrue(Files.isDirectory(DIST.resolve("runtime")), DIST + " is missing: it is built by `package` (profile dist)");
        String why = Podman.unusable();
        skipUnless(why == null, "the image is not built or run: " + why);
        podman = Podman.create(Files.createDirectories(WORK.resolve("podman")));
        podman.podman(60, "rm", "-f", "-t", "0", CONTAINER);
        podman.podman(60, "rmi", "-f", IMAGE);
        long start = System.nanoTime();
        if (ReleaseFiles.built() && Files.isRegularFile(ReleaseFiles.image())) {
            // The release's image, as a user loads it: the index's linux/amd64 image out of the OCI archive.
            Result loaded = podman.podman(300, "pull", "--arch", "amd64", "--os", "linux",
                    "oci-archive:" + ReleaseFiles.image());
            assertEquals(0, loaded.exit(), loaded.output());
            String id = loaded.out().strip().lines().reduce((a, b) -> b).orElseThrow();
            Result tagged = podman.podman(60, "tag", id, IMAGE);
            assertEquals(0, tagged.exit(), tagged.output());
            System.out.printf("ImageTest: loaded the linux/amd64 image of %s in %.1f s, %d MB%n", ReleaseFiles.image(),
                    (System.nanoTime() - start) / 1e9, imageInspect().path("Size").asLong() / 1_000_000);
            return;
        }
        List<String> command = new ArrayList<>(List.of("sh", BUILD_SCRIPT.toString(), DIST.toString(), IMAGE));
        command.addAll(DockerfileRecipe.read().buildahConfig());
        Result built = podman.command(300, command);
        assertEquals(0, built.exit(), built.output());
        System.out.printf("ImageTest: built %s in %.1f s, %d MB%n", IMAGE, (System.nanoTime() - start) / 1e9,
                imageInspect().path("Size").asLong() / 1_000_000);
    }

    /** Surefire reports nothing for a class whose set-up is skipped: the reason goes to the build's output too. */
    private static void skipUnless(boolean ok, String why) {
        if (!ok) {
            System.out.println("ImageTest skipped: " + why);
        }
        Assumptions.assumeTrue(ok, "ImageTest skipped: " + why);
    }

    @AfterAll
    static void removeContainer() throws Exception {
        if (podman != null) {
            podman.podman(60, "rm", "-f", "-t", "0", CONTAINER);
        }
    }

    private static JsonNode imageInspect() throws Exception {
        Result inspect = podman.podman(60, "image", "inspect", IMAGE);
        assertEquals(0, inspect.exit(), inspect.output());
        return JSON.readTree(inspect.out()).get(0);
    }

    /** The public recipe and the image CI runs agree: a change to either without the other fails here. */
    @Test
    void theImageHasTheDockerfilesUserEntrypointCommandEnvAndLayout() throws Exception {
        DockerfileRecipe recipe = DockerfileRecipe.read();
        JsonNode config = imageInspect().path("Config");
        assertEquals(recipe.user(), config.path("User").asText());
        assertEquals(recipe.entrypoint(), strings(config.path("Entrypoint")));
        assertEquals(recipe.cmd(), strings(config.path("Cmd")));
        Map<String, String> env = new HashMap<>();
        config.path("Env").forEach(e -> env.put(e.asText().split("=", 2)[0], e.asText().split("=", 2)[1]));
        recipe.env().forEach((k, v) -> assertEquals(v, env.get(k), "ENV " + k));
        // The rest is what the distroless base's nonroot variant sets, which build-image.sh stands in for.
        assertEquals(Set.of("PATH", "SSL_CERT_FILE"), env.keySet().stream().filter(k -> !recipe.env().containsKey(k))
                .collect(Collectors.toSet()));
        assertEquals("gcr.io/distroless/cc-debian12:nonroot", recipe.from(), "build-image.sh stands in for this base");
        assertEquals("/home/nonroot", config.path("WorkingDir").asText());
        // The chart runs the image as the Dockerfile's user.
        PodSecurityContext pod = Pods.pod(Chart.render()).getSecurityContext();
        assertEquals(recipe.user(), pod.getRunAsUser() + ":" + pod.getRunAsGroup());

        // Layout: /opt/gpu-detect is the dist, file for file, plus the archive stage's class-data-sharing dump.
        // What build-image.sh copies in, as the Dockerfile does: Debian 12's zlib (the runtime's java links it; the
        // base has none) and the archive stage's /opt/gpu-detect.
        assertEquals(List.of(new DockerfileRecipe.Copy("zlib", "/libz.so.1", "/usr/lib/libz.so.1"),
                new DockerfileRecipe.Copy("archive", "/opt/gpu-detect",
                "/opt/gpu-detect")), recipe.copies());
        assertEquals("debian:12-slim", recipe.stages().get("zlib"), "build-image.sh copies this host's Debian 12 zlib");
        Result mounted = podman.podman(60, "image", "mount", IMAGE);
        assertEquals(0, mounted.exit(), mounted.output());
        try {
            Path root = Path.of(mounted.out().strip());
            Set<String> expected = files(DIST);
            expected.add("lib/gpu-detect-agent.jsa");
            assertEquals(expected, files(root.resolve("opt/gpu-detect")));
            assertTrue(Files.size(root.resolve("opt/gpu-detect/lib/gpu-detect-agent.jsa")) > 1_000_000,
                    "the archive stage's dump (-Xshare:dump) made lib/gpu-detect-agent.jsa");
            String java = recipe.entrypoint().get(0);
            assertTrue(Files.isExecutable(root.resolve(java.substring(1))), java + " is not in the image");
        } finally {
            podman.podman(60, "image", "unmount", IMAGE);
        }
    }

    /** The archive stage's dump is mapped by the image's entrypoint with the chart's JVM flags (else it costs memory). */
    @Test
    void theClassDataSharingArchiveIsUsedWithTheChartsFlags() throws Exception {
        Container agent = Pods.agent(Chart.render());
        String options = agent.getEnv().stream().filter(e -> e.getName().equals("JAVA_TOOL_OPTIONS")).findFirst()
                .orElseThrow().getValue();
        Result version = podman.podman(60, "run", "--rm", "--read-only", "--read-only-tmpfs=false", "--tmpfs", "/tmp",
                "--user", Pods.pod(Chart.render()).getSecurityContext().getRunAsUser().toString(), "--env",
                "JAVA_TOOL_OPTIONS=" + options + " -Xlog:class+load=info:stdout", IMAGE, "--version");
        assertEquals(0, version.exit(), version.output());
        assertTrue(version.output().contains("io.gpudetect.cli.GpuDetectCommand source: shared objects file"),
                "the agent's classes do not come from lib/gpu-detect-agent.jsa:\n"
                        + version.output().lines().filter(l -> l.contains("io.gpudetect.cli.")).toList());
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static Set<String> files(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(p -> !Files.isDirectory(p)).map(p -> dir.relativize(p).toString())
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    @Test
    void runAsTheChartsPodSpecItLabelsTheNodeThroughNvmlAndKeepsItsLabelsOnSigterm() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        // The only value changed from the defaults: the agent's port, as the container shares this host's network.
        RenderedChart chart = Chart.render("http:\n  port: " + port + "\n");
        PodSpec pod = Pods.pod(chart);
        Container agent = Pods.agent(chart);

        Map<io.fabric8.mockwebserver.ServerRequest, java.util.Queue<io.fabric8.mockwebserver.ServerResponse>> responses =
                new HashMap<>();
        MockWebServer https = new MockWebServer();
        KubernetesMockServer server = new KubernetesMockServer(new Context(), https, responses,
                new KubernetesMixedDispatcher(responses), true);
        server.init();
        try (KubernetesClient client = server.createClient()) {
            CustomResourceDefinition crd = RenderedChart.parse(Chart.crdsText()).all(CustomResourceDefinition.class)
                    .get(0);
            CustomResourceDefinitionVersion stored = crd.getSpec().getVersions().stream()
                    .filter(CustomResourceDefinitionVersion::getStorage).findFirst().orElseThrow();
            server.expectCustomResource(new CustomResourceDefinitionContext.Builder()
                    .withGroup(crd.getSpec().getGroup()).withVersion(stored.getName())
                    .withKind(crd.getSpec().getNames().getKind()).withPlural(crd.getSpec().getNames().getPlural())
                    .withScope(crd.getSpec().getScope()).build());
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().withNewStatus()
                    .addToAllocatable("nvidia.com/gpu", new Quantity("1")).endStatus().build()).create();

            List<String> run = podmanRun(chart, server, https);
            podman.podman(60, "rm", "-f", "-t", "0", CONTAINER);
            long start = System.nanoTime();
            Result started = podman.podman(60, run);
            assertEquals(0, started.exit(), started.output());

            // Liveness: the kubelet's first probe comes initialDelaySeconds after the start.
            Probe liveness = agent.getLivenessProbe();
            Probe readiness = agent.getReadinessProbe();
            HttpClient http = HttpClient.newHttpClient();
            long liveAt = waitFor(start, liveness.getInitialDelaySeconds(),
                    () -> get(http, port, liveness.getHttpGet().getPath(), liveness.getTimeoutSeconds()) == 200);
            assertTrue(liveAt >= 0, "/healthz did not answer 200 within initialDelaySeconds ("
                    + liveness.getInitialDelaySeconds() + " s):\n" + logs());

            // Labels through NVML: the stand-in's H100 (the driver version only NVML gives).
            // The agent waits a random start-up delay (at most 30 s by default: a DaemonSet's pods do not all start
            // their first pass together), then passes.
            long labelledAt = waitFor(start, 60, () -> {
                Map<String, String> labels = client.nodes().withName(NODE).get().getMetadata().getLabels();
                return labels != null && "h100".equals(labels.get("gpu-detect.io/gpu.model"));
            });
            assertTrue(labelledAt >= 0, "no labels within 60 s:\n" + logs());
            Map<String, String> labels = client.nodes().withName(NODE).get().getMetadata().getLabels();
            assertEquals("1", labels.get("gpu-detect.io/gpu.count"), labels.toString());
            // The driver version comes from NVML alone (the stand-in's, native/src/test/c/fake_nvml.c).
            assertEquals("550.54.15", labels.get("gpu-detect.io/gpu.vendor.nvidia.driver"), labels.toString());

            // Readiness within its probe settings once the pass is done.
            long readyAt = waitFor(start, (labelledAt / 1000) + (long) readiness.getPeriodSeconds()
                    * readiness.getFailureThreshold(),
                    () -> get(http, port, readiness.getHttpGet().getPath(), readiness.getTimeoutSeconds()) == 200);
            assertTrue(readyAt >= 0, "/readyz did not answer 200 within its probe settings:\n" + logs());

            // The record, written by the container.
            GenericKubernetesResource record = client.genericKubernetesResources(
                    crd.getSpec().getGroup() + "/" + stored.getName(), crd.getSpec().getNames().getKind())
                    .withName(NODE).get();
            assertNotNull(record, "no GpuCapacity " + NODE + ":\n" + logs());
            assertTrue(JSON.writeValueAsString(record).contains("H100"), JSON.writeValueAsString(record));

            // Memory: the container's java (its first process) stays under the chart's limit.
            Thread.sleep(5000);
            long rss = rssBytes();
            long limit = agent.getResources().getLimits().get("memory").getNumericalAmount().longValue();
            assertTrue(rss < limit, "RSS " + rss + " B is over the chart's limit " + limit + " B");

            // What the kernel says of the container's process: the chart's user, no capability, no privilege gain,
            // a read-only root with /tmp the only writable place.
            Map<String, String> status = processStatus();
            assertEquals(List.of("65532", "65532", "65532", "65532"), List.of(status.get("Uid").split("\\s+")));
            assertEquals(0L, Long.parseLong(status.get("CapEff"), 16), "effective capabilities");
            assertEquals(0L, Long.parseLong(status.get("CapPrm"), 16), "permitted capabilities");
            assertEquals("1", status.get("NoNewPrivs"));
            JsonNode container = JSON.readTree(podman.podman(60, "inspect", CONTAINER).out()).get(0);
            assertTrue(container.path("HostConfig").path("ReadonlyRootfs").asBoolean());
            List<String> writable = new ArrayList<>();
            container.path("HostConfig").path("Tmpfs").fieldNames().forEachRemaining(writable::add);
            container.path("Mounts").forEach(m -> {
                if (m.path("RW").asBoolean()) {
                    writable.add(m.path("Destination").asText());
                }
            });
            assertEquals(List.of("/tmp"), writable);

            // SIGTERM, with the pod's grace period: exit 0, labels kept.
            Long grace = pod.getTerminationGracePeriodSeconds();
            long graceSeconds = grace == null ? 30 : grace;
            Result stopped = podman.podman((int) graceSeconds + 30, "stop", "-t", String.valueOf(graceSeconds), CONTAINER);
            assertEquals(0, stopped.exit(), stopped.output());
            assertEquals(labels, client.nodes().withName(NODE).get().getMetadata().getLabels());
            String logs = logs();
            assertFalse(logs.contains("\tat ") || logs.contains("Exception"), "a stack trace in the logs:\n" + logs);
            // A JVM that SIGTERM shuts down exits 143: the agent must handle the signal and end with 0, as documented.
            assertEquals("0", podman.podman(60, "inspect", "--format", "{{.State.ExitCode}}", CONTAINER).out().strip(),
                    "the agent's exit status after SIGTERM:\n" + logs);
            java.util.regex.Matcher delay = java.util.regex.Pattern.compile("startupDelay=PT([0-9.]+)S").matcher(logs);
            System.out.printf("ImageTest: container agent healthy after %.1f s, labelled the node after %.1f s (its "
                    + "random start-up delay %s s included), ready after %.1f s, RSS %d MiB (limit %d MiB)%n",
                    liveAt / 1e3, labelledAt / 1e3, delay.find() ? delay.group(1) : "?", readyAt / 1e3, rss >> 20,
                    limit >> 20);
        } finally {
            server.destroy();
        }
    }

    /** {@code podman run} for the chart's pod: its user, security context, env, mounts and args. */
    private static List<String> podmanRun(RenderedChart chart, KubernetesMockServer server, MockWebServer https)
            throws Exception {
        PodSpec pod = Pods.pod(chart);
        Container agent = Pods.agent(chart);
        List<String> run = new ArrayList<>(List.of("run", "--detach", "--name", CONTAINER, "--network", "host"));
        PodSecurityContext podSecurity = pod.getSecurityContext();
        SecurityContext security = agent.getSecurityContext();
        assertTrue(podSecurity.getRunAsNonRoot() && security.getRunAsNonRoot());
        run.addAll(List.of("--user", podSecurity.getRunAsUser() + ":" + podSecurity.getRunAsGroup()));
        assertEquals("RuntimeDefault", security.getSeccompProfile().getType()); // podman's default profile
        if (security.getReadOnlyRootFilesystem()) {
            // podman would add writable tmpfs mounts of its own to a read-only root: none, only the chart's.
            run.addAll(List.of("--read-only", "--read-only-tmpfs=false"));
        }
        if (!security.getAllowPrivilegeEscalation()) {
            run.addAll(List.of("--security-opt", "no-new-privileges"));
        }
        assertFalse(security.getPrivileged());
        Capabilities caps = security.getCapabilities();
        caps.getDrop().forEach(c -> run.addAll(List.of("--cap-drop", c)));
        assertTrue(caps.getAdd() == null || caps.getAdd().isEmpty(), "the agent adds no capability");

        // The memory limit, enforced by the kernel as the kubelet has it enforced (cgroup memory limit).
        Quantity memory = agent.getResources().getLimits().get("memory");
        run.addAll(List.of("--memory", String.valueOf(memory.getNumericalAmount().longValue())));

        // Env: values as rendered; fieldRefs as the kubelet fills them; the service's address as it sets it.
        for (EnvVar e : agent.getEnv()) {
            String value = e.getValue();
            if (e.getValueFrom() != null) {
                value = switch (e.getValueFrom().getFieldRef().getFieldPath()) {
                    case "spec.nodeName" -> NODE;
                    case "metadata.namespace" -> Chart.NAMESPACE;
                    default -> throw new AssertionError("no stand-in for " + e.getValueFrom());
                };
            }
            run.addAll(List.of("--env", e.getName() + "=" + value));
        }
        run.addAll(List.of("--env", "KUBERNETES_SERVICE_HOST=" + server.getHostName(), "--env",
                "KUBERNETES_SERVICE_PORT=" + server.getPort()));

        // Volumes: the host's /sys and driver root stand-ins, an emptyDir as tmpfs, the service account's files.
        Path host = fakeHost();
        for (VolumeMount m : agent.getVolumeMounts()) {
            Volume v = Pods.volume(chart, m.getName());
            // HostToContainer is a slave mount (the kubelet's rslave); podman's default is private.
            String ro = (Boolean.TRUE.equals(m.getReadOnly()) ? ":ro" : ":rw")
                    + ("HostToContainer".equals(m.getMountPropagation()) ? ",rslave" : "");
            if (v.getEmptyDir() != null) {
                Quantity size = v.getEmptyDir().getSizeLimit();
                run.addAll(List.of("--tmpfs", m.getMountPath() + ":rw,nosuid,nodev,mode=1777"
                        + (size == null ? "" : ",size=" + size.getNumericalAmount().longValue())));
            } else if ("host-sys".equals(m.getName())) {
                assertEquals("/sys", v.getHostPath().getPath());
                run.addAll(List.of("--volume", host.resolve("sys") + ":" + m.getMountPath() + ro));
            } else if ("host-meminfo".equals(m.getName())) {
                assertEquals("/proc/meminfo", v.getHostPath().getPath());
                run.addAll(List.of("--volume", host.resolve("proc/meminfo") + ":" + m.getMountPath() + ro));
            } else if ("driver-root".equals(m.getName())) {
                run.addAll(List.of("--volume", host.resolve("driver-root") + ":" + m.getMountPath() + ro));
            } else {
                throw new AssertionError("no stand-in for the volume " + v.getName());
            }
        }
        assertTrue(pod.getAutomountServiceAccountToken());
        Path account = Files.createDirectories(WORK.resolve("serviceaccount"));
        // As Kubernetes writes it: the token alone, no line end (fabric8 sends the file as is; a newline kills the
        // agent at its first request).
        Files.writeString(account.resolve("token"), "image-test-token");
        Files.writeString(account.resolve("namespace"), Chart.NAMESPACE);
        Files.copy(Path.of(https.getSelfSignedCertificate().certificatePath()), account.resolve("ca.crt"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        // Kubernetes makes these files readable to the pod's user (the copied certificate was its owner's alone).
        Debian11Root.run(List.of("chmod", "-R", "a+rX", account.toString()), 60);
        run.addAll(List.of("--volume", account + ":" + SERVICE_ACCOUNT + ":ro"));

        run.add(IMAGE);
        run.addAll(agent.getArgs());
        return run;
    }

    /**
     * A host as the container sees it: a sysfs with the recorded H100's PCI function where the stand-in NVML
     * has it (and the links the kernel makes), and a driver root holding the stand-in {@code libnvidia-ml.so.1}.
     */
    private static Path fakeHost() throws Exception {
        Path host = WORK.resolve("host");
        Debian11Root.run(List.of("rm", "-rf", host.toString()), 60);
        Path sys = host.resolve("sys");
        Path function = Files.createDirectories(sys.resolve("devices/pci0000:00").resolve(H100_ADDRESS));
        for (String file : List.of("class", "vendor", "device", "subsystem_vendor", "subsystem_device", "revision", "config")) {
            Files.copy(H100_SYS.resolve(file), function.resolve(file));
        }
        Path driver = Files.createDirectories(sys.resolve("bus/pci/drivers/nvidia"));
        Files.createSymbolicLink(function.resolve("driver"), function.relativize(driver));
        Path devices = Files.createDirectories(sys.resolve("bus/pci/devices"));
        Files.createSymbolicLink(devices.resolve(H100_ADDRESS), devices.relativize(function));
        Files.writeString(Files.createDirectories(host.resolve("proc")).resolve("meminfo"),
                "MemTotal:       263921060 kB\nMemFree:        250000000 kB\n");

        Path built = Path.of(System.getProperty("gpudetect.fakeNvml", "target/fake-nvml"))
                .resolve("current/usr/lib64/libnvidia-ml.so.1");
        assertTrue(Files.isRegularFile(built), "the stand-in NVML library is not built at " + built + " (needs gcc)");
        Path lib = Files.createDirectories(host.resolve("driver-root/usr/lib64"));
        Files.copy(built, lib.resolve("libnvidia-ml.so.1"));
        Files.writeString(lib.resolve("fake-nvml-scenario"), "h100\n");
        Debian11Root.run(List.of("chmod", "-R", "a+rX", WORK.toString()), 60);
        return host;
    }

    /** {@code /proc/PID/status} of the container's first process (its java: the entrypoint has no shell). */
    private static Map<String, String> processStatus() throws Exception {
        String pid = podman.podman(60, "inspect", "--format", "{{.State.Pid}}", CONTAINER).out().strip();
        Map<String, String> status = new HashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc", pid, "status"))) {
            int colon = line.indexOf(':');
            status.put(line.substring(0, colon), line.substring(colon + 1).strip());
        }
        assertEquals("java", status.get("Name"));
        return status;
    }

    private static long rssBytes() throws Exception {
        return Long.parseLong(processStatus().get("VmRSS").replaceAll("[^0-9]", "")) * 1024;
    }

    private static String logs() throws Exception {
        return podman.podman(60, "logs", CONTAINER).output();
    }

    private static int get(HttpClient http, int port, String path, int timeoutSeconds) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(timeoutSeconds)).build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    interface Check {
        boolean ok() throws Exception;
    }

    /** Milliseconds from {@code start} (nanoTime) until {@code check} holds, or -1 when it does not within the limit. */
    private static long waitFor(long start, long limitSeconds, Check check) throws Exception {
        long deadline = start + limitSeconds * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (check.ok()) {
                return (System.nanoTime() - start) / 1_000_000;
            }
            Thread.sleep(100);
        }
        return -1;
    }
}
