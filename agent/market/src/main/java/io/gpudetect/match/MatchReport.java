package io.gpudetect.match;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.gpudetect.render.InventoryDocument;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A {@link MatchResult} for a person (a block per placement, a verdict per node) or as JSON. */
public final class MatchReport {

    private MatchReport() {
    }

    public static String json(MatchResult result) {
        try {
            return InventoryDocument.jsonMapper().writeValueAsString(result) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String table(MatchResult result) {
        StringBuilder out = new StringBuilder();
        out.append("Matching ").append(result.demand()).append(" against ").append(result.offers()).append("\n\n");
        for (String w : result.warnings()) {
            out.append("warning: ").append(w).append('\n');
        }
        if (!result.warnings().isEmpty()) {
            out.append('\n');
        }
        for (PlacementMatch p : result.placements()) {
            out.append(title(p)).append(": ").append(p.replicas()).append(p.replicas() == 1 ? " replica" : " replicas")
                    .append(" of ").append(p.request()).append(": ").append(outcome(p)).append('\n');
            if (p.unitsPerReplica() == 0) {
                continue;
            }
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"NODE", "FREE", "VERDICT"});
            for (NodeVerdict v : p.nodes()) {
                rows.add(new String[] {v.node(), v.unitKind() == null ? "0" : v.free() + " " + v.unitKind(),
                        (v.canServe() ? "can serve" : v.reason()) + (v.notCounted() == null ? "" : "; " + v.notCounted())});
            }
            if (p.nodes().isEmpty()) {
                out.append("  no nodes to match against\n");
            } else {
                out.append(Columns.render(rows, "  "));
            }
        }
        out.append('\n').append(summary(result)).append('\n');
        return out.toString();
    }

    /** {@code web/westcoast (profile web)}; a --gpu request is named by its option alone. */
    private static String title(PlacementMatch p) {
        if (p.placement().equals(CapabilityRequest.PLACEMENT)) {
            return p.service();
        }
        return p.service() + "/" + p.placement() + " (profile " + p.profile() + ")";
    }

    /** {@code web/westcoast}, or {@code --gpu[0]}. */
    private static String shortTitle(PlacementMatch p) {
        return p.placement().equals(CapabilityRequest.PLACEMENT) ? p.service() : p.service() + "/" + p.placement();
    }

    private static String outcome(PlacementMatch p) {
        if (p.unitsPerReplica() == 0) {
            return "fits (no GPU asked)";
        }
        if (!p.fits()) {
            return "DOES NOT FIT, " + p.placed() + " of " + p.replicas() + " placed"
                    + (p.placed() == 0 ? "" : " (" + placements(p.assigned()) + ")");
        }
        return "fits on " + placements(p.assigned());
    }

    /** {@code node-a (x2), node-b}. */
    private static String placements(List<String> nodes) {
        Map<String, Integer> counts = new TreeMap<>();
        nodes.forEach(n -> counts.merge(n, 1, Integer::sum));
        List<String> parts = new ArrayList<>();
        counts.forEach((n, c) -> parts.add(c == 1 ? n : n + " (x" + c + ")"));
        return String.join(", ", parts);
    }

    private static String summary(MatchResult result) {
        if (result.fits()) {
            return "Fits: every replica has a node with the GPUs it asks for.";
        }
        List<String> unplaced = new ArrayList<>();
        for (PlacementMatch p : result.placements()) {
            if (!p.fits()) {
                unplaced.add(shortTitle(p) + " (" + (p.replicas() - p.placed()) + " of " + p.replicas()
                        + " replicas without a node)");
            }
        }
        return "Does not fit: " + String.join(", ", unplaced) + ".";
    }
}
