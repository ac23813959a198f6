package io.gpudetect.agent;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The agent's Prometheus metrics, kept per agent instance (no static registry) and rendered in the text
 * exposition format: passes by outcome, duration of the last pass, GPUs per vendor and model, API writes by
 * target and errors by kind.
 */
public final class AgentMetrics {

    private final SortedMap<String, AtomicLong> passes = new TreeMap<>();
    private final SortedMap<String, AtomicLong> writes = new TreeMap<>();
    private final SortedMap<String, AtomicLong> errors = new TreeMap<>();
    private volatile Map<String, Integer> gpus = Map.of();
    private volatile double lastPassSeconds;
    private final AtomicLong passSecondsTotalMillis = new AtomicLong();

    public synchronized void pass(String outcome, long millis) {
        passes.computeIfAbsent(outcome, k -> new AtomicLong()).incrementAndGet();
        lastPassSeconds = millis / 1000.0;
        passSecondsTotalMillis.addAndGet(millis);
    }

    public synchronized void writes(String target, int n) {
        if (n > 0) {
            writes.computeIfAbsent(target, k -> new AtomicLong()).addAndGet(n);
        }
    }

    public synchronized void error(String kind) {
        errors.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
    }

    /** GPUs of the last complete pass, keyed {@code vendor|model}. */
    public void gpus(Map<String, Integer> byVendorModel) {
        gpus = Map.copyOf(byVendorModel);
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
        header(b, "gpu_detect_gpus", "gauge", "GPUs found by the last complete pass, per vendor and model.");
        new TreeMap<>(gpus).forEach((k, v) -> {
            String[] vm = k.split("\\|", 2);
            b.append("gpu_detect_gpus{vendor=\"").append(vm[0]).append("\",model=\"").append(vm.length > 1 ? vm[1] : "")
                    .append("\"} ").append(v).append('\n');
        });
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
