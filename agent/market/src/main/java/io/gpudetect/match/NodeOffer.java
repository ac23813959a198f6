package io.gpudetect.match;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one node offers, as a bid engine or scheduler needs it: its GPUs, its allocatable units and the
 * units pods use, per unit kind. A unit kind is a vendor id ({@code nvidia}, {@code amd}: whole GPUs, the
 * {@code <vendor>.com/gpu} resource) or {@code mig-<profile>} for MIG slices ({@code nvidia.com/mig-1g.10gb}).
 * A kind missing from {@code allocatable} means every such GPU (or slice) is allocatable.
 *
 * @param lastGoodPass when the node's agent last finished a complete pass; null when unknown or never
 * @param recordMissing true for a node known to the cluster with no capacity record (it offers nothing)
 * @param unavailable   why the node takes no new work, word for word ({@code not Ready (Ready is False:
 *                      KubeletNotReady)}, {@code cordoned (spec.unschedulable)}, excluded by Akash's inventory
 *                      operator); null when it takes work or when that is not known
 * @param handout       how the node's GPUs are handed out, as its record says ({@code dra (gpu.nvidia.com: 4 GPUs,
 *                      1 allocated)}, {@code devicePlugin}); null for a record without a hand-out (an older agent's)
 * @param warnings      what the record's hand-out says that is not capacity: DRA devices that match no GPU, pools
 *                      not fully seen, claims not read, GPUs served by both a device plugin and a DRA driver
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeOffer(String node, List<OfferedGpu> gpus, Map<String, Integer> allocatable,
                        Map<String, Integer> inUse, Instant lastGoodPass, boolean recordMissing, String unavailable,
                        String handout, @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> warnings,
                        @JsonIgnore io.gpudetect.record.FabricSpec fabric) {

    /** An offer whose node's fabric is not known. */
    public NodeOffer(String node, List<OfferedGpu> gpus, Map<String, Integer> allocatable, Map<String, Integer> inUse,
                     Instant lastGoodPass, boolean recordMissing, String unavailable, String handout, List<String> warnings) {
        this(node, gpus, allocatable, inUse, lastGoodPass, recordMissing, unavailable, handout, warnings, null);
    }

    public NodeOffer {
        gpus = List.copyOf(gpus);
        allocatable = Collections.unmodifiableMap(new TreeMap<>(allocatable));
        inUse = Collections.unmodifiableMap(new TreeMap<>(inUse));
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
    }

    /** A node with a record. */
    public static NodeOffer of(String node, List<OfferedGpu> gpus, Map<String, Integer> allocatable,
                               Map<String, Integer> inUse, Instant lastGoodPass) {
        return new NodeOffer(node, gpus, allocatable, inUse, lastGoodPass, false, null, null, List.of());
    }

    /** A node the cluster has, with no capacity record: its agent never ran or cannot write. */
    public static NodeOffer missing(String node) {
        return new NodeOffer(node, List.of(), Map.of(), Map.of(), null, true, null, null, List.of());
    }

    /** This offer from a node that takes no new work, for {@code reason}. */
    public NodeOffer unavailable(String reason) {
        return new NodeOffer(node, gpus, allocatable, inUse, lastGoodPass, recordMissing, reason, handout, warnings, fabric);
    }

    /** This offer with the record's hand-out described and its warnings. */
    public NodeOffer handedOut(String handout, List<String> warnings) {
        return new NodeOffer(node, gpus, allocatable, inUse, lastGoodPass, recordMissing, unavailable, handout, warnings, fabric);
    }

    /** This offer with its node's RDMA fabric, as its record (or its pass) says it; null when not known. */
    public NodeOffer withFabric(io.gpudetect.record.FabricSpec fabric) {
        return new NodeOffer(node, gpus, allocatable, inUse, lastGoodPass, recordMissing, unavailable, handout, warnings, fabric);
    }

    /**
     * This offer as its Node object and Akash's inventory operator configuration judge it: unavailable, with the
     * reason word for word, when the node is not Ready, is cordoned, or {@code exclusionRule} (a rule of the
     * operator's {@code exclude.nodes} that matches it; null for none) leaves it out.
     */
    public NodeOffer judged(KubeNode state, String exclusionRule) {
        String why = state.unavailable(exclusionRule);
        if (why == null) {
            return this;
        }
        return unavailable("node " + why + (state.unavailable() == null ? ": Akash's provider does not bid with it"
                : ": it takes no new pods, and Akash's provider does not bid with it"));
    }

    /** The unit kind a GPU or slice is allocated as: the vendor id, or {@code mig-<profile>}. */
    public static String unitKind(OfferedGpu gpu, String migProfile) {
        return migProfile == null ? gpu.vendor().id() : "mig-" + migProfile;
    }

    /** Units of {@code kind} the node has, by its GPUs: cards for a vendor, slices for a MIG profile. */
    public int units(String kind) {
        return units(kind, false);
    }

    /** Units of {@code kind} on GPUs that are neither failed nor lost ({@link OfferedGpu#healthy}). */
    public int healthyUnits(String kind) {
        return units(kind, true);
    }

    private int units(String kind, boolean healthyOnly) {
        int n = 0;
        for (OfferedGpu g : gpus) {
            if (healthyOnly && !g.healthy()) {
                continue;
            }
            n += unitsOn(g, kind);
        }
        return n;
    }

    /** Units of {@code kind} one GPU has: 1 card, or its slices of a MIG profile. */
    public static int unitsOn(OfferedGpu g, String kind) {
        if (kind.startsWith("mig-")) {
            return (int) g.profiles().stream().filter(p -> kind.equals("mig-" + p)).count();
        }
        return !g.migEnabled() && g.vendor().id().equals(kind) ? 1 : 0;
    }

    /** Allocatable units of {@code kind}: the record's figure, else every unit the GPUs have. */
    public int allocatable(String kind) {
        return allocatable.getOrDefault(kind, units(kind));
    }

    public int inUse(String kind) {
        return inUse.getOrDefault(kind, 0);
    }

    /**
     * Allocatable minus in use, never below 0; on a node with a failed or lost GPU of the kind, the allocatable
     * units are capped by the healthy ones first: {@code min(allocatable, healthy units) - in use}. The cap, not a
     * subtraction, because the device plugin may already have taken the GPU out of the allocatable (it marks a GPU
     * unhealthy on a critical Xid), and a GPU must not be taken off twice. Which cards the in-use units hold is not
     * known, so they are taken from the healthy ones: a pod on the failed GPU makes this count one short. Without an
     * unhealthy GPU the allocatable stands as it is (a shared GPU's time slices can outnumber the cards).
     */
    public int free(String kind) {
        int allocatable = allocatable(kind);
        int healthy = healthyUnits(kind);
        int counted = healthy == units(kind) ? allocatable : Math.min(allocatable, healthy);
        return Math.max(0, counted - inUse(kind));
    }

    /** The node's failed and lost GPUs, for the person reading why they are not counted. */
    public List<OfferedGpu> unhealthyGpus() {
        return gpus.stream().filter(g -> !g.healthy()).toList();
    }

    /**
     * {@code 1 GPU failed, not counted as free: 0000:17:00.0 (a100 80Gi sxm) failed (XidCritical)}: the GPUs of
     * {@code among} that are failed or lost, each with the reason codes its record gives, said once; null when there
     * are none.
     */
    public static String notCounted(List<OfferedGpu> among) {
        List<OfferedGpu> bad = among.stream().filter(g -> !g.healthy()).toList();
        if (bad.isEmpty()) {
            return null;
        }
        Map<String, Integer> perState = new TreeMap<>();
        bad.forEach(g -> perState.merge(g.health().id(), 1, Integer::sum));
        List<String> counts = new java.util.ArrayList<>();
        perState.forEach((state, n) -> counts.add(n + (counts.isEmpty() ? (n == 1 ? " GPU " : " GPUs ") : " ") + state));
        List<String> each = bad.stream().map(g -> (g.platform() == null || g.platform().pciAddress() == null
                ? "(address unknown)" : g.platform().pciAddress()) + " (" + g.describe() + ") " + g.health().id()
                + (g.healthReasons().isEmpty() ? "" : " (" + String.join(", ", g.healthReasons()) + ")"))
                .toList();
        return String.join(", ", counts) + ", not counted as free: " + String.join(", ", each);
    }
}
