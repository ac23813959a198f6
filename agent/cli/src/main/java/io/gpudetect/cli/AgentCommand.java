package io.gpudetect.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpudetect.agent.AgentHttpServer;
import io.gpudetect.agent.AgentLog;
import io.gpudetect.agent.AgentLoop;
import io.gpudetect.agent.AgentMetrics;
import io.gpudetect.agent.AgentSettings;
import io.gpudetect.agent.HealthOutputs;
import io.gpudetect.k8s.health.DeviceTaints;
import io.gpudetect.k8s.health.HealthTaint;
import io.gpudetect.agent.HealthWatch;
import io.gpudetect.agent.LabelOutput;
import io.gpudetect.agent.NodeAgent;
import io.gpudetect.agent.PassTriggers;
import io.gpudetect.agent.PassReport;
import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.inventory.Detector;
import java.util.List;
import io.gpudetect.probe.Probe;
import io.gpudetect.inventory.SteadyStateDetector;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.k8s.AgentClient;
import io.gpudetect.k8s.AkashCoexistence;
import io.gpudetect.k8s.ClusterErrors;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.labels.GpuDetectProfile;
import io.gpudetect.labels.LabelProfiles;
import io.gpudetect.labels.NvidiaProfile;
import io.gpudetect.probe.Probes;
import io.gpudetect.tables.TableException;
import io.gpudetect.tables.Tables;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.record.HostFactsReader;
import io.gpudetect.sink.Observation;
import io.gpudetect.source.BundleException;
import io.gpudetect.source.Source;
import io.gpudetect.nvml.JnaNvmlScope;
import io.gpudetect.nvml.NvmlEventWatcher;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gpu-detect agent}: the DaemonSet's process. Detects every interval, labels its own Node (only
 * keys it owns, only after complete passes) and keeps the node's {@code GpuCapacity} record current.
 * Connects like kubectl: in-cluster service account, else {@code KUBECONFIG} or {@code ~/.kube/config}.
 */
@Command(name = "agent", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false,
        description = "Run as the node agent: label this node and publish its GpuCapacity record.",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:with --once, the pass wrote what it needed (or, with --dry-run, printed it); without "
                + "--once, stopped by SIGTERM", "1:with --once, the pass failed: detection failed, the API server "
                + "could not be reached or refused (RBAC), the node does not exist; or the --replay bundle cannot be "
                + "used", "2:usage: no node name, an unknown profile or option value, an unreadable --config file or "
                + "kubeconfig, an unknown --config key or GPU_DETECT_* variable; "
                + "or an unexpected failure that ended the agent (one line names it)"})
public final class AgentCommand implements Callable<Integer> {

    static final String ENV_PROFILES = "GPU_DETECT_PROFILES";
    static final String ENV_AKASH_OPERATOR = "GPU_DETECT_AKASH_OPERATOR";
    static final String ENV_HEALTH_CONDITION = "GPU_DETECT_HEALTH_CONDITION";
    static final String ENV_HEALTH_EVENTS = "GPU_DETECT_HEALTH_EVENTS";
    static final String ENV_HEALTH_TAINT = "GPU_DETECT_HEALTH_TAINT";
    static final String ENV_DEVICE_TAINTS = "GPU_DETECT_DEVICE_TAINTS";
    static final Duration DEFAULT_STARTUP_JITTER = Duration.ofSeconds(30);
    static final Duration DEFAULT_MIN_TRIGGER_INTERVAL = Duration.ofSeconds(10);

    /** Where the client's settings come from: kubectl's search ({@link AgentClient#autoConfigure}); tests name theirs. */
    Supplier<Config> clientSettings = AgentClient::autoConfigure;

    /** The environment the agent reads its GPU_DETECT_* settings from: the process's; tests give theirs. */
    Map<String, String> environment = System.getenv();

    static final Duration DEFAULT_REFRESH = Duration.ofHours(1);

    @Spec
    CommandSpec spec;

    @Mixin
    DetectionOptions detection;

    @Option(names = "--node", paramLabel = "NAME", defaultValue = "${env:NODE_NAME}",
            description = "This node's name (default: $NODE_NAME, set from the downward API).")
    String node;

    @Option(names = "--profiles", paramLabel = "LIST",
            description = "Label profiles: any of gpu-detect, nvidia, amd, akash, or none (default: $" + ENV_PROFILES
                    + ", else the config file, else gpu-detect).")
    String profiles;

    @Option(names = "--akash-operator", paramLabel = "MODE",
            description = "Whether Akash's inventory operator owns the akash.network* labels: auto (where the node "
                    + "carries its akash.network=true), present or absent; where it does, the agent never touches them "
                    + "(default: $" + ENV_AKASH_OPERATOR + ", else the config file, else auto).")
    String akashOperator;

    @Option(names = "--prefix", paramLabel = "DOMAIN",
            description = "Prefix of our own labels (default: the config file's prefix=, else gpu-detect.io).")
    String prefix;

    @Option(names = "--nvidia-mig-strategy", paramLabel = "STRATEGY",
            description = "The nvidia profile's MIG strategy, as GPU Feature Discovery's --mig-strategy: none, single "
                    + "or mixed (default: the config file's nvidia-mig-strategy=, else none).")
    String nvidiaMigStrategy;

    @Option(names = "--nvidia-sharing", paramLabel = "STRATEGY",
            description = "How the device plugin shares nvidia.com/gpu, for the nvidia profile: none, time-slicing or "
                    + "mps (default: the config file's nvidia-sharing=, else none).")
    String nvidiaSharing;

    @Option(names = "--nvidia-replicas", paramLabel = "N",
            description = "Replicas of each nvidia.com/gpu under --nvidia-sharing (default: the config file's "
                    + "nvidia-replicas=, else 1).")
    Integer nvidiaReplicas;

    @Option(names = "--config", paramLabel = "FILE",
            description = "A properties file: profiles=, akash-operator=, prefix=, interval=, refresh=, heartbeat=, startup-jitter=, min-trigger-interval=, nfd-output=, "
                    + "nvidia-mig-strategy=, nvidia-sharing=, nvidia-replicas=, health-condition=, health-events=, "
                    + "health-taint=, device-taints= "
                    + "(flags win over it).")
    Path config;

    @Option(names = "--interval", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Time between passes, plus up to 10%% jitter (default: 60s).")
    Duration interval;

    @Option(names = "--refresh", paramLabel = "DURATION", converter = DurationConverter.ZeroTurnsOff.class,
            description = "On a live host, a pass whose host looks as it did (PCI bus, bound drivers, module versions, "
                    + "NVML's view) reuses the last complete detection and runs no tool; a full one runs at least this often "
                    + "(default: 1h; 0 detects in full every pass).")
    Duration refresh;

    @Option(names = "--heartbeat", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How often a complete pass refreshes the record's lastGoodPass (default: 5m).")
    Duration heartbeat;

    @Option(names = "--startup-jitter", paramLabel = "DURATION", converter = DurationConverter.ZeroTurnsOff.class,
            description = "Wait a random time up to this before the first pass, so a DaemonSet's pods do not all "
                    + "start at once (default: 30s; 0 turns it off; --once never waits).")
    Duration startupJitter;

    @Option(names = "--min-trigger-interval", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "At most one pass per this time from SIGHUP, POST /detect and the agent's own triggers; "
                    + "later ones join a pass at its end, and POST /detect answers 429 with Retry-After while one "
                    + "waits (default: 10s).")
    Duration minTriggerInterval;

    @Option(names = "--dry-run", description = "Print what would be written; write nothing.")
    boolean dryRun;

    @Option(names = "--once", description = "Run one pass and exit (status 0 when it could write what it needed).")
    boolean once;

    @Option(names = "--release-nvml", description = "Shut NVML down after every pass instead of holding it "
            + "initialised, so that the nvidia module can be unloaded while the agent runs (about 11 ms more CPU per "
            + "pass and GPU host).")
    boolean releaseNvml;

    @Option(names = "--nvml-events", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Wait for NVML's Xid and uncorrectable ECC events on a thread of its own and run a pass at "
                    + "once when one comes (default: on; --no-nvml-events leaves the checks of each pass alone). "
                    + "See docs/health.md.")
    boolean nvmlEvents;

    @Option(names = "--nfd-output", paramLabel = "MODE",
            description = "off (patch the Node, default), file (an NFD features.d file) or nodefeature (an NFD NodeFeature object).")
    String nfdOutput;

    @Option(names = "--nfd-file", paramLabel = "FILE", description = "The features.d file for --nfd-output=file (default: the file gpu-detect in "
            + "/etc/kubernetes/node-feature-discovery/features.d, NFD's folder).")
    Path nfdFile;

    @Option(names = "--namespace", paramLabel = "NS", defaultValue = "${env:POD_NAMESPACE:-gpu-detect}",
            description = "Namespace for the NodeFeature object (default: $POD_NAMESPACE or gpu-detect).")
    String namespace;

    @Option(names = "--health-condition", paramLabel = "on|off",
            description = "The Node condition GpuHealthy: False with a reason while a GPU is failed or lost (default: $"
                    + ENV_HEALTH_CONDITION + ", else the config file, else on).")
    String healthCondition;

    @Option(names = "--health-events", paramLabel = "on|off",
            description = "An Event on the Node per change of a GPU's health (default: $" + ENV_HEALTH_EVENTS
                    + ", else the config file, else on).")
    String healthEvents;

    @Option(names = "--health-taint", paramLabel = "POLICY",
            description = "The taint gpu-detect.io/gpu-unhealthy:NoSchedule: none, anyFailed (while any GPU is failed "
                    + "or lost) or allFailed (while all are) (default: $" + ENV_HEALTH_TAINT + ", else the config file, "
                    + "else none).")
    String healthTaint;

    @Option(names = "--device-taints", paramLabel = "EFFECT",
            description = "A DRA DeviceTaintRule per failed or lost GPU handed out by a DRA driver: off, None, NoSchedule "
                    + "or NoExecute (default: $" + ENV_DEVICE_TAINTS + ", else the config file, else off).")
    String deviceTaints;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080",
            description = "Port for /healthz, /readyz, /metrics and POST /detect; 0 picks a free one, -1 turns it off (default: ${DEFAULT-VALUE}).")
    int port;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (node == null || node.isBlank()) {
            err.println("gpu-detect agent: no node name: set NODE_NAME (downward API spec.nodeName) or pass --node");
            return GpuDetectCommand.EXIT_USAGE;
        }
        AgentSettings settings;
        Duration maxStartupJitter;
        Duration refreshEvery;
        Duration triggerInterval;
        try {
            Properties file = readConfig();
            refreshEvery = refresh(file);
            settings = settings(file);
            maxStartupJitter = startupJitter(file);
            triggerInterval = minTriggerInterval(file);
        } catch (IllegalArgumentException e) {
            err.println("gpu-detect agent: " + e.getMessage());
            return GpuDetectCommand.EXIT_USAGE;
        }
        DetectionOptions.Input input;
        try {
            // Read once: a pass a minute must not parse the id tables (and a host's 1.4 MB pci.ids) again, nor
            // fetch Akash's table; a restarted agent reads them afresh.
            input = detection.input();
        } catch (BundleException | TableException e) {
            err.println("gpu-detect agent: " + e.getMessage());
            return GpuDetectCommand.EXIT_UNUSABLE_INPUT;
        }
        Source source = input.source();
        Supplier<Inventory> detector = detector(source, input.tables(), refreshEvery);
        GpuCapacitySpec.HostFacts host = detection.replay == null ? HostFactsReader.read() : null;
        // One look at the host per pass, through one source: the inventory, its DRM cards (nvidia_drm may be loaded
        // while the agent runs) and the host's facts (read once: they do not change while it runs).
        AgentLog log = new AgentLog(err, Clock.systemUTC());
        AgentMetrics metrics = new AgentMetrics();
        // What NVML's events said between passes joins each pass's health (a no-op while no GPU is marked).
        HealthWatch health = new HealthWatch(log, metrics, Clock.systemUTC());
        DrmCards.Reader drm = new DrmCards.Reader(source);
        Supplier<Observation> observe = () -> health.apply(new Observation(detector.get(), drm.read(), host));
        RetryAfterHint retryAfter = new RetryAfterHint();
        KubernetesClient kubernetes;
        try {
            kubernetes = newClient(retryAfter);
        } catch (IllegalArgumentException e) {
            err.println("gpu-detect agent: " + e.getMessage());
            return GpuDetectCommand.EXIT_USAGE;
        }
        try (KubernetesClient client = kubernetes;
             NodeAgent agent = new NodeAgent(settings, observe, client, retryAfter, log, metrics, out,
                     Clock.systemUTC())) {
            if (once) {
                PassReport report = agent.pass();
                out.flush();
                return report.failed() ? GpuDetectCommand.EXIT_UNUSABLE_INPUT : GpuDetectCommand.EXIT_OK;
            }
            return runForever(agent, settings, maxStartupJitter, triggerInterval, log, err,
                    detection.replay == null && nvmlEvents ? health : null);
        }
    }

    /**
     * A client configured like kubectl. The client's own retries are off: the agent's loop retries a failed
     * pass at its interval, and a retrying client would hold a pass for many seconds during an outage.
     * {@code retryAfter} sees every response, to honour a 429's {@code Retry-After} in the loop.
     */
    KubernetesClient newClient(RetryAfterHint retryAfter) {
        Config config;
        try {
            config = clientSettings.get();
        } catch (RuntimeException e) {
            // fabric8 reads the kubeconfig here: its YAML parser's exception, said as inventory --cluster says it.
            throw new IllegalArgumentException("cannot read the kubeconfig: " + ClusterOption.kubeconfigProblem(e));
        }
        config.setRequestRetryBackoffLimit(0);
        try {
            return AgentClient.build(config, retryAfter);
        } catch (KubernetesClientException e) {
            // A client certificate or CA file the kubeconfig names, read while the client is built.
            throw new IllegalArgumentException(ClusterErrors.message(e, config.getMasterUrl()));
        }
    }

    /** @param health where NVML's events go; null for none (a replayed bundle, {@code --no-nvml-events}) */
    private int runForever(NodeAgent agent, AgentSettings settings, Duration maxStartupJitter, Duration triggerInterval,
                           AgentLog log, PrintWriter err, HealthWatch health) throws IOException {
        Duration startupDelay = AgentLoop.startupDelay(maxStartupJitter, ThreadLocalRandom.current().nextDouble());
        AgentLoop loop = new AgentLoop(agent, settings.interval(), settings.jitter(),
                () -> ThreadLocalRandom.current().nextDouble(), new PassTriggers(triggerInterval, Clock.systemUTC()),
                startupDelay);
        AgentHttpServer http = port < 0 ? null : new AgentHttpServer(port, agent, loop, AgentHttpServer.IDLE);
        if (!Signals.onHangup(() -> loop.trigger("SIGHUP"))) {
            log.warn("SIGHUP cannot bring a pass: the agent was started with SIGHUP ignored (nohup?)",
                    "instead", port < 0 ? "restart it without nohup" : "POST /detect on port " + http.port());
        }
        Thread worker = new Thread(loop, "gpu-detect-agent");
        // Whatever escapes the loop (a pass catches what a broken API server or host can cause; an Error such as
        // a NoClassDefFoundError of a jar missing from an installation is not): the process must then end with
        // a status that is not 0 and one line naming it, so that a pod crash-loops visibly, instead of the
        // JVM's stack trace and a clean exit.
        AtomicReference<Throwable> escaped = new AtomicReference<>();
        worker.setUncaughtExceptionHandler((thread, e) -> escaped.set(e));
        // SIGTERM (pod deletion, upgrade, systemctl stop): stop after the pass in progress and write nothing on
        // the way out; the worker's end then ends the command with status 0. Other ways the JVM is shut down
        // (SIGINT) go through the hook, with the JVM's own status.
        Runnable stop = () -> {
            log.info("stopping; labels and record stay as they are");
            loop.stop();
        };
        Signals.Restore term = Signals.onTerminate(stop);
        Thread hook = new Thread(() -> {
            stop.run();
            try {
                worker.join(Duration.ofSeconds(20).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "gpu-detect-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        log.info("agent started", "node", settings.nodeName(), "profiles", String.join(",", settings.profiles().names()),
                "akashOperator", settings.akashOperator().id(),
                "interval", settings.interval(), "minTriggerInterval", triggerInterval, "startupDelay", startupDelay,
                "port", http == null ? "off" : String.valueOf(http.port()));
        worker.start();
        NvmlEventWatcher events = null;
        if (health != null) {
            health.onEvent(loop::trigger);
            events = NvmlEventWatcher.start(Optional.ofNullable(detection.probeSettings().driverRoot()), health.listener());
        }
        try {
            worker.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (http != null) {
                http.close();
            }
            if (events != null) {
                events.close();
            }
            term.close();
        }
        try {
            // The loop has ended (SIGTERM, or a failure): the hook's "stopping" line would come twice, or blur
            // the failure's line.
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // SIGINT: the JVM is shutting down and runs the hook either way.
        }
        Throwable failure = escaped.get();
        if (failure == null) {
            return GpuDetectCommand.EXIT_OK;
        }
        err.println(GpuDetectCommand.failureLine(spec.qualifiedName(), failure));
        err.flush();
        return GpuDetectCommand.EXIT_FAILED;
    }

    /** The config file's settings (none without {@code --config}), after the environment's names are checked. */
    private Properties readConfig() {
        AgentConfigFile.checkEnvironment(environment);
        return config == null ? new Properties() : AgentConfigFile.read(config);
    }

    /** GFD's settings for the nvidia profile: flags, then the config file, then GFD's defaults. */
    private NvidiaProfile.Settings nvidiaSettings(Properties file) {
        String mig = nvidiaMigStrategy != null ? nvidiaMigStrategy : file.getProperty("nvidia-mig-strategy", "none");
        String sharing = nvidiaSharing != null ? nvidiaSharing : file.getProperty("nvidia-sharing", "none");
        int replicas;
        if (nvidiaReplicas != null) {
            replicas = nvidiaReplicas;
        } else {
            String text = file.getProperty("nvidia-replicas", "1").strip();
            try {
                replicas = Integer.parseInt(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("nvidia-replicas: '" + text + "' is not a whole number");
            }
        }
        try {
            return new NvidiaProfile.Settings(NvidiaProfile.MigStrategy.parse(mig),
                    NvidiaProfile.SharingStrategy.parse(sharing), replicas);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("nvidia profile: " + e.getMessage());
        }
    }

    /** Flags, then the environment (profiles, akash-operator and the health outputs only), then the config file, then defaults. */
    AgentSettings settings(Properties file) {
        String selection = profiles != null ? profiles
                : environment.get(ENV_PROFILES) != null ? environment.get(ENV_PROFILES)
                : file.getProperty("profiles", LabelProfiles.DEFAULT_SELECTION);
        String ownPrefix = prefix != null ? prefix : file.getProperty("prefix", GpuDetectProfile.PREFIX);
        AgentSettings s = AgentSettings.defaults(node, LabelProfiles.parse(selection, ownPrefix, nvidiaSettings(file)),
                VersionProvider.version());
        Duration every = interval != null ? interval : duration(file, "interval", s.interval());
        Duration beat = heartbeat != null ? heartbeat : duration(file, "heartbeat", s.heartbeat());
        String mode = nfdOutput != null ? nfdOutput : file.getProperty("nfd-output", "off");
        LabelOutput output = Map.of("off", LabelOutput.NODE, "file", LabelOutput.NFD_FILE,
                "nodefeature", LabelOutput.NODE_FEATURE).get(mode.strip().toLowerCase(java.util.Locale.ROOT));
        if (output == null) {
            throw new IllegalArgumentException("--nfd-output: '" + mode + "' is not one of off, file, nodefeature");
        }
        String akash = akashOperator != null ? akashOperator
                : environment.get(ENV_AKASH_OPERATOR) != null ? environment.get(ENV_AKASH_OPERATOR)
                : file.getProperty("akash-operator", AkashCoexistence.OperatorSetting.AUTO.id());
        return new AgentSettings(node, s.profiles(), every, s.jitter(), beat, dryRun, output,
                nfdFile != null ? nfdFile : AgentSettings.DEFAULT_NFD_FILE, namespace, s.agentVersion(),
                AkashCoexistence.OperatorSetting.parse(akash), healthOutputs(file));
    }

    /** Each health output's setting: its flag, else its variable, else the config file, else the default. */
    HealthOutputs healthOutputs(Properties file) {
        HealthOutputs d = HealthOutputs.DEFAULT;
        return new HealthOutputs(
                onOff("--health-condition", setting(healthCondition, ENV_HEALTH_CONDITION, file, "health-condition",
                        d.condition() ? "on" : "off")),
                onOff("--health-events", setting(healthEvents, ENV_HEALTH_EVENTS, file, "health-events",
                        d.events() ? "on" : "off")),
                named("--health-taint", () -> HealthTaint.Policy.parse(setting(healthTaint, ENV_HEALTH_TAINT, file,
                        "health-taint", d.taint().id()))),
                named("--device-taints", () -> DeviceTaints.parse(setting(deviceTaints, ENV_DEVICE_TAINTS, file,
                        "device-taints", d.deviceTaints().id()))));
    }

    /** {@code parse}'s value, or its refusal with the option's name in front. */
    private static <T> T named(String option, Supplier<T> parse) {
        try {
            return parse.get();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage());
        }
    }

    private String setting(String flag, String variable, Properties file, String key, String fallback) {
        return flag != null ? flag : environment.get(variable) != null ? environment.get(variable)
                : file.getProperty(key, fallback);
    }

    private static boolean onOff(String option, String text) {
        return switch (text.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "on", "true" -> true;
            case "off", "false" -> false;
            default -> throw new IllegalArgumentException(option + ": '" + text + "' is not one of on, off");
        };
    }

    /**
     * A live host's passes reuse a detection while the host is unchanged, with NVML held initialised between
     * them unless {@code --release-nvml}; a replayed bundle never changes.
     */
    private Supplier<Inventory> detector(Source source, Tables tables, Duration refresh) {
        List<Probe> probes = Probes.defaults(detection.probeSettings().withNvmlSession(
                releaseNvml || once ? JnaNvmlScope.Session.PER_SNAPSHOT : JnaNvmlScope.Session.HELD));
        if (detection.replay != null || refresh.isZero()) {
            Detector detector = new Detector(probes);
            return () -> detector.detect(source, tables);
        }
        SteadyStateDetector steady = new SteadyStateDetector(probes, source, tables, refresh, Clock.systemUTC());
        return steady::detect;
    }

    /** How often a live host is detected in full though it looks unchanged: the flag, else the config file, else 1 h. */
    Duration refresh(Properties file) {
        return refresh != null ? refresh : duration(file, "refresh", DEFAULT_REFRESH, true);
    }

    /** The most the first pass waits: the flag, else the config file, else {@link #DEFAULT_STARTUP_JITTER}. */
    Duration startupJitter(Properties file) {
        if (startupJitter != null) {
            return startupJitter;
        }
        return duration(file, "startup-jitter", DEFAULT_STARTUP_JITTER, true);
    }

    /** The least time between two passes that triggers start: the flag, else the config file, else 10 s. */
    Duration minTriggerInterval(Properties file) {
        return minTriggerInterval != null ? minTriggerInterval
                : duration(file, "min-trigger-interval", DEFAULT_MIN_TRIGGER_INTERVAL);
    }

    private static Duration duration(Properties file, String key, Duration fallback) {
        return duration(file, key, fallback, false);
    }

    /** A config file's duration, under the flags' rule for zero ({@link DurationConverter}). */
    private static Duration duration(Properties file, String key, Duration fallback, boolean zeroTurnsOff) {
        String v = file.getProperty(key);
        if (v == null) {
            return fallback;
        }
        Duration d = Durations.parse(v);
        if (d == null) {
            throw new IllegalArgumentException("config " + key + "=" + v + " is not a duration (expected e.g. 60s, 5m)");
        }
        if (d.isZero() && !zeroTurnsOff) {
            throw new IllegalArgumentException("config " + key + "=" + v + " is no time; give more than 0 (e.g. 60s, 5m)");
        }
        return d;
    }
}
