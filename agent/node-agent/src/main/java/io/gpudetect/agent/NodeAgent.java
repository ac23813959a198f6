package io.gpudetect.agent;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.k8s.AkashCoexistence;
import io.gpudetect.k8s.CapacityRecordSink;
import io.gpudetect.k8s.GpuResources;
import io.gpudetect.k8s.NodeFeatureSink;
import io.gpudetect.k8s.NodeLabelSink;
import io.gpudetect.k8s.NodeView;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.model.Gpu;
import io.gpudetect.record.CapacityRecords;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.sink.Applier;
import io.gpudetect.sink.Change;
import io.gpudetect.sink.NfdFileSink;
import io.gpudetect.sink.PassOutput;
import io.gpudetect.sink.Sink;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One node's agent. Each {@link #pass()} detects, renders what the pass produced once ({@link PassOutput}:
 * labels, record spec and status), then, sink by sink in a fixed order (the label output, then the capacity
 * record), decides the change from what the target holds and hands it to the {@link Applier}: a live one
 * that writes, or in a dry run one that prints. A pass never throws; what went wrong is in its
 * {@link PassReport}, the log and the metrics, and the next pass starts from a fresh read.
 */
public final class NodeAgent implements AutoCloseable {

    /** What an agent built without a DRM reader writes: nothing about DRM nodes. */
    private static final DrmCards DRM_NOT_READ = new DrmCards.NotKnown("the agent was not given /sys/class/drm");

    private final AgentSettings settings;
    private final Supplier<Inventory> detector;
    private final Supplier<GpuCapacitySpec.HostFacts> hostFacts;
    private final Supplier<DrmCards> drmCards;
    private final NodeView view;
    private final Sink<?> labelOutput;
    private final CapacityRecordSink recordSink;
    private final Applier applier;
    private final AgentLog log;
    private final AgentMetrics metrics;
    private final PrintWriter out;
    private final Clock clock;
    private final RetryAfterHint retryAfter;
    private volatile PassReport last;
    /** Asks the loop for a pass now; set by {@link AgentLoop}, a no-op for a lone {@link #pass()}. */
    private volatile Consumer<String> trigger = why -> { };
    /** The uid of the Node the last pass labelled: a Node added under our name with another uid is a new Node. */
    private volatile String labelledUid;
    /** An Error an informer met on its own thread ({@link #watchFailed}); the next pass ends the agent with it. */
    private volatile Error fatal;
    /** The last pass's inventory and its labels: reused while the detector hands back that same inventory. */
    private volatile RenderedLabels lastRendered;
    private boolean started;

    public NodeAgent(AgentSettings settings, Supplier<Inventory> detector, Supplier<GpuCapacitySpec.HostFacts> hostFacts,
                     KubernetesClient client, AgentLog log, AgentMetrics metrics, PrintWriter out, Clock clock) {
        this(settings, detector, hostFacts, client, new RetryAfterHint(), log, metrics, out, clock);
    }

    /**
     * @param retryAfter the hint registered as an interceptor in {@code client} (see {@link RetryAfterHint});
     *                   without one, only a {@code Status} that carries {@code retryAfterSeconds} is honoured
     */
    public NodeAgent(AgentSettings settings, Supplier<Inventory> detector, Supplier<GpuCapacitySpec.HostFacts> hostFacts,
                     KubernetesClient client, RetryAfterHint retryAfter, AgentLog log, AgentMetrics metrics,
                     PrintWriter out, Clock clock) {
        this(settings, detector, hostFacts, () -> DRM_NOT_READ, client, retryAfter, log, metrics, out, clock);
    }

    /**
     * @param drmCards the host's DRM cards, read at each pass through the source the detector reads (nvidia_drm
     *                 may be loaded while the agent runs); the record's {@code sysClassDrm} and {@code drmCards}
     * @param retryAfter the hint registered as an interceptor in {@code client} (see {@link RetryAfterHint})
     */
    public NodeAgent(AgentSettings settings, Supplier<Inventory> detector, Supplier<GpuCapacitySpec.HostFacts> hostFacts,
                     Supplier<DrmCards> drmCards, KubernetesClient client, RetryAfterHint retryAfter, AgentLog log,
                     AgentMetrics metrics, PrintWriter out, Clock clock) {
        this.retryAfter = retryAfter;
        this.settings = settings;
        this.detector = detector;
        this.hostFacts = hostFacts;
        this.drmCards = drmCards;
        this.view = new NodeView(client, settings.nodeName());
        this.labelOutput = switch (settings.labelOutput()) {
            case NODE -> new NodeLabelSink(client, view, settings.profiles(), settings.akashOperator());
            case NFD_FILE -> new NfdFileSink(settings.nfdFile());
            case NODE_FEATURE -> new NodeFeatureSink(client, settings.namespace());
        };
        this.recordSink = new CapacityRecordSink(client);
        this.applier = settings.dryRun() ? new Applier.Printing(out) : new Applier.Live();
        this.log = log;
        this.metrics = metrics;
        this.out = out;
        this.clock = clock;
    }

    /**
     * Starts the informers on the Node, its pods and its record, without waiting for them: passes then read
     * from memory. {@link AgentLoop} calls it before the first pass; a lone {@link #pass()} calls it itself.
     * A dry run starts none: it reads the node once and writes nothing.
     */
    public synchronized void start() {
        if (started || settings.dryRun()) {
            return;
        }
        started = true;
        view.start(this::nodeAdded, this::watchFailed);
        recordSink.watch(settings.nodeName(), () -> {
            log.warn("GpuCapacity record deleted by someone else; recreating", "node", settings.nodeName());
            trigger.accept("record deleted");
        }, this::watchFailed);
    }

    /** fabric8 reports an informer's failed list or watch here (it retries on its own); it goes to the agent's log. */
    void watchFailed(String what, Throwable error) {
        Error broken = errorIn(error);
        if (broken != null) {
            // Not a failed list the informer may retry: the installation or the JVM is broken (a jar missing
            // from lib/ shows first here, at the first list). Retrying hides it behind an agent that looks alive
            // and labels nothing; the next pass ends the agent with it instead, in one line and a status not 0.
            fatal = broken;
            trigger.accept("watch broken");
            return;
        }
        log.warn("watch failed; the informer retries", "watch", what, "error",
                error.getClass().getSimpleName() + ": " + firstLine(error.getMessage()));
    }

    /** The first {@link Error} among {@code t} and its causes; null when there is none. */
    private static Error errorIn(Throwable t) {
        for (int depth = 0; t != null && depth < 16; t = t.getCause(), depth++) {
            if (t instanceof Error e) {
                return e;
            }
        }
        return null;
    }

    /** The resource version of the Node as this agent's informer last saw it (tests wait on it). */
    String cachedNodeVersion() {
        Node node = view.node();
        return node == null ? null : node.getMetadata().getResourceVersion();
    }

    /** The last pass's report, for {@code /readyz}; null before the first pass ends. */
    public PassReport lastPass() {
        return last;
    }

    public AgentMetrics metrics() {
        return metrics;
    }

    /**
     * Where the agent asks for a pass when the cluster changes under it: its {@code GpuCapacity} record deleted
     * by someone, or its Node deleted and added again under the same name.
     */
    public void onExternalChange(Consumer<String> trigger) {
        this.trigger = trigger;
    }

    /** One full pass. Never throws. */
    public PassReport pass() {
        long started = clock.millis();
        PassReport report;
        try {
            report = runPass().withRetryAfter(retryAfter.take());
        } catch (RuntimeException e) {
            // Whatever a broken proxy or API server answers (HTML instead of JSON, a body fabric8 cannot read),
            // the loop must go on: an agent that exits on it crash-loops on every node at once.
            metrics.error("internal");
            report = new PassReport("incomplete", 0, null, 0,
                    "internal: " + e.getClass().getSimpleName() + ": " + firstLine(e.getMessage()), retryAfter.take());
        }
        metrics.pass(report.failed() ? "error" : report.outcome(), clock.millis() - started);
        last = report;
        log.info("pass done", "node", settings.nodeName(), "outcome", report.outcome(), "gpus", report.gpus(),
                "labels", report.labelChange() == null ? "none" : report.labelChange().summary(),
                "writes", report.apiWrites(),
                "error", report.error() == null ? "none" : report.error(), "ms", clock.millis() - started);
        return report;
    }

    private PassReport runPass() {
        Error broken = fatal;
        if (broken != null) {
            // Out of the pass and the loop: the command ends with it (AgentCommand), as with an Error of its own.
            throw broken;
        }
        start();
        Inventory inventory;
        try {
            inventory = detector.get();
        } catch (RuntimeException e) {
            metrics.error("detect");
            return new PassReport("incomplete", 0, null, 0, "detection failed: " + e);
        }
        if (inventory.failure() != null) {
            // Nothing is judged from a pass that could not see the host: labels and record stay as they are.
            metrics.error("detect");
            return new PassReport("incomplete", 0, null, 0, "detection: " + inventory.failure());
        }
        SortedMap<String, String> labels;
        boolean complete = inventory.complete();
        try {
            labels = rendered(inventory);
        } catch (IllegalStateException e) {
            metrics.error("render");
            log.error("label profiles disagree; labels kept", "error", e.getMessage());
            labels = new TreeMap<>();
            complete = false;
        }
        if (complete) {
            metrics.gpus(countByVendorModel(inventory));
        }
        String outcome = complete ? "complete" : "incomplete";
        int gpus = inventory.realGpus().size();
        int writes = 0;
        Change labelChange = null;
        try {
            Node node = settings.dryRun() ? readForDryRun() : view.node();
            if (node == null && !settings.dryRun()) {
                metrics.error("node-missing");
                return new PassReport(outcome, gpus, null, 0, "node " + settings.nodeName() + " not found");
            }
            PassOutput output = render(node, inventory, labels, complete);
            Applied<?> applied = decideAndApply(labelOutput, output);
            labelChange = applied.change();
            writes += applied.writes();
            writes += decideAndApply(recordSink, output).writes();
            if (node != null) {
                labelledUid = node.getMetadata().getUid();
            }
            return new PassReport(outcome, gpus, labelChange, writes, null);
        } catch (KubernetesClientException e) {
            retryAfter.fromException(e);
            metrics.error(errorKind(e));
            return new PassReport(outcome, gpus, labelChange, writes, errorKind(e) + ": " + firstLine(e.getMessage()));
        } catch (IOException e) {
            metrics.error("io");
            return new PassReport(outcome, gpus, labelChange, writes, "io: " + e.getMessage());
        }
    }

    /**
     * The profiles' labels for an inventory. A steady pass gets the very inventory of the pass before (the host
     * did not change), and rendering is a pure function of it: the labels of that pass are used again instead
     * of rendered again, the largest part of a steady pass in the interpreter (docs/performance.md).
     */
    private SortedMap<String, String> rendered(Inventory inventory) {
        RenderedLabels last = lastRendered;
        if (last != null && last.inventory() == inventory) {
            return new TreeMap<>(last.labels());
        }
        SortedMap<String, String> labels = settings.profiles().render(inventory);
        lastRendered = new RenderedLabels(inventory, new TreeMap<>(labels));
        return labels;
    }

    /** The labels rendered from one inventory, kept for the next pass. */
    private record RenderedLabels(Inventory inventory, SortedMap<String, String> labels) {
    }

    /** Everything the sinks need from this pass, rendered once. */
    private PassOutput render(Node node, Inventory inventory, SortedMap<String, String> labels, boolean complete) {
        AkashCoexistence akash = AkashCoexistence.decide(node, settings.akashOperator());
        GpuCapacitySpec spec = CapacityRecords.spec(inventory,
                node == null ? Map.of() : GpuResources.allocatable(node),
                node == null ? Map.of() : GpuResources.requested(view.pods()),
                hostFacts.get(), drmCards.get(), settings.agentVersion());
        return new PassOutput(settings.nodeName(), node, akash.desired(labels), complete, spec,
                known -> CapacityRecords.status(inventory, known, clock.instant(), settings.heartbeat())
                        .withAkashLabels(akash.status()));
    }

    /** A sink's change and the API requests that carried it out. */
    private record Applied<C extends Change>(C change, int writes) {
    }

    /**
     * Decides and applies one sink's change. When the target refuses it as decided from a state that has since
     * moved on, the sink reads it again and the change is decided again, within this pass.
     */
    private <C extends Change> Applied<C> decideAndApply(Sink<C> sink, PassOutput output) throws IOException {
        PassOutput current = output;
        for (int attempt = 1; ; attempt++) {
            C change = sink.decide(current);
            try {
                int writes = applier.apply(sink, change);
                metrics.writes(sink.name(), writes);
                return new Applied<>(change, writes);
            } catch (KubernetesClientException e) {
                Optional<PassOutput> again = sink.reread(current, e, attempt);
                if (again.isEmpty()) {
                    throw e;
                }
                metrics.error("conflict");
                log.warn(sink.name() + " changed since it was read; deciding again", "attempt", attempt,
                        "status", e.getCode());
                current = again.get();
            }
        }
    }

    /** A Node under our name with a uid we have not labelled: deleted and recreated (or replaced) meanwhile. */
    private void nodeAdded(Node node) {
        String before = labelledUid;
        if (before != null && node.getMetadata() != null && !before.equals(node.getMetadata().getUid())) {
            log.warn("node recreated under the same name; labelling it again", "node", settings.nodeName());
            trigger.accept("node recreated");
        }
    }

    /** In a dry run the node is read once if the cluster is there; without one the labels are printed in full. */
    private Node readForDryRun() {
        try {
            return view.fresh();
        } catch (KubernetesClientException e) {
            out.println("# cluster not reachable (" + firstLine(e.getMessage()) + "); showing every label as new");
            return null;
        }
    }

    private static Map<String, Integer> countByVendorModel(Inventory inventory) {
        Map<String, Integer> out = new TreeMap<>();
        for (Gpu g : inventory.realGpus()) {
            out.merge((g.vendor() == null ? "other" : g.vendor().id()) + "|" + (g.model() == null ? "unknown" : g.model()),
                    1, Integer::sum);
        }
        return out;
    }

    static String errorKind(KubernetesClientException e) {
        int code = e.getCode();
        if (code == 409) {
            return "conflict";
        }
        if (code == 401 || code == 403) {
            return "forbidden";
        }
        if (code <= 0 || code >= 500 || causedByIo(e)) {
            return "api-unavailable";
        }
        return "api";
    }

    private static boolean causedByIo(Throwable e) {
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof IOException) {
                return true;
            }
        }
        return false;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** Stops the informers. Labels and the record stay exactly as they are: shutting down removes nothing. */
    @Override
    public void close() {
        view.close();
        recordSink.close();
    }
}
