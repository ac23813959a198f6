package io.gpudetect.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A real etcd, kube-apiserver (the version supplied, RBAC on, an audit log of every request) and kube-controller-manager
 * running only the garbage collector, on loopback, shared by every {@code ...RealApiServerTest} class of
 * one test run and stopped when the run ends. Started through fabric8's kube-api-test in offline mode.
 *
 * <p>Where the binaries come from, first match wins: {@code KUBE_API_TEST_DIR}, else the cache folder
 * {@code ~/.cache/gpu-detect/kube-api-test} (outside the repository: the project never holds the binaries
 * or anything that builds them). Either is kube-api-test's layout, {@code k8s/<version>-linux-amd64/} holding
 * {@code kube-apiserver}, {@code etcd} and {@code kubectl} (and {@code kube-controller-manager} for the
 * garbage collector); {@code etcd} and {@code kubectl} missing there are taken from {@code PATH} (Debian:
 * etcd-server, kubernetes-client). Without a {@code kube-apiserver} the tests are skipped with one line that
 * says where it was looked for, in CI too: no registry reachable here ships one ({@code shared/k8s/README.md}).
 * The version is the newest such folder's ({@link #VERSION}); on 1.32 and 1.33 the server is started with
 * {@code resource.k8s.io}'s beta versions and the {@code DynamicResourceAllocation} feature gate on (1.34 and later
 * serve {@code resource.k8s.io/v1} by default), so DRA tests run on every version that has DRA.
 */
public final class RealApiServer implements ExtensionContext.Store.CloseableResource {

    /** The cache folder looked in when {@code KUBE_API_TEST_DIR} is not set: outside every checkout. */
    static final Path CACHE = Path.of(System.getProperty("user.home"), ".cache", "gpu-detect", "kube-api-test");
    /** The version looked for when no folder holds a kube-apiserver: the oldest the tests were written for. */
    static final String DEFAULT_VERSION = "1.26.1";
    /**
     * The version of the supplied binaries, as their folder names it ({@code k8s/1.34.1-linux-amd64}): the newest
     * folder that holds a {@code kube-apiserver}, else {@link #DEFAULT_VERSION}.
     */
    public static final String VERSION = suppliedVersion(supplied()).orElse(DEFAULT_VERSION);
    private static final String LAYOUT = "k8s/" + VERSION + "-linux-amd64";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubeAPIServer apiServer;
    private final Process controllerManager;
    private final Path auditLog;
    private final Config adminConfig;

    private RealApiServer(KubeAPIServer apiServer, Process controllerManager, Path auditLog,
                          Config adminConfig) {
        this.apiServer = apiServer;
        this.controllerManager = controllerManager;
        this.auditLog = auditLog;
        this.adminConfig = adminConfig;
    }

    /**
     * Hands the run's {@link RealApiServer} to a test's or {@code @BeforeAll} method's parameter:
     * {@code @ExtendWith(RealApiServer.Extension.class)}.
     */
    public static final class Extension implements ParameterResolver, ExecutionCondition {
        /** Skips the tests, with one line saying where the binaries were looked for, unless they are there. */
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return available() ? ConditionEvaluationResult.enabled("")
                    : ConditionEvaluationResult.disabled(howToSupply());
        }

        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
            return parameter.getParameter().getType() == RealApiServer.class;
        }

        @Override
        public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
            return shared(context);
        }
    }

    /** The run's server, started on first use; only reached when {@link #available()}. */
    public static RealApiServer shared(ExtensionContext context) {
        return context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(RealApiServer.class, k -> start(), RealApiServer.class);
    }

    private static RealApiServer start() {
        Path testDir = Path.of("target", "kube-api-test").toAbsolutePath();
        Optional<Path> layout = binaries(testDir);
        if (layout.isEmpty()) {
            throw new IllegalStateException(howToSupply());
        }
        try {
            Path auditLog = testDir.resolve("audit.log");
            Path policy = testDir.resolve("audit-policy.yaml");
            Files.deleteIfExists(auditLog);
            Files.writeString(policy, """
                    apiVersion: audit.k8s.io/v1
                    kind: Policy
                    omitStages: [RequestReceived]
                    rules:
                      - level: Metadata
                    """);
            KubeAPIServerConfigBuilder config = KubeAPIServerConfigBuilder.anAPIServerConfig()
                    .withTestDir(layout.get().toString()).withApiServerVersion(VERSION).withOfflineMode(true)
                    .withUpdateKubeConfig(false)
                    .withApiServerFlag("--bind-address", "127.0.0.1")
                    .withApiServerFlag("--advertise-address", "127.0.0.1")
                    .withApiServerFlag("--audit-policy-file", policy.toString())
                    .withApiServerFlag("--audit-log-path", auditLog.toString())
                    .withApiServerFlag("--audit-log-mode", "blocking");
            draFlags(VERSION).forEach(config::withApiServerFlag);
            KubeAPIServer server = new KubeAPIServer(config.build());
            server.start();
            Config admin = Config.fromKubeconfig(server.getKubeConfigYaml());
            Path kubeconfig = testDir.resolve("admin.kubeconfig");
            Files.writeString(kubeconfig, server.getKubeConfigYaml());
            Process gc = startGarbageCollector(layout.get().resolve(LAYOUT), kubeconfig, testDir.resolve("gc.log"));
            return new RealApiServer(server, gc, auditLog, admin);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The flags that make {@code version} serve {@code resource.k8s.io}: off by default before 1.34 (1.32 serves
     * v1beta1, 1.33 v1beta1 and v1beta2, each behind the feature gate); none from 1.34, where v1 is on (GA).
     */
    static java.util.Map<String, String> draFlags(String version) {
        if (!atLeast(version, 1, 32) || atLeast(version, 1, 34)) {
            return java.util.Map.of();
        }
        String runtime = atLeast(version, 1, 33) ? "resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true"
                : "resource.k8s.io/v1beta1=true";
        return java.util.Map.of("--runtime-config", runtime, "--feature-gates", "DynamicResourceAllocation=true");
    }

    /** Whether {@code version} ({@code 1.32.4}) is {@code major.minor} or later. */
    public static boolean atLeast(String version, int major, int minor) {
        int[] v = numbers(version);
        return v[0] > major || (v[0] == major && v[1] >= minor);
    }

    /** Whether the supplied server is {@code major.minor} or later. */
    public static boolean versionAtLeast(int major, int minor) {
        return atLeast(VERSION, major, minor);
    }

    private static int[] numbers(String version) {
        String[] parts = version.replaceFirst("^v", "").split("[.-]");
        int[] out = new int[3];
        for (int i = 0; i < 3 && i < parts.length; i++) {
            out[i] = parts[i].matches("\\d+") ? Integer.parseInt(parts[i]) : 0;
        }
        return out;
    }

    /** The newest {@code k8s/<version>-linux-amd64} folder of {@code dir} that holds an executable kube-apiserver. */
    static Optional<String> suppliedVersion(Path dir) {
        Path k8s = dir.resolve("k8s");
        if (!Files.isDirectory(k8s)) {
            return Optional.empty();
        }
        try (var entries = Files.list(k8s)) {
            return entries.filter(p -> Files.isExecutable(p.resolve("kube-apiserver")))
                    .map(p -> p.getFileName().toString())
                    .filter(name -> name.matches("v?\\d+\\.\\d+\\.\\d+-linux-amd64"))
                    .map(name -> name.substring(0, name.length() - "-linux-amd64".length()))
                    .max(java.util.Comparator.comparing((String v) -> numbers(v)[0])
                            .thenComparing(v -> numbers(v)[1]).thenComparing(v -> numbers(v)[2]));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The folder given by {@code KUBE_API_TEST_DIR}, else the cache folder. */
    private static Path supplied() {
        String given = System.getenv("KUBE_API_TEST_DIR");
        return given != null && !given.isBlank() ? Path.of(given) : CACHE;
    }

    static String howToSupply() {
        return "real kube-apiserver not found: no k8s/<version>-linux-amd64/kube-apiserver in " + supplied()
                + " (the newest version there is used; 1.32+ for the DRA tests): put it there (and "
                + "kube-controller-manager for the garbage collector), or set KUBE_API_TEST_DIR to a folder with that "
                + "layout; etcd and kubectl come from there or PATH";
    }

    /** Whether the binaries can be had. */
    static boolean available() {
        Path dir = supplied().resolve(LAYOUT);
        return Files.isExecutable(dir.resolve("kube-apiserver"))
                && (Files.isExecutable(dir.resolve("etcd")) || onPath("etcd").isPresent())
                && (Files.isExecutable(dir.resolve("kubectl")) || onPath("kubectl").isPresent());
    }

    /**
     * The folder to hand kube-api-test as its test dir, with the binaries in its layout: the supplied folder
     * when it holds all three, else a copy in {@code testDir} of links to them, with etcd and kubectl from
     * {@code PATH}; empty without them.
     */
    private static Optional<Path> binaries(Path testDir) {
        if (!available()) {
            return Optional.empty();
        }
        Path from = supplied().resolve(LAYOUT);
        if (Files.isExecutable(from.resolve("etcd")) && Files.isExecutable(from.resolve("kubectl"))) {
            return Optional.of(supplied());
        }
        try {
            Path dir = testDir.resolve(LAYOUT);
            Files.createDirectories(dir);
            for (String binary : List.of("kube-apiserver", "kube-controller-manager", "kubectl")) {
                Path link = dir.resolve(binary);
                Files.deleteIfExists(link);
                Path target = Files.isExecutable(from.resolve(binary)) ? from.resolve(binary)
                        : onPath(binary).orElse(null);
                if (target != null) {
                    Files.createSymbolicLink(link, target);
                }
            }
            Path etcd = Files.isExecutable(from.resolve("etcd")) ? from.resolve("etcd") : onPath("etcd").orElseThrow();
            // kube-api-test starts etcd listening on 0.0.0.0; loopback is enough and exposes nothing.
            Path wrapper = dir.resolve("etcd");
            Files.deleteIfExists(wrapper);
            Files.writeString(wrapper, "#!/bin/sh\n"
                    + "for a; do shift; set -- \"$@\" \"$(printf '%s' \"$a\" | sed 's/0\\.0\\.0\\.0/127.0.0.1/g')\"; done\n"
                    + "exec " + etcd + " \"$@\"\n", StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
            return Optional.of(testDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Process startGarbageCollector(Path layout, Path kubeconfig, Path log) throws IOException {
        Path binary = layout.resolve("kube-controller-manager");
        if (!Files.isExecutable(binary)) {
            return null;
        }
        return new ProcessBuilder(binary.toString(), "--controllers=garbagecollector", "--kubeconfig=" + kubeconfig,
                "--leader-elect=false", "--bind-address=127.0.0.1", "--secure-port=0")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static Optional<Path> onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, command);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** True when the garbage collector runs beside the API server (kube-controller-manager was supplied). */
    public boolean garbageCollectorRunning() {
        return controllerManager != null && controllerManager.isAlive();
    }

    /** The admin's configuration: client certificate in {@code system:masters}. */
    public Config adminConfig() {
        return new ConfigBuilder(adminConfig).build();
    }

    public KubernetesClient adminClient() {
        return new KubernetesClientBuilder().withConfig(adminConfig()).build();
    }

    public String masterUrl() {
        return adminConfig.getMasterUrl();
    }

    /**
     * A configuration that authenticates as service account {@code namespace/name} with a fresh token
     * (created with the account if needed): RBAC applies to it as to the agent's pod.
     */
    public Config serviceAccountConfig(String namespace, String name) {
        try (KubernetesClient admin = adminClient()) {
            if (admin.namespaces().withName(namespace).get() == null) {
                admin.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                        .withNewMetadata().withName(namespace).endMetadata().build()).create();
            }
            if (admin.serviceAccounts().inNamespace(namespace).withName(name).get() == null) {
                admin.serviceAccounts().inNamespace(namespace).resource(new ServiceAccountBuilder()
                        .withNewMetadata().withName(name).endMetadata().build()).create();
            }
            String token = admin.serviceAccounts().inNamespace(namespace).withName(name)
                    .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
                    .getStatus().getToken();
            Config base = adminConfig();
            Config sa = new ConfigBuilder(Config.empty()).withMasterUrl(base.getMasterUrl())
                    .withCaCertData(base.getCaCertData()).withCaCertFile(base.getCaCertFile())
                    .withOauthToken(token).build();
            return sa;
        }
    }

    /** One request as the audit log recorded it. */
    public record Request(String user, String verb, String uri, int code) {
        @Override
        public String toString() {
            return verb + " " + uri + " -> " + code;
        }
    }

    /** A position in the audit log: {@link #requestsSince} counts from there. */
    public int auditMark() {
        return auditLines().size();
    }

    /**
     * The requests {@code user} made after {@code mark}, in order. A long-running watch is logged when it
     * ends ({@code ResponseComplete}) and open ones at {@code ResponseStarted}, so only requests that were
     * answered (not watch streams) are returned.
     */
    public List<Request> requestsSince(int mark, String user) {
        List<String> lines = auditLines();
        List<Request> out = new ArrayList<>();
        for (String line : lines.subList(Math.min(mark, lines.size()), lines.size())) {
            try {
                JsonNode event = JSON.readTree(line);
                if (!user.equals(event.path("user").path("username").asText())
                        || !"ResponseComplete".equals(event.path("stage").asText())
                        || "watch".equals(event.path("verb").asText())) {
                    continue;
                }
                out.add(new Request(user, event.path("verb").asText(), event.path("requestURI").asText(),
                        event.path("responseStatus").path("code").asInt()));
            } catch (IOException e) {
                // A line cut short by the server still writing it: the next read has it whole.
            }
        }
        return out;
    }

    private List<String> auditLines() {
        try {
            return Files.exists(auditLog) ? Files.readAllLines(auditLog) : new ArrayList<>();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (controllerManager != null) {
            controllerManager.destroy();
            try {
                controllerManager.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            controllerManager.destroyForcibly();
        }
        apiServer.stop();
    }
}
