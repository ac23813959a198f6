package io.gpudetect.agent;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.k8s.CapacityRecordSink;
import io.gpudetect.k8s.ClusterErrors;
import io.gpudetect.k8s.NodeFeatureSink;
import io.gpudetect.k8s.NodeLabelSink;
import io.gpudetect.k8s.NodeView;
import io.gpudetect.k8s.dra.DraView;
import io.gpudetect.k8s.health.DeviceTaintRuleSink;
import io.gpudetect.k8s.health.DeviceTaints;
import io.gpudetect.k8s.health.HealthConditionSink;
import io.gpudetect.k8s.health.HealthEventSink;
import io.gpudetect.k8s.health.HealthEvents;
import io.gpudetect.k8s.health.HealthTaint;
import io.gpudetect.k8s.health.HealthTaintSink;
import io.gpudetect.model.Gpu;
import io.gpudetect.record.dra.DraObjects;
import io.gpudetect.record.dra.DraSlice;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.PassOutcome;
import io.gpudetect.sink.Applier;
import io.gpudetect.sink.Change;
import io.gpudetect.sink.DesiredState;
import io.gpudetect.sink.NfdFileSink;
import io.gpudetect.sink.NodeFacts;
import io.gpudetect.sink.Observation;
import io.gpudetect.sink.Sink;
import io.gpudetect.source.IoFailure;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One node's agent. Each {@link #pass()} is a chain of values: an {@link Observation} of the host (inventory, DRM
 * cards, host facts) and the {@link NodeFacts} of its Node, then the {@link DesiredState} computed once from them
 * (labels, record spec and status, the outcome, each GPU's health), then, target by target in a fixed order (the label
 * output, then the capacity record, then the health outputs that are on: the Node condition, the taint, the device taint
 * rules, the Events): read what the target holds, decide the change (a pure function), hand it to the
 * {@link Applier}: a live one that writes, or in a dry run one that prints. A pass never throws; what went wrong is in its
 * {@link PassReport}, the log and the metrics, and the next pass starts from a fresh read.
 */
public final class NodeAgent implements AutoCloseable {

    private final AgentSettings settings;
    private final Supplier<Observation> observe;
    private final NodeView view;
    /** The node's ResourceSlices and its pods' claims (DRA): how each GPU is handed out. */
    private final DraView dra;
    /** The DRA objects the last pass could read: they stand while the API server cannot be read. */
    private DraObjects lastDra;
    private final Sink<?, ?> labelOutput;
    private final CapacityRecordSink recordSink;
    /** The GPUs of the last complete pass: one gone from the bus reads lost. */
    private final LostGpus lostGpus;
    /** The health outputs that are on (null when off), written after the record in this order. */
    private final HealthConditionSink conditionSink;
    private final HealthTaintSink taintSink;
    private final HealthEventSink eventSink;
    private final DeviceTaintRuleSink deviceTaintSink;
    /** Whether the device taint rules' informer runs; false until the cluster is known to serve the kind. */
    private boolean deviceTaintsStarted;
    private final Applier applier;
    private final AgentLog log;
    private final AgentMetrics metrics;
    private final PrintWriter out;
    private final Clock clock;
    private final RetryAfterHint retryAfter;
    /** The API server's URL, which every failure to reach it names (as {@code inventory --cluster} does). */
    private final String server;
    private volatile PassReport last;
    /** Asks the loop for a pass now; set by {@link AgentLoop}, a no-op for a lone {@link #pass()}. */
    private volatile Consumer<String> trigger = why -> { };
    /** The uid of the Node the last pass labelled: a Node added under our name with another uid is a new Node. */
    private volatile String labelledUid;
    /** An Error an informer met on its own thread ({@link #watchFailed}); the next pass ends the agent with it. */
    private volatile Error fatal;
    /** The last pass's inventory and its labels: reused while the detector hands back that same inventory. */
    private volatile RenderedLabels lastRendered;
    /** What the last pass that changed nothing decided from, while the next pass may be known to change nothing too. */
    private volatile Unchanged lastUnchanged;
    /** The last inventory's real GPUs ({@link #realGpus}), kept while passes get that very inventory. */
    private volatile RealGpus lastReal;
    /** The inventory whose GPUs the metrics show now: a pass with that very inventory does not count them again. */
    private volatile Inventory inMetrics;
    private boolean started;

    /**
     * @param observe    one pass's look at the host: the inventory, the DRM cards and the host facts, read through
     *                   one source (nvidia_drm may be loaded while the agent runs)
     * @param retryAfter the hint registered as an interceptor in {@code client} (see {@link RetryAfterHint})
     */
    public NodeAgent(AgentSettings settings, Supplier<Observation> observe, KubernetesClient client,
                     RetryAfterHint retryAfter, AgentLog log, AgentMetrics metrics, PrintWriter out, Clock clock) {
        this.retryAfter = retryAfter;
        this.server = String.valueOf(client.getMasterUrl());
        this.settings = settings;
        this.observe = observe;
        this.view = new NodeView(client, settings.nodeName());
        this.dra = new DraView(client, settings.nodeName());
        this.labelOutput = switch (settings.labelOutput()) {
            case NODE -> new NodeLabelSink(view, settings.profiles());
            case NFD_FILE -> new NfdFileSink(settings.nfdFile());
            case NODE_FEATURE -> new NodeFeatureSink(client, view, settings.namespace());
        };
        this.recordSink = new CapacityRecordSink(client, view);
        this.lostGpus = new LostGpus(log);
        HealthOutputs health = settings.health();
        this.conditionSink = health.condition() ? new HealthConditionSink(view) : null;
        this.taintSink = health.taint() != HealthTaint.Policy.NONE ? new HealthTaintSink(view, health.taint()) : null;
        this.eventSink = health.events() ? new HealthEventSink(client) : null;
        this.deviceTaintSink = health.deviceTaints() != DeviceTaints.OFF
                ? new DeviceTaintRuleSink(client, settings.nodeName(), health.deviceTaints()) : null;
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
        dra.start(this::watchFailed);
        startDeviceTaints();
        recordSink.watch(settings.nodeName(), () -> {
            log.warn("GpuCapacity record deleted by someone else; recreating", "node", settings.nodeName());
            lostGpus.forget();
            trigger.accept("record deleted");
        }, this::watchFailed);
    }

    /**
     * Starts the informer on the agent's device taint rules where the output is on; where the cluster serves no
     * DeviceTaintRule, says so once. A failed discovery is tried again at the next pass.
     */
    private void startDeviceTaints() {
        if (deviceTaintSink == null || deviceTaintsStarted || settings.dryRun()) {
            return;
        }
        try {
            deviceTaintsStarted = true;
            if (!deviceTaintSink.start(this::watchFailed)) {
                log.warn("device taints: this cluster serves no DeviceTaintRule (resource.k8s.io v1, v1beta2 or v1alpha3 "
                        + "with the DRADeviceTaints feature); no rule is written", "node", settings.nodeName());
            }
        } catch (KubernetesClientException e) {
            deviceTaintsStarted = false;
            watchFailed("resource.k8s.io discovery for DeviceTaintRule", e);
        }
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
        log.warn("watch failed; the informer retries", "watch", what, "error", ClusterErrors.message(error, server));
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
        return view.cachedVersion();
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
            report = new PassReport(PassOutcome.INCOMPLETE, 0, null, 0,
                    "internal: " + e.getClass().getSimpleName() + ": " + firstLine(e.getMessage()), retryAfter.take());
        }
        metrics.pass(report.result(), clock.millis() - started);
        last = report;
        // outcome is the pass's (error when it could not write what it needed), detection the inventory's: a
        // complete detection beside an API server that was down is not a complete pass.
        log.info("pass done", "node", settings.nodeName(), "outcome", report.result(),
                "detection", report.outcome().id(), "gpus", report.gpus(),
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
        Observation observed;
        try {
            observed = observe.get();
        } catch (RuntimeException e) {
            metrics.error("detect");
            return new PassReport(PassOutcome.INCOMPLETE, 0, null, 0, "detection failed: " + e);
        }
        if (observed.inventory().failure() != null) {
            // Nothing is judged from a pass that could not see the host: labels and record stay as they are.
            metrics.error("detect");
            return new PassReport(PassOutcome.INCOMPLETE, 0, null, 0, "detection: " + observed.inventory().failure());
        }
        // A GPU of an earlier pass whose PCI function is gone is in the pass as lost (LostGpus).
        Observation seen = lostGpus.apply(observed);
        Inventory inventory = seen.inventory();
        SortedMap<String, String> labels = renderedOrNone(inventory);
        int gpus = realGpus(inventory).size();
        PassOutcome outcome = DesiredState.outcome(inventory, labels);
        if (outcome == PassOutcome.COMPLETE) {
            gpuMetrics(inventory);
        }
        int writes = 0;
        Change labelChange = null;
        try {
            Optional<NodeFacts> node = readNode();
            if (node.isEmpty() && !settings.dryRun()) {
                metrics.error("node-missing");
                return new PassReport(outcome, gpus, null, 0, "node " + settings.nodeName() + " not found");
            }
            if (node.isPresent() && rememberedChanged(node.get())) {
                // What the agent before this one remembered (the record of this boot), or a reboot that forgot it.
                seen = lostGpus.apply(observed);
                inventory = seen.inventory();
                labels = renderedOrNone(inventory);
                gpus = realGpus(inventory).size();
                outcome = DesiredState.outcome(inventory, labels);
                if (outcome == PassOutcome.COMPLETE) {
                    gpuMetrics(inventory);
                }
            }
            DraObjects draObjects = node.isPresent() ? readDra() : null;
            Instant now = clock.instant();
            Unchanged unchanged = lastUnchanged;
            if (unchanged != null && unchanged.stillHolds(seen, node, draObjects, recordSink.heldRecord(), now)) {
                metrics.unchanged();
                return new PassReport(outcome, gpus, unchanged.labelChange(), 0, null);
            }
            lastUnchanged = null;
            DesiredState desired = DesiredState.of(settings.nodeName(), seen, node.orElse(NodeFacts.NONE), draObjects, labels,
                    settings.akashOperator(), settings.agentVersion(), now, settings.heartbeat());
            Applied<?, ?> applied = decideAndApply(labelOutput, desired);
            labelChange = applied.change();
            writes += applied.writes();
            // The record as the pass found it holds the GPU states last published: the Events' basis.
            Applied<CapacityRecordSink.Held, ?> recordApplied = decideAndApply(recordSink, desired);
            writes += recordApplied.writes();
            if (conditionSink != null && node.isPresent()) {
                writes += decideAndApply(conditionSink, desired).writes();
            }
            if (taintSink != null && node.isPresent()) {
                writes += decideAndApply(taintSink, desired).writes();
            }
            if (deviceTaintSink != null && node.isPresent()) {
                startDeviceTaints();
                writes += decideAndApply(deviceTaintSink, desired).writes();
            }
            if (eventSink != null && node.isPresent()) {
                writes += postEvents(recordApplied.current(), node.get(), desired);
            }
            node.ifPresent(n -> labelledUid = n.uid());
            GpuCapacity record = recordSink.heldRecord();
            // With device taint rules on, every pass decides: the rules are not among the inputs Unchanged compares
            // (a rule someone deleted is recreated at the next pass), and reading them costs no request (an informer).
            if (writes == 0 && labels != null && record != null && node.isPresent() && !settings.dryRun()
                    && settings.labelOutput() == LabelOutput.NODE && deviceTaintSink == null) {
                lastUnchanged = new Unchanged(seen, node, draObjects, record,
                        desired.recordStatus().sameUntil(record.getStatus()), labelChange);
            }
            return new PassReport(outcome, gpus, labelChange, writes, null);
        } catch (KubernetesClientException e) {
            retryAfter.fromException(e);
            metrics.error(errorKind(e));
            return new PassReport(outcome, gpus, labelChange, writes,
                    errorKind(e) + ": " + ClusterErrors.message(e, server));
        } catch (IOException e) {
            metrics.error("io");
            return new PassReport(outcome, gpus, labelChange, writes, "io: " + IoFailure.describe(e, settings.nfdFile()));
        }
    }

    /**
     * The real GPUs of {@code inventory} ({@link Inventory#realGpus}, a stream), the list of the last call again while
     * the steady detector hands back that very inventory (an inventory is a value: the same object, the same GPUs).
     */
    private List<Gpu> realGpus(Inventory inventory) {
        RealGpus last = lastReal;
        if (last != null && last.inventory() == inventory) {
            return last.gpus();
        }
        List<Gpu> real = inventory.realGpus();
        lastReal = new RealGpus(inventory, real);
        return real;
    }

    private record RealGpus(Inventory inventory, List<Gpu> gpus) {
    }

    /**
     * The GPU metrics of a complete pass's inventory, counted again only when it is not the inventory they show
     * already: a steady pass would name every GPU's address, model and state again to the same effect.
     */
    private void gpuMetrics(Inventory inventory) {
        if (inventory != inMetrics) {
            metrics.gpus(realGpus(inventory));
            inMetrics = inventory;
        }
    }

    /** The profiles' labels for an inventory; null when two profiles produced the same key (every label is then kept). */
    private SortedMap<String, String> renderedOrNone(Inventory inventory) {
        try {
            return rendered(inventory);
        } catch (IllegalStateException e) {
            metrics.error("render");
            log.error("label profiles disagree; labels kept", "error", e.getMessage());
            return null;
        }
    }

    /**
     * Tells the lost-GPU memory the node's boot id, and at the first pass hands it the record as an agent before this
     * one left it; true when that changed what is remembered.
     */
    private boolean rememberedChanged(NodeFacts node) {
        boolean changed = lostGpus.noteBoot(node.bootId());
        if (lostGpus.needsSeed()) {
            changed |= lostGpus.seed(node.bootId(), recordSink.loaded(settings.nodeName()));
        }
        return changed;
    }

    /**
     * The profiles' labels for an inventory, unmodifiable. A steady pass gets the very inventory of the pass before
     * (the host did not change), and rendering is a pure function of it: the labels of that pass are used again
     * instead of rendered again, the largest part of a steady pass in the interpreter (docs/performance.md); the very
     * map, not a copy (what decides from it copies what it keeps: {@code AkashCoexistence.desired}, {@code DesiredState}).
     */
    private SortedMap<String, String> rendered(Inventory inventory) {
        RenderedLabels last = lastRendered;
        if (last != null && last.inventory() == inventory) {
            return last.labels();
        }
        SortedMap<String, String> labels = Collections.unmodifiableSortedMap(
                new TreeMap<>(settings.profiles().render(inventory)));
        lastRendered = new RenderedLabels(inventory, labels);
        return labels;
    }

    /** The labels rendered from one inventory, kept for the next pass. */
    private record RenderedLabels(Inventory inventory, SortedMap<String, String> labels) {
    }

    /**
     * The inputs of a pass that decided to change nothing, and until when its status stays as it is (the heartbeat).
     * A later pass with the same inputs would decide the same nothing: the same observation (the steady detector
     * hands back the very inventory while the host is unchanged), the same Node facts (its uid, labels, annotations
     * and GPU resources: all the targets decide from; our labels edited or the Node recreated change them) and DRA
     * objects, the very record object the record sink holds (replaced by any write, forgotten when someone deletes the
     * record) and a heartbeat not yet due. Such a pass skips building the desired state and the targets' decisions,
     * most of a steady pass in the interpreter (docs/performance.md, "A steady pass that changes nothing").
     */
    private record Unchanged(Observation seen, Optional<NodeFacts> node, DraObjects dra, GpuCapacity record,
                             Instant statusSameUntil, Change labelChange) {

        boolean stillHolds(Observation seen, Optional<NodeFacts> node, DraObjects dra, GpuCapacity record, Instant now) {
            return now.isBefore(statusSameUntil) && record == this.record && same(seen, this.seen)
                    && node.equals(this.node) && Objects.equals(dra, this.dra);
        }

        /**
         * {@code a.equals(b)}, part by part, each by identity first. Each pass makes a new observation of the very
         * inventory and host facts of the pass before (and a new DRM cards value), and a record's generated equals
         * is linked through method handles, which the agent's interpreter runs as some twenty calls a part. The Node's
         * facts and the DRA objects are the very objects of the pass before while nothing changed (NodeView, readDra):
         * {@code Optional.equals} and {@code Objects.equals} compare by identity first.
         */
        private static boolean same(Observation a, Observation b) {
            return a == b || Objects.equals(a.inventory(), b.inventory()) && Objects.equals(a.drmCards(), b.drmCards())
                    && Objects.equals(a.hostFacts(), b.hostFacts());
        }
    }

    /**
     * The node's DRA objects: its ResourceSlices and the allocations of its pods' claims, from the informer and
     * the claim cache. When they cannot be read (the API server is away before the informers synced), those of
     * the last pass stand: the record keeps what was last known instead of flapping, and the failure is logged.
     */
    private DraObjects readDra() {
        try {
            DraView.Allocations claims = dra.allocations(view.pods());
            List<DraSlice> slices = dra.slices();
            DraObjects last = lastDra;
            // The very object of the last pass while its parts are the very lists (DraView hands them again while its
            // informers saw no event): the unchanged-inputs check then compares it by identity.
            if (last == null || last.slices() != slices || last.allocations() != claims.allocations()
                    || last.unreadClaims() != claims.unread()) {
                lastDra = new DraObjects(slices, claims.allocations(), claims.unread());
            }
        } catch (KubernetesClientException e) {
            log.warn("DRA objects not readable; the record keeps the last hand-out", "status", e.getCode(),
                    "error", ClusterErrors.message(e, server));
        }
        return lastDra;
    }

    /** A target's change, the API requests that carried it out, and what the target held when the change was decided. */
    private record Applied<S, C extends Change>(C change, int writes, S current) {
    }

    /**
     * Posts an Event per GPU whose state changed since the record as this pass found it ({@code heldRecord}). An Event
     * the API server refuses is logged and not retried: the record now holds the new state, and an Event is a notice,
     * not a state to converge on (the condition is).
     */
    private int postEvents(CapacityRecordSink.Held heldRecord, NodeFacts node, DesiredState desired) throws IOException {
        GpuCapacity before = heldRecord == null ? null : heldRecord.record();
        HealthEventSink.EventsChange change = eventSink.decide(
                new HealthEventSink.Published(HealthEvents.published(before), node.uid()), desired);
        try {
            int writes = applier.apply(eventSink, change);
            metrics.writes(eventSink.name(), writes);
            return writes;
        } catch (KubernetesClientException e) {
            metrics.error(errorKind(e));
            log.warn("GPU health Event not posted", "events", change.summary(), "status", e.getCode(),
                    "error", ClusterErrors.message(e, server));
            return 0;
        }
    }

    /**
     * Reads one target, decides its change and applies it. When the target refuses it as decided from a state
     * that has since moved on, the target is read again and the change decided again, within this pass.
     */
    private <S, C extends Change> Applied<S, C> decideAndApply(Sink<S, C> sink, DesiredState desired) throws IOException {
        S current = sink.read(desired);
        for (int attempt = 1; ; attempt++) {
            C change = sink.decide(current, desired);
            try {
                int writes = applier.apply(sink, change);
                metrics.writes(sink.name(), writes);
                return new Applied<>(change, writes, current);
            } catch (KubernetesClientException e) {
                Optional<S> again = sink.reread(current, e.getCode(), attempt);
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
    private void nodeAdded(String uid) {
        String before = labelledUid;
        if (before != null && uid != null && !before.equals(uid)) {
            log.warn("node recreated under the same name; labelling it again", "node", settings.nodeName());
            trigger.accept("node recreated");
        }
    }

    /**
     * The Node's facts for this pass, from the informers. In a dry run the node is read once if the cluster is
     * there; without one the labels are printed in full.
     */
    private Optional<NodeFacts> readNode() {
        if (!settings.dryRun()) {
            return view.readForPass(false);
        }
        try {
            return view.readForPass(true);
        } catch (KubernetesClientException e) {
            out.println("# " + ClusterErrors.message(e, server) + "; showing every label as new");
            return Optional.empty();
        }
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
        dra.close();
        recordSink.close();
        if (deviceTaintSink != null) {
            deviceTaintSink.close();
        }
    }
}
