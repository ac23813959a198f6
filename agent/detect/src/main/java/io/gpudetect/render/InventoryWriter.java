package io.gpudetect.render;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuField;
import io.gpudetect.model.GpuInterface;
import io.gpudetect.model.GpuLinks;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.model.Partition;
import io.gpudetect.model.Partitioning;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.PcieLink;
import io.gpudetect.model.PowerLimits;
import io.gpudetect.model.Vendor;
import io.gpudetect.model.Vgpu;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Writes an {@link Inventory} to a {@link DocumentSink} (JSON or YAML) field by field: the document
 * jackson-databind makes from the records' annotations, without an ObjectMapper, whose construction and
 * introspection of the records were about 50 ms of a one-shot command's start-up (docs/performance.md,
 * "Start-up and footprint tricks", row "JSON without a JSON library").
 *
 * <p>Fields come in record-component order, then {@code complete} and {@code interconnect}. A null is left out (the records'
 * {@code NON_NULL}), except in a probe summary, which has no inclusion rule but for {@code why}; an empty {@code gaps} is left out too; {@link Health} also leaves out
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
            if (probe.why() != null) {
                field(g, "why", probe.why());
            }
            g.endObject();
        }
        g.endArray();
        g.name("diagnostics");
        g.startArray();
        for (Diagnostic d : inventory.diagnostics()) {
            diagnostic(g, d);
        }
        g.endArray();
        if (inventory.machine() != null) {
            field(g, "machine", inventory.machine());
        }
        if (!inventory.gaps().isEmpty()) {
            g.name("gaps");
            g.startArray();
            for (String gap : inventory.gaps()) {
                g.string(gap);
            }
            g.endArray();
        }
        if (inventory.failure() != null) {
            field(g, "failure", inventory.failure());
        }
        if (inventory.fabric() != null) {
            fabric(g, inventory.fabric());
        }
        g.name("complete");
        g.bool(inventory.complete());
        io.gpudetect.model.Interconnect links = inventory.interconnect();
        if (links != null) {
            g.name("interconnect");
            interconnect(g, links);
        }
        g.endObject();
    }

    /** The node's RDMA fabric, as databind writes {@link io.gpudetect.model.Fabric}. */
    private static void fabric(DocumentSink g, io.gpudetect.model.Fabric f) throws IOException {
        g.name("fabric");
        g.startObject();
        if (!f.devices().isEmpty()) {
            g.name("devices");
            g.startArray();
            for (io.gpudetect.model.Fabric.RdmaDevice d : f.devices()) {
                g.startObject();
                field(g, "name", d.name());
                field(g, "pciAddress", d.pciAddress());
                field(g, "kernelDriver", d.kernelDriver());
                field(g, "numaNode", d.numaNode());
                field(g, "pcieRoot", d.pcieRoot());
                g.name("ports");
                g.startArray();
                for (io.gpudetect.model.Fabric.RdmaPort p : d.ports()) {
                    g.startObject();
                    g.name("port");
                    g.number(p.port());
                    field(g, "kind", p.kind() == null ? null : p.kind().id());
                    field(g, "linkLayer", p.linkLayer());
                    field(g, "state", p.state());
                    field(g, "physState", p.physState());
                    field(g, "rateGbps", p.rateGbps());
                    field(g, "rate", p.rate());
                    g.endObject();
                }
                g.endArray();
                g.endObject();
            }
            g.endArray();
        }
        if (f.gpuDirectRdma() != null) {
            g.name("gpuDirectRdma");
            g.startObject();
            field(g, "verdict", f.gpuDirectRdma().verdict() == null ? null : f.gpuDirectRdma().verdict().id());
            strings(g, "evidence", f.gpuDirectRdma().evidence());
            g.endObject();
        }
        if (!f.nearestNics().isEmpty()) {
            g.name("nearestNics");
            g.startArray();
            for (io.gpudetect.model.Fabric.NearestNic n : f.nearestNics()) {
                g.startObject();
                field(g, "gpuPciAddress", n.gpuPciAddress());
                field(g, "device", n.device());
                field(g, "distance", n.distance() == null ? null : n.distance().id());
                g.endObject();
            }
            g.endArray();
        }
        g.endObject();
    }

    private static void gpu(DocumentSink g, Gpu gpu) throws IOException {
        g.startObject();
        for (GpuField<?> field : GpuField.ALL) {
            value(g, field.name(), field.of(gpu));
        }
        g.name("sources");
        g.startObject();
        for (Map.Entry<String, String> e : gpu.sources().entrySet()) {
            nullable(g, e.getKey(), e.getValue());
        }
        g.endObject();
        g.endObject();
    }

    /** One GPU field by its type; nothing for an unknown (null) value. */
    private static void value(DocumentSink g, String name, Object value) throws IOException {
        if (value == null) {
            return;
        }
        if (value instanceof Partitioning p) {
            g.name(name);
            partitioning(g, p);
        } else if (value instanceof Health h) {
            g.name(name);
            health(g, h);
        } else if (value instanceof Vgpu v) {
            g.name(name);
            g.startObject();
            field(g, "present", v.present());
            field(g, "hostDriverVersion", v.hostDriverVersion());
            field(g, "hostDriverBranch", v.hostDriverBranch());
            g.endObject();
        } else if (value instanceof PcieLink l) {
            g.name(name);
            g.startObject();
            field(g, "currentGen", l.currentGen());
            field(g, "maxGen", l.maxGen());
            field(g, "currentWidth", l.currentWidth());
            field(g, "maxWidth", l.maxWidth());
            field(g, "degraded", l.degraded());
            g.endObject();
        } else if (value instanceof PowerLimits p) {
            g.name(name);
            g.startObject();
            field(g, "minWatts", p.minWatts());
            field(g, "maxWatts", p.maxWatts());
            field(g, "defaultWatts", p.defaultWatts());
            g.endObject();
        } else if (value instanceof GpuLinks l) {
            g.name(name);
            links(g, l);
        } else if (value instanceof Vendor v) {
            field(g, name, v.id());
        } else if (value instanceof GpuInterface i) {
            field(g, name, i.id());
        } else if (value instanceof PciAddress a) {
            field(g, name, a.toString());
        } else if (value instanceof String s) {
            field(g, name, s);
        } else if (value instanceof Boolean b) {
            field(g, name, b);
        } else if (value instanceof Double d) {
            field(g, name, d);
        } else if (value instanceof Number n) {
            field(g, name, n.longValue());
        } else {
            throw new IllegalStateException("GPU field " + name + " of a type the writer does not know: "
                    + value.getClass().getName());
        }
    }

    private static void links(DocumentSink g, GpuLinks l) throws IOException {
        g.startObject();
        g.name("links");
        g.startArray();
        for (GpuLinks.Link link : l.links()) {
            g.startObject();
            field(g, "kind", link.kind() == null ? null : link.kind().id());
            field(g, "up", link.up());
            field(g, "version", link.version());
            field(g, "remote", link.remote() == null ? null : link.remote().id());
            field(g, "remotePciAddress", link.remotePciAddress());
            field(g, "count", link.count());
            g.endObject();
        }
        g.endArray();
        if (l.fabric() != null) {
            g.name("fabric");
            g.startObject();
            field(g, "clusterUuid", l.fabric().clusterUuid());
            field(g, "cliqueId", l.fabric().cliqueId());
            field(g, "state", l.fabric().state());
            field(g, "status", l.fabric().status());
            g.endObject();
        }
        g.endObject();
    }

    private static void interconnect(DocumentSink g, io.gpudetect.model.Interconnect i) throws IOException {
        g.startObject();
        field(g, "topology", i.topology());
        field(g, "summary", i.summary());
        field(g, "gpus", i.gpus());
        field(g, "linkedGpus", i.linkedGpus());
        field(g, "linksUp", i.linksUp());
        field(g, "linksDown", i.linksDown());
        field(g, "allPairsJoined", i.allPairsJoined());
        field(g, "kind", i.kind());
        field(g, "clique", i.clique());
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
        field(g, "memoryMode", p.memoryMode());
        strings(g, "modes", p.modes());
        strings(g, "memoryModes", p.memoryModes());
        g.endObject();
    }

    /** A list of strings; nothing for an unknown (null) list, {@code []} for an empty one. */
    private static void strings(DocumentSink g, String name, List<String> values) throws IOException {
        if (values != null) {
            g.name(name);
            g.startArray();
            for (String v : values) {
                g.string(v);
            }
            g.endArray();
        }
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
        if (!h.reasons().isEmpty()) {
            g.name("reasons");
            g.startArray();
            for (HealthReason reason : h.reasons()) {
                g.string(reason.code());
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
