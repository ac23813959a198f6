package io.gpudetect.match;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.gpudetect.cli.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a set of nodes holds, per vendor and model: nodes, GPUs, allocatable, in use and free units, with each
 * node's state (a record that is stale, never had a good pass, or is missing is flagged). A node that takes no
 * new work (not Ready, cordoned, excluded by Akash's inventory operator) has no free units, whatever its pods
 * use: its state says why, and it is not flagged, since that is the cluster's choice, not a fault of its record.
 *
 * <p>Units in use are known per vendor on a node, not per card. On a node with several models of one vendor a
 * model's free units are counted as a bid sees them: {@code min(cards of that model, the vendor's free units)},
 * so the per-model rows of such a node can add up to more than the node has; the per-vendor rows are exact.
 *
 * <p>A failed or lost GPU is no free unit ({@link NodeOffer#free}): its model's free units are capped by the model's
 * healthy cards too. Allocatable and in use stay as the record says; each node's row names the GPUs not counted.
 *
 * @param models  one row per vendor, model, VRAM, interface and MIG profile ({@code mig} null for whole GPUs)
 * @param vendors one row per unit kind ({@code nvidia}, {@code mig-1g.10gb}), exact sums of the nodes' figures
 * @param nodes   every node, flagged or not
 */
public record ClusterInventory(String records, Instant now, Duration staleAfter, List<ModelRow> models,
                               List<VendorRow> vendors, List<NodeRow> nodes) {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ModelRow(String vendor, String model, Integer memoryGi, @JsonProperty("interface") String interfaceType,
                           String mig, int nodes, int gpus, int allocatable, int inUse, int free) {
    }

    public record VendorRow(String unitKind, int nodes, int units, int allocatable, int inUse, int free) {
    }

    /**
     * {@code state}: ok, unavailable, stale, no-good-pass or missing; {@code lastGoodPass} as written in the record;
     * {@code handout} and {@code warnings} as {@link NodeOffer} has them (null and empty for an older agent's record);
     * {@code notCounted} names the node's failed and lost GPUs, which are no free units ({@link NodeOffer#free}),
     * null when it has none.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record NodeRow(String node, int gpus, Map<String, Integer> allocatable, Map<String, Integer> inUse,
                          String lastGoodPass, String state, String detail, String handout,
                          @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> warnings, String notCounted) {

        public NodeRow {
            warnings = warnings == null ? List.of() : List.copyOf(warnings);
        }

        NodeRow(String node, int gpus, Map<String, Integer> allocatable, Map<String, Integer> inUse,
                String lastGoodPass, String state, String detail) {
            this(node, gpus, allocatable, inUse, lastGoodPass, state, detail, null, List.of(), null);
        }

        public boolean flagged() {
            return !state.equals("ok") && !state.equals(UNAVAILABLE);
        }
    }

    /** The state of a node whose record is current but that takes no new work. */
    static final String UNAVAILABLE = "unavailable";

    public ClusterInventory {
        models = List.copyOf(models);
        vendors = List.copyOf(vendors);
        nodes = List.copyOf(nodes);
    }

    public long flaggedNodes() {
        return nodes.stream().filter(NodeRow::flagged).count();
    }

    public static ClusterInventory of(String records, List<NodeOffer> offers, Instant now, Duration staleAfter) {
        Map<ModelKey, int[]> models = new TreeMap<>(ModelKey.ORDER);
        Map<String, int[]> vendors = new TreeMap<>();
        List<NodeRow> nodes = new ArrayList<>();
        for (NodeOffer n : offers) {
            nodes.add(nodeRow(n, now, staleAfter));
            Map<ModelKey, int[]> onNode = new TreeMap<>(ModelKey.ORDER);
            for (OfferedGpu g : n.gpus()) {
                int healthy = g.healthy() ? 1 : 0;
                if (g.migEnabled()) {
                    // The card itself is counted once; its slices are offered per profile.
                    count(onNode, ModelKey.of(g, null), 1, 0, 0);
                    for (String profile : g.profiles()) {
                        count(onNode, ModelKey.of(g, profile), 0, 1, healthy);
                    }
                } else {
                    count(onNode, ModelKey.of(g, null), 1, 1, healthy);
                }
            }
            for (Map.Entry<ModelKey, int[]> e : onNode.entrySet()) {
                String kind = e.getKey().mig() == null ? e.getKey().vendor() : "mig-" + e.getKey().mig();
                int units = e.getValue()[1];
                int allocatable = Math.min(units, n.allocatable(kind));
                // In use as the record says it: the health cap below changes what is free, not what pods hold.
                int idle = Math.min(units, Math.max(0, n.allocatable(kind) - n.inUse(kind)));
                // A failed or lost card of the model is no free unit of it (n.free caps the kind as a whole).
                int healthyIdle = Math.min(e.getValue()[2], n.free(kind));
                int[] row = models.computeIfAbsent(e.getKey(), k -> new int[5]);
                row[0]++;
                row[1] += e.getValue()[0];
                row[2] += allocatable;
                row[3] += allocatable - idle;
                row[4] += n.unavailable() != null ? 0 : healthyIdle;
            }
            for (String kind : kinds(n)) {
                int[] row = vendors.computeIfAbsent(kind, k -> new int[5]);
                row[0]++;
                row[1] += n.units(kind);
                row[2] += n.allocatable(kind);
                row[3] += n.inUse(kind);
                row[4] += n.unavailable() != null ? 0 : n.free(kind);
            }
        }
        List<ModelRow> modelRows = new ArrayList<>();
        models.forEach((k, v) -> modelRows.add(new ModelRow(k.vendor(), k.model(), k.memoryGi(), k.interfaceType(),
                k.mig(), v[0], v[1], v[2], v[3], v[4])));
        List<VendorRow> vendorRows = new ArrayList<>();
        vendors.forEach((k, v) -> vendorRows.add(new VendorRow(k, v[0], v[1], v[2], v[3], v[4])));
        return new ClusterInventory(records, now, staleAfter, modelRows, vendorRows, nodes);
    }

    /** One model row's GPUs: vendor, model, VRAM, interface and MIG profile (null for whole GPUs). */
    private record ModelKey(String vendor, String model, Integer memoryGi, String interfaceType, String mig) {
        /** Each field as text, {@code null} for none: a card's slices come before the card, as reviewed results list them. */
        static final Comparator<ModelKey> ORDER = Comparator.comparing((ModelKey k) -> k.vendor())
                .thenComparing(k -> String.valueOf(k.model())).thenComparing(k -> String.valueOf(k.memoryGi()))
                .thenComparing(k -> String.valueOf(k.interfaceType())).thenComparing(k -> String.valueOf(k.mig()));

        static ModelKey of(OfferedGpu g, String migProfile) {
            return new ModelKey(g.vendor().id(), g.model(), g.memoryGi(), g.interfaceType(), migProfile);
        }
    }

    private static void count(Map<ModelKey, int[]> onNode, ModelKey key, int gpus, int units, int healthyUnits) {
        int[] row = onNode.computeIfAbsent(key, k -> new int[3]);
        row[0] += gpus;
        row[1] += units;
        row[2] += healthyUnits;
    }

    /** The unit kinds a node has: from its GPUs and from its record's figures. */
    private static List<String> kinds(NodeOffer n) {
        java.util.Set<String> kinds = new java.util.TreeSet<>(n.allocatable().keySet());
        kinds.addAll(n.inUse().keySet());
        for (OfferedGpu g : n.gpus()) {
            if (!g.migEnabled()) {
                kinds.add(g.vendor().id());
            }
            g.profiles().forEach(p -> kinds.add("mig-" + p));
        }
        return List.copyOf(kinds);
    }

    private static NodeRow nodeRow(NodeOffer n, Instant now, Duration staleAfter) {
        NodeRow row = stateRow(n, now, staleAfter);
        return new NodeRow(row.node(), row.gpus(), row.allocatable(), row.inUse(), row.lastGoodPass(), row.state(),
                row.detail(), n.handout(), n.warnings(), NodeOffer.notCounted(n.gpus()));
    }

    private static NodeRow stateRow(NodeOffer n, Instant now, Duration staleAfter) {
        Map<String, Integer> allocatable = new TreeMap<>();
        Map<String, Integer> inUse = new TreeMap<>();
        for (String kind : kinds(n)) {
            allocatable.put(kind, n.allocatable(kind));
            inUse.put(kind, n.inUse(kind));
        }
        String last = n.lastGoodPass() == null ? null : n.lastGoodPass().toString();
        if (n.recordMissing()) {
            return new NodeRow(n.node(), 0, allocatable, inUse, null, "missing", "the node has no capacity record");
        }
        if (n.lastGoodPass() == null) {
            return new NodeRow(n.node(), n.gpus().size(), allocatable, inUse, null, "no-good-pass",
                    "the record has no last good pass");
        }
        Duration age = Duration.between(n.lastGoodPass(), now);
        if (age.compareTo(staleAfter) > 0) {
            return new NodeRow(n.node(), n.gpus().size(), allocatable, inUse, last, "stale",
                    "last good pass " + words(age) + " ago, more than " + Durations.format(staleAfter));
        }
        if (n.unavailable() != null) {
            return new NodeRow(n.node(), n.gpus().size(), allocatable, inUse, last, UNAVAILABLE, n.unavailable());
        }
        return new NodeRow(n.node(), n.gpus().size(), allocatable, inUse, last, "ok", null);
    }

    /** {@code 2h 5m}, {@code 45s}: an age for a person. */
    static String words(Duration d) {
        long s = Math.max(0, d.getSeconds());
        List<String> parts = new ArrayList<>();
        if (s >= 86400) {
            parts.add(s / 86400 + "d");
        }
        if (s % 86400 >= 3600) {
            parts.add(s % 86400 / 3600 + "h");
        }
        if (s % 3600 >= 60 && parts.size() < 2) {
            parts.add(s % 3600 / 60 + "m");
        }
        if ((s % 60 > 0 && parts.isEmpty()) || s == 0) {
            parts.add(s % 60 + "s");
        }
        return String.join(" ", parts);
    }

    static String orDash(Object o) {
        return Objects.toString(o, "-");
    }
}
