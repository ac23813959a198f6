package io.gpudetect.render;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.Partition;
import io.gpudetect.model.Partitioning;
import java.io.IOException;
import java.util.Map;

/**
 * Writes an {@link Inventory} to a {@link DocumentSink} (JSON or YAML) field by field: the document
 * jackson-databind makes from the records' annotations, without an ObjectMapper, whose construction and
 * introspection of the records were about 50 ms of a one-shot command's start-up (docs/performance.md,
 * "Start-up and footprint tricks", row "JSON without a JSON library").
 *
 * <p>Fields come in record-component order, {@code complete} last. A null is left out (the records'
 * {@code NON_NULL}), except in a probe summary, which has no inclusion rule; {@link Health} also leaves out
 * an empty problem list ({@code NON_EMPTY}). InventoryWriterTest compares this with databind for every
 * fixture and fails when a record gains a component that is not written here.
 */
final class InventoryWriter {

    private InventoryWriter() {
    }

    static void write(DocumentSink g, Inventory inventory) throws IOException {
        g.startObject();
        field(g, "source", inventory.source());
        g.name("gpus");
        g.startArray();
        for (Gpu gpu : inventory.gpus()) {
            gpu(g, gpu);
        }
        g.endArray();
        g.name("probes");
        g.startArray();
        for (Inventory.ProbeSummary probe : inventory.probes()) {
            g.startObject();
            nullable(g, "name", probe.name());
            nullable(g, "outcome", probe.outcome() == null ? null : probe.outcome().id());
            g.name("gpus");
            g.number(probe.gpus());
            g.endObject();
        }
        g.endArray();
        g.name("diagnostics");
        g.startArray();
        for (Diagnostic d : inventory.diagnostics()) {
            diagnostic(g, d);
        }
        g.endArray();
        g.name("complete");
        g.bool(inventory.complete());
        g.endObject();
    }

    private static void gpu(DocumentSink g, Gpu gpu) throws IOException {
        g.startObject();
        field(g, "vendor", gpu.vendor() == null ? null : gpu.vendor().id());
        field(g, "name", gpu.name());
        field(g, "model", gpu.model());
        field(g, "memoryMiB", gpu.memoryMiB());
        field(g, "memoryGi", gpu.memoryGi());
        field(g, "sharedMemory", gpu.sharedMemory());
        field(g, "driverVersion", gpu.driverVersion());
        field(g, "runtimeVersion", gpu.runtimeVersion());
        field(g, "pciAddress", gpu.pciAddress() == null ? null : gpu.pciAddress().toString());
        field(g, "pciVendorId", gpu.pciVendorId());
        field(g, "pciDeviceId", gpu.pciDeviceId());
        field(g, "pciSubsystemVendorId", gpu.pciSubsystemVendorId());
        field(g, "pciSubsystemDeviceId", gpu.pciSubsystemDeviceId());
        field(g, "pciRevision", gpu.pciRevision());
        field(g, "uuid", gpu.uuid());
        field(g, "serial", gpu.serial());
        field(g, "boardPartNumber", gpu.boardPartNumber());
        field(g, "interface", gpu.interfaceType());
        field(g, "architecture", gpu.architecture());
        field(g, "computeCapability", gpu.computeCapability());
        field(g, "computeUnits", gpu.computeUnits());
        field(g, "kernelDriver", gpu.kernelDriver());
        field(g, "powerLimitWatts", gpu.powerLimitWatts());
        if (gpu.partitioning() != null) {
            g.name("partitioning");
            partitioning(g, gpu.partitioning());
        }
        if (gpu.health() != null) {
            g.name("health");
            health(g, gpu.health());
        }
        field(g, "emulated", gpu.emulated());
        g.name("sources");
        g.startObject();
        for (Map.Entry<String, String> e : gpu.sources().entrySet()) {
            nullable(g, e.getKey(), e.getValue());
        }
        g.endObject();
        g.endObject();
    }

    private static void partitioning(DocumentSink g, Partitioning p) throws IOException {
        g.startObject();
        field(g, "kind", p.kind());
        field(g, "enabled", p.enabled());
        field(g, "pendingEnabled", p.pendingEnabled());
        g.name("instances");
        g.startArray();
        for (Partition i : p.instances()) {
            g.startObject();
            field(g, "profile", i.profile());
            field(g, "gpuInstanceId", i.gpuInstanceId());
            field(g, "computeInstanceId", i.computeInstanceId());
            field(g, "memoryMiB", i.memoryMiB());
            field(g, "multiprocessors", i.multiprocessors());
            field(g, "uuid", i.uuid());
            g.endObject();
        }
        g.endArray();
        g.endObject();
    }

    private static void health(DocumentSink g, Health h) throws IOException {
        g.startObject();
        field(g, "status", h.status() == null ? null : h.status().id());
        field(g, "eccUncorrectedErrors", h.eccUncorrectedErrors());
        if (!h.problems().isEmpty()) {
            g.name("problems");
        g.startArray();
            for (String problem : h.problems()) {
                g.string(problem);
            }
            g.endArray();
        }
        g.endObject();
    }

    private static void diagnostic(DocumentSink g, Diagnostic d) throws IOException {
        g.startObject();
        field(g, "severity", d.severity() == null ? null : d.severity().id());
        field(g, "probe", d.probe());
        field(g, "file", d.file());
        field(g, "line", d.line());
        field(g, "message", d.message());
        g.endObject();
    }

    private static void field(DocumentSink g, String name, String value) throws IOException {
        if (value != null) {
            g.name(name);
            g.string(value);
        }
    }

    private static void field(DocumentSink g, String name, Integer value) throws IOException {
        if (value != null) {
            g.name(name);
            g.number(value.longValue());
        }
    }

    private static void field(DocumentSink g, String name, Long value) throws IOException {
        if (value != null) {
            g.name(name);
            g.number(value.longValue());
        }
    }

    private static void field(DocumentSink g, String name, Double value) throws IOException {
        if (value != null) {
            g.name(name);
            g.number(value.doubleValue());
        }
    }

    private static void field(DocumentSink g, String name, Boolean value) throws IOException {
        if (value != null) {
            g.name(name);
            g.bool(value);
        }
    }

    /** A field written even when null, as databind does where no inclusion rule applies. */
    private static void nullable(DocumentSink g, String name, String value) throws IOException {
        g.name(name);
        if (value == null) {
            g.nullValue();
        } else {
            g.string(value);
        }
    }
}
