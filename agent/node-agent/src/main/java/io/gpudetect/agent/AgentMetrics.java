package io.gpudetect.agent;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.Vendor;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The agent's Prometheus metrics, kept per agent instance (no static registry) and rendered in the text
 * exposition format: passes by outcome, duration of the last pass, GPUs per vendor and model, each GPU's health,
 * Xid and other health events NVML reported, API writes by target and errors by kind.
 */
public final class AgentMetrics {

    private final SortedMap<String, AtomicLong> passes = new TreeMap<>();
    private final SortedMap<String, AtomicLong> writes = new TreeMap<>();
    private final SortedMap<String, AtomicLong> errors = new TreeMap<>();
    private volatile Map<VendorModel, Integer> gpus = Map.of();
    private volatile double lastPassSeconds;
    private final AtomicLong passSecondsTotalMillis = new AtomicLong();
    private final AtomicLong unchangedPasses = new AtomicLong();
    private volatile List<GpuHealth> health = List.of();
    private final SortedMap<Long, AtomicLong> xids = new TreeMap<>();
    private final SortedMap<String, AtomicLong> healthEvents = new TreeMap<>();
    private volatile int healthEventsWatched = -1;

    public synchronized void pass(String outcome, long millis) {
        passes.computeIfAbsent(outcome, k -> new AtomicLong()).incrementAndGet();
        lastPassSeconds = millis / 1000.0;
        passSecondsTotalMillis.addAndGet(millis);
    }

    /** A pass decided from the very inputs of the last pass that changed nothing (see NodeAgent.Unchanged). */
    public void unchanged() {
        unchangedPasses.incrementAndGet();
    }

    public synchronized void writes(String target, int n) {
        if (n > 0) {
            writes.computeIfAbsent(target, k -> new AtomicLong()).addAndGet(n);
        }
    }

    public synchronized void error(String kind) {
        errors.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
    }

    /** The GPUs one {@code gpu_detect_gpus} series counts. */
    record VendorModel(Vendor vendor, String model) {
        static final Comparator<VendorModel> ORDER =
                Comparator.comparing((VendorModel k) -> k.vendor().id()).thenComparing(VendorModel::model);

        /** A GPU no tool named the maker of is {@code other}; one of no known model {@code unknown}. */
        static VendorModel of(Gpu g) {
            return new VendorModel(g.vendor() == null ? Vendor.OTHER : g.vendor(),
                    g.model() == null ? "unknown" : g.model());
        }
    }

    /** One GPU's {@code gpu_detect_gpu_health} series: its address, UUID, vendor, model and state. */
    record GpuHealth(String pciAddress, String uuid, VendorModel kind, Health.Status state) {
    }

    /** The GPUs of the last complete pass, counted per vendor and model, and each GPU's health. */
    public void gpus(List<Gpu> found) {
        Map<VendorModel, Integer> counts = new TreeMap<>(VendorModel.ORDER);
        List<GpuHealth> states = new java.util.ArrayList<>();
        for (Gpu g : found) {
            counts.merge(VendorModel.of(g), 1, Integer::sum);
            if (g.health() != null && g.health().status() != null) {
                states.add(new GpuHealth(g.pciAddress() == null ? "" : g.pciAddress().toString(),
                        g.uuid() == null ? "" : g.uuid(), VendorModel.of(g), g.health().status()));
            }
        }
        gpus = java.util.Collections.unmodifiableMap(counts);
        health = List.copyOf(states);
    }

    /** An Xid NVML reported, the application's ones too. */
    public synchronized void xid(long xid) {
        xids.computeIfAbsent(xid, k -> new AtomicLong()).incrementAndGet();
    }

    /** A health event other than an Xid ({@code double-bit-ecc}). */
    public synchronized void healthEvent(String type) {
        healthEvents.computeIfAbsent(type, k -> new AtomicLong()).incrementAndGet();
    }

    /** How many GPUs NVML's event watcher waits on; 0 when it is not waiting (no events, or NVML failed). */
    public void healthEventsWatched(int gpus) {
        healthEventsWatched = gpus;
    }

    public synchronized long passCount() {
        return passes.values().stream().mapToLong(AtomicLong::get).sum();
    }

    public synchronized String render() {
        StringBuilder b = new StringBuilder();
        header(b, "gpu_detect_passes_total", "counter", "Detection passes by outcome (complete, incomplete, error).");
        passes.forEach((k, v) -> b.append("gpu_detect_passes_total{outcome=\"").append(k).append("\"} ").append(v).append('\n'));
        header(b, "gpu_detect_pass_duration_seconds", "gauge", "Duration of the last pass.");
        b.append("gpu_detect_pass_duration_seconds ").append(lastPassSeconds).append('\n');
        header(b, "gpu_detect_pass_duration_seconds_total", "counter", "Time spent in passes.");
        b.append("gpu_detect_pass_duration_seconds_total ").append(passSecondsTotalMillis.get() / 1000.0).append('\n');
        header(b, "gpu_detect_unchanged_passes_total", "counter",
                "Passes whose inputs were those of the last pass that changed nothing: decided without building the desired state.");
        b.append("gpu_detect_unchanged_passes_total ").append(unchangedPasses.get()).append('\n');
        header(b, "gpu_detect_gpus", "gauge", "GPUs found by the last complete pass, per vendor and model.");
        gpus.forEach((k, v) -> b.append("gpu_detect_gpus{vendor=\"").append(k.vendor().id()).append("\",model=\"")
                .append(k.model()).append("\"} ").append(v).append('\n'));
        header(b, "gpu_detect_gpu_health", "gauge",
                "Each GPU's health in the last complete pass: 1 for its state (ok, degraded, failed, lost), 0 for the others.");
        for (GpuHealth h : health) {
            for (Health.Status s : Health.Status.values()) {
                b.append("gpu_detect_gpu_health{pci_address=\"").append(h.pciAddress()).append("\",uuid=\"")
                        .append(h.uuid()).append("\",vendor=\"").append(h.kind().vendor().id()).append("\",model=\"")
                        .append(h.kind().model()).append("\",state=\"").append(s.id()).append("\"} ")
                        .append(s == h.state() ? 1 : 0).append('\n');
            }
        }
        header(b, "gpu_detect_xid_events_total", "counter",
                "Xid errors NVML reported since the agent started, by Xid (an application's Xids too: 13, 31, 43, 45, 68, 109).");
        xids.forEach((k, v) -> b.append("gpu_detect_xid_events_total{xid=\"").append(k).append("\"} ").append(v).append('\n'));
        header(b, "gpu_detect_health_events_total", "counter", "Health events other than Xids NVML reported, by type.");
        healthEvents.forEach((k, v) -> b.append("gpu_detect_health_events_total{type=\"").append(k).append("\"} ")
                .append(v).append('\n'));
        if (healthEventsWatched >= 0) {
            header(b, "gpu_detect_health_events_watched_gpus", "gauge",
                    "GPUs NVML's event watcher waits on; 0 when NVML gives no events or stopped answering.");
            b.append("gpu_detect_health_events_watched_gpus ").append(healthEventsWatched).append('\n');
        }
        header(b, "gpu_detect_api_writes_total", "counter", "Write requests sent to the API server, per target.");
        writes.forEach((k, v) -> b.append("gpu_detect_api_writes_total{target=\"").append(k).append("\"} ").append(v).append('\n'));
        header(b, "gpu_detect_errors_total", "counter", "Errors by kind (conflict, api-unavailable, forbidden, api, io, render).");
        errors.forEach((k, v) -> b.append("gpu_detect_errors_total{kind=\"").append(k).append("\"} ").append(v).append('\n'));
        return b.toString();
    }

    private static void header(StringBuilder b, String name, String type, String help) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }
}
