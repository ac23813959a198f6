package io.gpudetect.match;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Matches a {@link Demand} against nodes the way an Akash provider bids (provider
 * {@code cluster/kube/operators/clients/inventory/inventory.go}, {@code tryAdjustGPU}): all units of one replica come
 * from one node; a GPU counts if its vendor and model slug equal one of the request's entries, exactly as the
 * provider compares them ({@code ExistsOrWildcard}: {@code H100} is not {@code h100}; any model for a
 * vendor without entries), with {@code ram} equal to its size in Gi and {@code interface} equal to its interface,
 * when given; a {@code --gpu} request's floor ({@code driver>=}, {@code cuda>=}, {@code pcie>=}, {@code link=full},
 * {@link GpuFloor}) must be met by the GPU itself, a fact its node did not publish failing it; the node must have
 * that many units of the kind free. Each replica is placed on its own, so a node
 * may take several replicas when it has the units.
 *
 * <p>The whole demand is placed greedily: placements asking most units per replica first, each replica on the
 * node that fits it most tightly, so that big replicas are not crowded out. A node's in-use units are not tied to
 * particular cards (the record does not say which cards pods hold), so, as on Akash, a card counts as free while
 * the node has free units of its kind.
 */
public final class Matcher {

    private Matcher() {
    }

    public static MatchResult match(Demand demand, String offersFrom, List<NodeOffer> offers) {
        List<NodeOffer> nodes = offers.stream().sorted(Comparator.comparing(NodeOffer::node)).toList();
        Map<String, NodeState> states = new LinkedHashMap<>();
        for (NodeOffer n : nodes) {
            states.put(n.node(), new NodeState(n));
        }
        // Biggest replicas first; the stable sort keeps the file's order among equals.
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < demand.placements().size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparingInt((Integer i) -> -demand.placements().get(i).gpu().units()));
        Map<Integer, List<String>> assigned = new HashMap<>();
        for (int i : order) {
            assigned.put(i, place(demand.placements().get(i), states));
        }
        List<PlacementMatch> results = new ArrayList<>();
        boolean fits = true;
        for (int i = 0; i < demand.placements().size(); i++) {
            Placement p = demand.placements().get(i);
            List<NodeVerdict> verdicts = new ArrayList<>();
            if (p.gpu().asksForGpu()) {
                for (NodeOffer n : nodes) {
                    verdicts.add(new NodeState(n).verdict(p.gpu()));
                }
            }
            List<String> placedOn = assigned.get(i);
            // A replica without GPUs can go anywhere as far as GPUs are concerned: CPU and memory are not ours to judge.
            int placed = p.gpu().asksForGpu() ? placedOn.size() : p.replicas();
            boolean placementFits = placed == p.replicas();
            fits &= placementFits;
            results.add(new PlacementMatch(p.service(), p.placement(), p.profile(), p.replicas(), p.gpu().describe(),
                    p.gpu().units(), p.gpu().choices(), placementFits, placed, placedOn, verdicts));
        }
        List<String> warnings = new ArrayList<>(demand.warnings());
        for (NodeOffer n : nodes) {
            n.warnings().forEach(w -> warnings.add("node " + n.node() + ": " + w));
        }
        return new MatchResult(demand.origin(), offersFrom, fits, results, warnings);
    }

    /** Places the replicas one by one, taking their units from the states; returns the node of each placed one. */
    private static List<String> place(Placement p, Map<String, NodeState> states) {
        List<String> placedOn = new ArrayList<>();
        if (!p.gpu().asksForGpu()) {
            return placedOn;
        }
        for (int r = 0; r < p.replicas(); r++) {
            NodeState best = null;
            NodeVerdict bestVerdict = null;
            for (NodeState s : states.values()) {
                NodeVerdict v = s.verdict(p.gpu());
                if (v.canServe() && (bestVerdict == null || v.free() < bestVerdict.free())) {
                    best = s;
                    bestVerdict = v;
                }
            }
            if (best == null) {
                break;
            }
            best.take(p.gpu(), bestVerdict.unitKind());
            placedOn.add(best.offer.node());
        }
        return placedOn;
    }

    /** Stages a GPU passes for one choice, in order; the furthest stage reached explains a refusal best. */
    private enum Stage { VENDOR, MODEL, RAM, INTERFACE, FLOOR, PARTITION, MATCH }

    /** A node during placement: which of its units this run has already given to replicas. */
    private static final class NodeState {
        private final NodeOffer offer;
        /** Units taken per GPU index and kind. */
        private final Map<String, Integer> takenPerGpu = new HashMap<>();
        private final Map<String, Integer> takenPerKind = new HashMap<>();

        NodeState(NodeOffer offer) {
            this.offer = offer;
        }

        /** Units of {@code kind} GPU {@code i} has: 1 card, or its slices of a MIG profile. */
        private int unitsOn(OfferedGpu g, String kind) {
            if (kind.startsWith("mig-")) {
                return (int) g.profiles().stream().filter(p -> kind.equals("mig-" + p)).count();
            }
            return g.migEnabled() ? 0 : 1;
        }

        private int untaken(int i, String kind) {
            return unitsOn(offer.gpus().get(i), kind) - takenPerGpu.getOrDefault(i + "/" + kind, 0);
        }

        private int freeOfKind(String kind) {
            return Math.max(0, offer.free(kind) - takenPerKind.getOrDefault(kind, 0));
        }

        /** Matching units per kind, by GPU index, for the GPUs that fully match some choice. */
        private Map<String, Map<Integer, Integer>> matching(GpuRequest request) {
            Map<String, Map<Integer, Integer>> byKind = new TreeMap<>();
            for (int i = 0; i < offer.gpus().size(); i++) {
                OfferedGpu g = offer.gpus().get(i);
                if (!g.healthy()) {
                    // A failed or lost GPU serves no replica; the verdict names it (notCounted).
                    continue;
                }
                for (GpuChoice c : request.choices()) {
                    if (stage(c, g) == Stage.MATCH) {
                        String kind = NodeOffer.unitKind(g, c.migProfile());
                        int n = untaken(i, kind);
                        if (n > 0) {
                            byKind.computeIfAbsent(kind, k -> new TreeMap<>()).put(i, n);
                        }
                    }
                }
            }
            if (request.nvlinkAll()) {
                // Whole GPUs only: MIG slices of one GPU share it, NVLink joins GPUs.
                byKind.replaceAll((kind, perGpu) -> kind.startsWith("mig-") ? perGpu
                        : InterconnectRequest.joinedSubset(request, offer.gpus(), perGpu));
            }
            return byKind;
        }

        /** Matching GPUs of {@code kind} before {@code nvlink=all} keeps only a joined set of them. */
        private int matchingIgnoringLinks(GpuRequest request, String kind) {
            GpuRequest any = new GpuRequest(request.units(), request.choices(), request.unbiddable(), request.fabric(), false);
            return matching(any).getOrDefault(kind, Map.of()).values().stream().mapToInt(Integer::intValue).sum();
        }

        NodeVerdict verdict(GpuRequest request) {
            String node = offer.node();
            if (offer.unavailable() != null) {
                return new NodeVerdict(node, false, 0, null, offer.unavailable(), null);
            }
            if (offer.recordMissing()) {
                return new NodeVerdict(node, false, 0, null, "no capacity record for this node", null);
            }
            if (request.unbiddable() != null) {
                return new NodeVerdict(node, false, 0, null, request.unbiddable(), null);
            }
            String noFabric = request.fabric() == null ? null : request.fabric().refusal(offer.fabric());
            if (noFabric != null) {
                return new NodeVerdict(node, false, 0, null, noFabric, null);
            }
            Map<String, Map<Integer, Integer>> matching = matching(request);
            String bestKind = null;
            int bestFree = 0;
            int bestMatching = 0;
            for (Map.Entry<String, Map<Integer, Integer>> e : matching.entrySet()) {
                int count = e.getValue().values().stream().mapToInt(Integer::intValue).sum();
                int free = Math.min(count, freeOfKind(e.getKey()));
                if (bestKind == null || free > bestFree || (free == bestFree && count > bestMatching)) {
                    bestKind = e.getKey();
                    bestFree = free;
                    bestMatching = count;
                }
            }
            String notCounted = NodeOffer.notCounted(offer.gpus().stream()
                    .filter(g -> request.choices().stream().anyMatch(c -> stage(c, g) == Stage.MATCH)).toList());
            if (bestKind != null && bestFree >= request.units()) {
                return new NodeVerdict(node, true, bestFree, bestKind, null, notCounted);
            }
            String refusal = refusal(request, bestKind, bestMatching);
            if (bestKind == null && notCounted != null) {
                // Every GPU that matched is failed or lost: that, not the model, is why.
                refusal = "no healthy matching GPU";
            }
            return new NodeVerdict(node, false, bestFree, bestKind, refusal, notCounted);
        }

        private String refusal(GpuRequest request, String kind, int matching) {
            if (kind == null) {
                return noMatch(request);
            }
            String what = kind.startsWith("mig-") ? "MIG " + kind.substring(4) + " slice" : "GPU";
            if (matching < request.units() && request.nvlinkAll() && !kind.startsWith("mig-")) {
                int all = matchingIgnoringLinks(request, kind);
                if (all >= request.units()) {
                    return InterconnectRequest.shortfall(offer.gpus(), all, matching, request.units());
                }
            }
            if (matching < request.units()) {
                return "too few GPUs: " + matching + " matching " + what + (matching == 1 ? "" : "s") + " ("
                        + matchingModels(request) + "), " + request.units() + " asked per replica"
                        + floorShortfalls(request);
            }
            int allocatable = offer.allocatable(kind);
            int free = freeOfKind(kind);
            if (allocatable == 0 && offer.units(kind) > 0) {
                return "no " + CapacityRecordOffers.resourceName(kind) + " allocatable" + (offer.handout() == null
                        ? " (device plugin missing?)" : " and no DRA driver hands these GPUs out (handed out: "
                        + offer.handout() + ")");
            }
            int healthy = offer.healthyUnits(kind);
            if (healthy < offer.units(kind)) {
                // Free is min(allocatable, healthy) - in use: say each figure, so the cap can be checked.
                return (free == 0 ? "no free healthy units: " : "too few free healthy units: " + free + " " + kind
                        + " free; ") + allocatable + " " + kind + " allocatable, " + healthy + " on healthy GPUs, "
                        + offer.inUse(kind) + " in use" + (takenPerKind.containsKey(kind) ? " and "
                        + takenPerKind.get(kind) + " taken by other replicas of this deployment" : "")
                        + (free == 0 ? "" : ", " + request.units() + " asked per replica");
            }
            if (free == 0) {
                return "all units in use: " + allocatable + " " + kind + " allocatable, " + offer.inUse(kind)
                        + " in use" + (takenPerKind.containsKey(kind) ? " and " + takenPerKind.get(kind)
                        + " taken by other replicas of this deployment" : "");
            }
            return "too few free units: " + free + " " + kind + " free of " + allocatable + ", " + request.units()
                    + " asked per replica";
        }

        private String matchingModels(GpuRequest request) {
            return offer.gpus().stream().filter(g -> request.choices().stream().anyMatch(c -> stage(c, g) == Stage.MATCH))
                    .map(OfferedGpu::describe).distinct().collect(Collectors.joining(", "));
        }

        /**
         * {@code ; GPU 0000:1b:00.0 link x8 of x16}: why the GPUs that match a choice but its driver or link floor
         * were left out, so a node short of GPUs says which ones fell short; empty when none did.
         */
        private String floorShortfalls(GpuRequest request) {
            List<String> reasons = new ArrayList<>();
            for (OfferedGpu g : offer.gpus()) {
                for (GpuChoice c : request.choices()) {
                    if (stage(c, g) == Stage.FLOOR) {
                        String why = c.floor().shortfall(g);
                        if (!reasons.contains(why)) {
                            reasons.add(why);
                        }
                        break;
                    }
                }
            }
            if (reasons.isEmpty()) {
                return "";
            }
            int shown = Math.min(3, reasons.size());
            return "; " + String.join(", ", reasons.subList(0, shown))
                    + (reasons.size() > shown ? " and " + (reasons.size() - shown) + " more" : "");
        }

        /** Why no GPU of the node matches any choice: the choice and GPU that came closest. */
        private String noMatch(GpuRequest request) {
            if (offer.gpus().isEmpty()) {
                return "no GPUs on this node";
            }
            Stage furthest = Stage.VENDOR;
            GpuChoice choice = request.choices().get(0);
            OfferedGpu gpu = offer.gpus().get(0);
            for (GpuChoice c : request.choices()) {
                for (OfferedGpu g : offer.gpus()) {
                    Stage s = stage(c, g);
                    if (s.ordinal() > furthest.ordinal()) {
                        furthest = s;
                        choice = c;
                        gpu = g;
                    }
                }
            }
            String has = "has " + inventory();
            switch (furthest) {
                case VENDOR:
                    return "no " + request.choices().stream().map(c -> c.vendor().id()).distinct()
                            .collect(Collectors.joining(" or ")) + " GPU: " + has;
                case MODEL:
                    return "no such model: asked " + request.choices().stream().map(c -> c.vendor().id() + " "
                            + (c.model().isEmpty() ? "(no model)" : c.model())).distinct()
                            .collect(Collectors.joining(" or ")) + ", " + has + caseHint(request);
                case RAM:
                    if (gpu.memoryGi() == null) {
                        return "VRAM unknown: " + gpu.describe() + ", " + choice.ramGi() + "Gi asked";
                    }
                    return (gpu.memoryGi() < choice.ramGi() ? "too little VRAM: " : "VRAM differs: ") + gpu.model()
                            + " has " + gpu.memoryGi() + "Gi, " + (choice.ramAtLeast() ? "at least " : "")
                            + choice.ramGi() + "Gi asked";
                case INTERFACE:
                    if (gpu.interfaceType() == null) {
                        // Nothing said whether the card is SXM or PCIe (an H100 seen only by name is either):
                        // the provider's bid would not count it, and the fix is a better source, not a new card.
                        return "interface unknown: " + gpu.describe() + ", " + choice.interfaceType() + " asked";
                    }
                    return "interface differs: " + gpu.model() + " is " + gpu.interfaceType() + ", "
                            + choice.interfaceType() + " asked";
                case FLOOR:
                    return choice.floor().shortfall(gpu);
                default:
                    if (choice.migProfile() == null) {
                        return "MIG is on: " + gpu.model() + " is offered only as slices"
                                + (gpu.profiles().isEmpty() ? "" : " (" + String.join(", ", gpu.profiles()) + ")");
                    }
                    return "no MIG " + choice.migProfile() + " slice: " + gpu.model() + (gpu.migEnabled()
                            ? " has " + (gpu.profiles().isEmpty() ? "no named slices" : String.join(", ", gpu.profiles()))
                            : " has MIG off");
            }
        }

        /** A model asked in another case than a card's: Akash compares names exactly, so say how to write it. */
        private String caseHint(GpuRequest request) {
            for (GpuChoice c : request.choices()) {
                for (OfferedGpu g : offer.gpus()) {
                    if (c.model() != null && g.model() != null && !c.model().equals(g.model())
                            && c.model().equalsIgnoreCase(g.model())) {
                        return " (Akash compares model names exactly: write " + g.model() + ", not " + c.model() + ")";
                    }
                }
            }
            return "";
        }

        /** {@code 2 x nvidia rtx4090 24Gi pcie, 1 x amd mi300x 192Gi oam}. */
        private String inventory() {
            Map<String, Integer> counts = new TreeMap<>();
            for (OfferedGpu g : offer.gpus()) {
                counts.merge(g.vendor().id() + " " + g.describe(), 1, Integer::sum);
            }
            return counts.entrySet().stream().map(e -> e.getValue() + " x " + e.getKey())
                    .collect(Collectors.joining(", "));
        }

        void take(GpuRequest request, String kind) {
            int needed = request.units();
            Map<Integer, Integer> perGpu = matching(request).getOrDefault(kind, Map.of());
            for (Map.Entry<Integer, Integer> e : perGpu.entrySet()) {
                int n = Math.min(needed, e.getValue());
                takenPerGpu.merge(e.getKey() + "/" + kind, n, Integer::sum);
                needed -= n;
                if (needed == 0) {
                    break;
                }
            }
            takenPerKind.merge(kind, request.units(), Integer::sum);
        }
    }

    static Stage stage(GpuChoice c, OfferedGpu g) {
        if (c.vendor() != g.vendor()) {
            return Stage.VENDOR;
        }
        if (c.model() != null && !c.model().equals(g.model())) {
            return Stage.MODEL;
        }
        if (c.ramGi() != null && (g.memoryGi() == null
                || (c.ramAtLeast() ? g.memoryGi() < c.ramGi() : !Objects.equals(g.memoryGi(), c.ramGi())))) {
            return Stage.RAM;
        }
        if (c.interfaceType() != null && !c.interfaceType().equals(g.interfaceType())) {
            return Stage.INTERFACE;
        }
        if (c.floor() != null && c.floor().shortfall(g) != null) {
            return Stage.FLOOR;
        }
        boolean slicesAsked = c.migProfile() != null;
        if (slicesAsked ? !g.profiles().contains(c.migProfile()) : g.migEnabled()) {
            return Stage.PARTITION;
        }
        return Stage.MATCH;
    }
}
