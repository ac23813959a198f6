package io.gpudetect.match;

import com.fasterxml.jackson.core.JsonGenerator;
import io.gpudetect.cli.Durations;
import io.gpudetect.render.InventoryDocument;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** A {@link ClusterInventory} as tables (models, unit kinds, nodes) or as JSON. */
public final class InventoryReport {

    private InventoryReport() {
    }

    public static String json(ClusterInventory inventory) {
        var mapper = InventoryDocument.jsonMapper();
        // The rows are written as they are serialized, not made into a tree first: valueToTree of 5,000 nodes' rows
        // was up to a twentieth of a 5,000-node inventory (issue 37). The generator is the mapper's, so that it indents
        // as writing the tree did.
        StringWriter out = new StringWriter();
        try (JsonGenerator g = mapper.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("records", inventory.records());
            g.writeStringField("now", inventory.now().toString());
            g.writeStringField("staleAfter", Durations.format(inventory.staleAfter()));
            g.writeFieldName("models");
            mapper.writeValue(g, inventory.models());
            g.writeFieldName("units");
            mapper.writeValue(g, inventory.vendors());
            g.writeFieldName("nodes");
            mapper.writeValue(g, inventory.nodes());
            g.writeNumberField("flaggedNodes", inventory.flaggedNodes());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out + "\n";
    }

    public static String table(ClusterInventory inventory) {
        StringBuilder out = new StringBuilder();
        List<String[]> models = new ArrayList<>();
        models.add(new String[] {"VENDOR", "MODEL", "VRAM", "IFACE", "MIG", "NODES", "GPUS", "ALLOCATABLE", "IN USE",
                "FREE"});
        for (ClusterInventory.ModelRow r : inventory.models()) {
            models.add(new String[] {r.vendor(), ClusterInventory.orDash(r.model()),
                    r.memoryGi() == null ? "-" : r.memoryGi() + "Gi", ClusterInventory.orDash(r.interfaceType()),
                    ClusterInventory.orDash(r.mig()), str(r.nodes()), r.mig() == null ? str(r.gpus()) : "-",
                    str(r.allocatable()), str(r.inUse()), str(r.free())});
        }
        out.append(models.size() == 1 ? "No GPUs in " + inventory.records() + "\n" : Columns.render(models, ""));
        out.append('\n');
        List<String[]> units = new ArrayList<>();
        units.add(new String[] {"UNITS", "NODES", "UNITS ON CARDS", "ALLOCATABLE", "IN USE", "FREE"});
        for (ClusterInventory.VendorRow r : inventory.vendors()) {
            units.add(new String[] {r.unitKind(), str(r.nodes()), str(r.units()), str(r.allocatable()), str(r.inUse()),
                    str(r.free())});
        }
        if (units.size() > 1) {
            out.append(Columns.render(units, "")).append('\n');
        }
        // The hand-out column only where some record has one: older agents' records read as they always did.
        boolean handouts = inventory.nodes().stream().anyMatch(n -> n.handout() != null);
        List<String[]> nodes = new ArrayList<>();
        nodes.add(handouts
                ? new String[] {"NODE", "GPUS", "ALLOCATABLE", "IN USE", "HANDED OUT BY", "LAST GOOD PASS", "STATE"}
                : new String[] {"NODE", "GPUS", "ALLOCATABLE", "IN USE", "LAST GOOD PASS", "STATE"});
        for (ClusterInventory.NodeRow n : inventory.nodes()) {
            List<String> row = new ArrayList<>(List.of(n.node(), str(n.gpus()), perKind(n.allocatable()),
                    perKind(n.inUse())));
            if (handouts) {
                row.add(ClusterInventory.orDash(n.handout()));
            }
            row.add(ClusterInventory.orDash(n.lastGoodPass()));
            row.add(n.state() + (n.detail() == null ? "" : " (" + n.detail() + ")"));
            nodes.add(row.toArray(String[]::new));
        }
        out.append(Columns.render(nodes, ""));
        for (ClusterInventory.NodeRow n : inventory.nodes()) {
            if (n.notCounted() != null) {
                out.append("health: ").append(n.node()).append(": ").append(n.notCounted()).append('\n');
            }
            for (String w : n.warnings()) {
                out.append("warning: ").append(n.node()).append(": ").append(w).append('\n');
            }
        }
        long flagged = inventory.flaggedNodes();
        out.append('\n').append(inventory.nodes().size()).append(inventory.nodes().size() == 1 ? " node" : " nodes")
                .append(flagged == 0 ? ", none flagged" : ", " + flagged + " flagged (stale, missing or without a good "
                        + "pass; stale after " + Durations.format(inventory.staleAfter()) + ")")
                .append(".\n");
        return out.toString();
    }

    private static String perKind(Map<String, Integer> units) {
        return units.isEmpty() ? "-" : units.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }

    private static String str(int n) {
        return Integer.toString(n);
    }
}
