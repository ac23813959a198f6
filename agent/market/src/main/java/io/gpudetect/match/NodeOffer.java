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
        int n = 0;
        for (OfferedGpu g : gpus) {
            if (kind.startsWith("mig-")) {
                n += (int) g.profiles().stream().filter(p -> kind.equals("mig-" + p)).count();
            } else if (!g.migEnabled() && g.vendor().id().equals(kind)) {
                n++;
            }
        }
        return n;
    }

    /** Allocatable units of {@code kind}: the record's figure, else every unit the GPUs have. */
    public int allocatable(String kind) {
        return allocatable.getOrDefault(kind, units(kind));
    }

    public int inUse(String kind) {
        return inUse.getOrDefault(kind, 0);
    }

    /** Allocatable minus in use, never below 0. */
    public int free(String kind) {
        return Math.max(0, allocatable(kind) - inUse(kind));
    }
}
