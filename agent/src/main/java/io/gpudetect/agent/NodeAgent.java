package io.gpudetect.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.k8s.AkashCoexistence;
import io.gpudetect.k8s.CapacityRecordSink;
import io.gpudetect.k8s.GpuResources;
import io.gpudetect.k8s.LabelChange;
import io.gpudetect.k8s.LabelSync;
import io.gpudetect.k8s.NfdFeatureFile;
import io.gpudetect.k8s.NodeFeatureSink;
import io.gpudetect.k8s.NodeLabelSink;
import io.gpudetect.k8s.NodeView;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.model.Gpu;
import io.gpudetect.record.CapacityRecords;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.record.GpuCapacityStatus;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One node's agent: each {@link #pass()} detects, renders the labels and the capacity record, decides
 * what differs from the cluster and writes only that. A pass never throws; what went wrong is in its
 * {@link PassReport}, the log and the metrics, and the next pass starts from a fresh read.
 */
public final class NodeAgent implements AutoCloseable {

    static final int MAX_CONFLICT_RETRIES = 5;
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final AgentSettings settings;
    private final Supplier<Inventory> detector;
    private final Supplier<GpuCapacitySpec.HostFacts> hostFacts;
    private final NodeView view;
    private final NodeLabelSink labelSink;
    private final CapacityRecordSink recordSink;
    private final NodeFeatureSink nodeFeatureSink;
    private final NfdFeatureFile nfdFile;
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
        this.retryAfter = retryAfter;
        this.settings = settings;
        this.detector = detector;
        this.hostFacts = hostFacts;
        this.view = new NodeView(client, settings.nodeName());
        this.labelSink = new NodeLabelSink(client);
        this.recordSink = new CapacityRecordSink(client);
        this.nodeFeatureSink = new NodeFeatureSink(client, settings.namespace());
        this.nfdFile = new NfdFeatureFile(settings.nfdFile());
        this.log = log;
        this.metrics = metrics;
        this.out = out;
        this.clock = clock;
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
            report = new PassReport("incomplete", 0, new LabelChange.None("pass failed"), 0,
                    "internal: " + e.getClass().getSimpleName() + ": " + firstLine(e.getMessage()), retryAfter.take());
        }
        metrics.pass(report.failed() ? "error" : report.outcome(), clock.millis() - started);
        last = report;
        log.info("pass done", "node", settings.nodeName(), "outcome", report.outcome(), "gpus", report.gpus(),
                "labels", describe(report.labelChange()), "writes", report.apiWrites(),
                "error", report.error() == null ? "none" : report.error(), "ms", clock.millis() - started);
        return report;
    }

    private PassReport runPass() {
        Inventory inventory;
        try {
            inventory = detector.get();
        } catch (RuntimeException e) {
            metrics.error("detect");
            return new PassReport("incomplete", 0, new LabelChange.None("detection failed"), 0, "detection failed: " + e);
        }
        SortedMap<String, String> desired;
        boolean complete = inventory.complete();
        try {
            desired = settings.profiles().render(inventory);
        } catch (IllegalStateException e) {
            metrics.error("render");
            log.error("label profiles disagree; labels kept", "error", e.getMessage());
            desired = new TreeMap<>();
            complete = false;
        }
        if (complete) {
            metrics.gpus(countByVendorModel(inventory));
        }
        String outcome = complete ? "complete" : "incomplete";
        int gpus = inventory.realGpus().size();
        int writes = 0;
        LabelChange change = new LabelChange.None("not decided");
        try {
            if (!settings.dryRun()) {
                view.start(this::nodeAdded);
                recordSink.watch(settings.nodeName(), () -> {
                    log.warn("GpuCapacity record deleted by someone else; recreating", "node", settings.nodeName());
                    trigger.accept("record deleted");
                });
            }
            Node node = settings.dryRun() ? readForDryRun() : view.node();
            if (node == null && !settings.dryRun()) {
                metrics.error("node-missing");
                return new PassReport(outcome, gpus, change, 0, "node " + settings.nodeName() + " not found");
            }
            LabelResult labels = syncLabels(node, desired, complete);
            change = labels.change();
            writes += labels.writes();
            writes += syncRecord(node, inventory, complete);
            if (node != null) {
                labelledUid = node.getMetadata().getUid();
            }
            return new PassReport(outcome, gpus, change, writes, null);
        } catch (KubernetesClientException e) {
            retryAfter.fromException(e);
            metrics.error(errorKind(e));
            return new PassReport(outcome, gpus, change, writes, errorKind(e) + ": " + firstLine(e.getMessage()));
        } catch (IOException e) {
            metrics.error("io");
            return new PassReport(outcome, gpus, change, writes, "io: " + e.getMessage());
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

    private record LabelResult(LabelChange change, int writes) {
    }

    private LabelResult syncLabels(Node node, SortedMap<String, String> desired, boolean complete) throws IOException {
        desired = AkashCoexistence.decide(node, settings.akashOperator()).desired(desired);
        switch (settings.labelOutput()) {
            case NFD_FILE -> {
                if (!complete) {
                    return new LabelResult(new LabelChange.None("pass incomplete: features file kept"), 0);
                }
                if (settings.dryRun()) {
                    out.println("# would write " + nfdFile.file());
                    out.print(NfdFeatureFile.render(desired));
                    return new LabelResult(new LabelChange.None("dry run"), 0);
                }
                boolean written = nfdFile.write(desired);
                return new LabelResult(written ? new LabelChange.Patch(desired, new java.util.TreeSet<>(), null)
                        : new LabelChange.None("features file up to date"), 0);
            }
            case NODE_FEATURE -> {
                if (!complete) {
                    return new LabelResult(new LabelChange.None("pass incomplete: NodeFeature kept"), 0);
                }
                if (settings.dryRun()) {
                    out.println("# would write NodeFeature " + NodeFeatureSink.objectName(settings.nodeName()) + " labels:");
                    out.println(JSON.writeValueAsString(desired));
                    return new LabelResult(new LabelChange.None("dry run"), 0);
                }
                boolean written = nodeFeatureSink.write(node, desired);
                metrics.writes("nodefeature", written ? 1 : 0);
                return new LabelResult(written ? new LabelChange.Patch(desired, new java.util.TreeSet<>(), null)
                        : new LabelChange.None("NodeFeature up to date"), written ? 1 : 0);
            }
            default -> {
                return patchNode(node, desired, complete);
            }
        }
    }

    private LabelResult patchNode(Node node, SortedMap<String, String> desired, boolean complete) throws IOException {
        Node current = node;
        for (int attempt = 1; ; attempt++) {
            Map<String, String> labels = current == null ? Map.of() : current.getMetadata().getLabels();
            Map<String, String> annotations = current == null ? Map.of() : current.getMetadata().getAnnotations();
            AkashCoexistence akash = AkashCoexistence.decide(labels, annotations, settings.akashOperator());
            LabelChange change = LabelSync.decide(labels, annotations, akash.desired(desired), complete,
                    akash.mayRemove(settings.profiles()::mayRemove));
            if (!(change instanceof LabelChange.Patch patch)) {
                return new LabelResult(change, 0);
            }
            if (settings.dryRun()) {
                out.println("# would patch node " + settings.nodeName() + " (JSON merge patch):");
                out.println(NodeLabelSink.mergePatch(patch, null));
                return new LabelResult(change, 0);
            }
            try {
                view.observed(labelSink.apply(current, patch));
                metrics.writes("node", 1);
                return new LabelResult(change, 1);
            } catch (KubernetesClientException e) {
                if (!refusedAsStale(e, attempt)) {
                    throw e;
                }
                metrics.error("conflict");
                log.warn("node changed since it was read; reading it again and deciding again", "attempt", attempt,
                        "status", e.getCode());
                sleepQuietly(50L * attempt);
                current = view.fresh();
                if (current == null) {
                    throw e;
                }
            }
        }
    }

    /**
     * Whether a refused patch is worth one more decision from a fresh read. 409: the node changed since it
     * was read (its resourceVersion no longer matches). 422: an operation no longer applies (a {@code remove}
     * of a key someone else removed), which a decision from a stale cache produces; from a fresh read the
     * same refusal would be a real error, so a 422 is retried once.
     */
    private static boolean refusedAsStale(KubernetesClientException e, int attempt) {
        return switch (e.getCode()) {
            case 409 -> attempt < MAX_CONFLICT_RETRIES;
            case 422 -> attempt == 1;
            default -> false;
        };
    }

    private int syncRecord(Node node, Inventory inventory, boolean complete) throws IOException {
        GpuCapacitySpec spec = CapacityRecords.spec(inventory,
                node == null ? Map.of() : GpuResources.allocatable(node),
                node == null ? Map.of() : GpuResources.requested(view.pods()),
                hostFacts.get(), settings.agentVersion());
        if (settings.dryRun()) {
            GpuCapacityStatus status = CapacityRecords.status(inventory, null, clock.instant(), settings.heartbeat())
                    .withAkashLabels(AkashCoexistence.decide(node, settings.akashOperator()).status());
            out.println("# would write GpuCapacity " + settings.nodeName() + " (owned by Node " + settings.nodeName() + "):");
            out.println(JSON.writeValueAsString(Map.of("spec", spec, "status", status)));
            out.flush();
            return 0;
        }
        recordSink.load(settings.nodeName());
        GpuCapacityStatus status = CapacityRecords.status(inventory, recordSink.knownStatus(), clock.instant(),
                settings.heartbeat()).withAkashLabels(AkashCoexistence.decide(node, settings.akashOperator()).status());
        CapacityRecordSink.Outcome outcome = recordSink.sync(node, spec, !complete, status);
        metrics.writes("gpucapacity", outcome.writes());
        return outcome.writes();
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

    private static String describe(LabelChange c) {
        if (c instanceof LabelChange.Patch p) {
            return "set=" + p.set().size() + ",remove=" + p.remove().size();
        }
        return "none";
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the informers. Labels and the record stay exactly as they are: shutting down removes nothing. */
    @Override
    public void close() {
        view.close();
        recordSink.close();
    }
}
