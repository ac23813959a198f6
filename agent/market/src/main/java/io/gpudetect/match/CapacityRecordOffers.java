package io.gpudetect.match;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpudetect.k8s.ClusterErrors;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.GpuCapacitySpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The one adapter from {@code GpuCapacity} records to {@link NodeOffer}s. Records are read as the typed
 * {@link GpuCapacity} the agent writes, from a cluster or, leniently, from a hand-written file ({@link RecordSet});
 * everything else reads {@link NodeOffer} only.
 *
 * <pre>
 * apiVersion: gpu-detect.io/v1alpha1
 * kind: GpuCapacity
 * metadata: {name: node-a}                       # named after the node
 * spec:
 *   gpus:                                        # one entry per GPU
 *   - {vendor: nvidia, model: a100, memoryGi: 40, interface: sxm, pciAddress: "0000:17:00.0", partitioned: true}
 *   slices:                                      # MIG instances of partitioned GPUs
 *   - {gpuPciAddress: "0000:17:00.0", kind: mig, profile: 3g.20gb}
 *   allocatable: {nvidia.com/gpu: 0, nvidia.com/mig-3g.20gb: 2}   # the Node's extended resources
 *   requested: {nvidia.com/mig-3g.20gb: 1}                         # what its pods use
 * status:
 *   lastGoodPass: "2026-05-01T10:00:00Z"
 * </pre>
 * Nodes listed beside the records (a cluster's, or {@code Node} objects in a kubectl list) without a record of their
 * own are reported as missing; one that is not Ready, is cordoned or is left out by Akash's inventory operator
 * takes no replica ({@link KubeNode}). A record with an {@code allocatable} map offers no units of a kind it lacks; one
 * without (hand-written) offers every card it lists. A record's {@code handout} adds the GPUs a DRA driver hands out
 * ({@link HandoutCount}): they are not in the Node's allocatable.
 */
public final class CapacityRecordOffers implements OfferSource {

    /** Where the records come from: a file ({@link #file}) or a cluster ({@link #cluster}). */
    public interface RecordStore {
        /** Every record, and the names of the nodes that should have one. */
        RecordSet records() throws InvalidInputException;

        /**
         * Every record made into what {@code keep} keeps of it, and the Nodes. A file's and a cluster's make each as it
         * is read ({@link RecordSet.Keep}); this default reads them all first.
         */
        default <T> RecordSet.Kept<T> records(RecordSet.Keep<T> keep) throws InvalidInputException {
            RecordSet set = records();
            List<T> kept = new ArrayList<>();
            for (RecordSet.Located located : set.records()) {
                kept.add(keep.keep(located));
            }
            return new RecordSet.Kept<>(kept, set.nodes());
        }

        String describe();
    }

    /**
     * Every {@code GpuCapacity} record and every Node of the cluster {@code client} talks to, as the typed records the
     * agent writes; a file's are read into the same types ({@link RecordSet}), so a cluster and {@code kubectl get
     * gpucapacities,nodes -o yaml} agree. The client stays open; its owner closes it.
     */
    public static RecordStore cluster(KubernetesClient client) {
        return new RecordStore() {
            @Override
            public RecordSet records() throws InvalidInputException {
                RecordSet.Kept<RecordSet.Located> kept = records(r -> r);
                return new RecordSet(kept.records(), kept.nodes());
            }

            @Override
            public <T> RecordSet.Kept<T> records(RecordSet.Keep<T> keep) throws InvalidInputException {
                try {
                    return RecordSet.fromCluster(client, keep);
                } catch (KubernetesClientException e) {
                    throw new InvalidInputException(null, null, null,
                            ClusterErrors.message(e, client.getMasterUrl().toString()));
                }
            }

            @Override
            public String describe() {
                return "cluster " + client.getMasterUrl();
            }
        };
    }

    /**
     * The objects in a JSON or YAML file, read as a stream ({@link RecordSet#read}).
     *
     * @param yamlLimit the most characters a YAML file may have ({@link RecordSet#DEFAULT_YAML_LIMIT})
     */
    public static RecordStore file(Path path, long yamlLimit) {
        return new RecordStore() {
            @Override
            public RecordSet records() throws InvalidInputException {
                return RecordSet.read(RecordSet.Text.of(path), path.toString(), yamlLimit);
            }

            @Override
            public <T> RecordSet.Kept<T> records(RecordSet.Keep<T> keep) throws InvalidInputException {
                return RecordSet.read(RecordSet.Text.of(path), path.toString(), yamlLimit, keep);
            }

            @Override
            public String describe() {
                return path.toString();
            }
        };
    }

    private static final Set<String> KNOWN_VENDORS = Set.of("nvidia", "amd", "intel");

    private final RecordStore store;
    private final Function<String, String> exclusionRules;

    public CapacityRecordOffers(RecordStore store) {
        this(store, node -> null);
    }

    /**
     * @param exclusionRules the rule of Akash's inventory operator configuration ({@code exclude.nodes}) that leaves
     *                       out a node, by node name; null for a node no rule leaves out
     */
    public CapacityRecordOffers(RecordStore store, Function<String, String> exclusionRules) {
        this.store = store;
        this.exclusionRules = exclusionRules;
    }

    @Override
    public String describe() {
        return store.describe();
    }

    /** A record's offer, and where the record was read (for a second record of the same node). */
    private record Read(NodeOffer offer, String where, Integer line) {
    }

    @Override
    public List<NodeOffer> offers() throws InvalidInputException {
        // Each record becomes its offer as it is read: the typed records are never all held.
        RecordSet.Kept<Read> set = store.records(located -> new Read(offer(located), located.where(), located.line()));
        Map<String, NodeOffer> byNode = new TreeMap<>();
        for (Read read : set.records()) {
            if (byNode.put(read.offer().node(), read.offer()) != null) {
                throw new InvalidInputException(store.describe(), read.where(), read.line(),
                        "a second record for node " + read.offer().node() + "; expected one per node");
            }
        }
        for (KubeNode node : set.nodes()) {
            byNode.putIfAbsent(node.name(), NodeOffer.missing(node.name()));
        }
        List<NodeOffer> offers = new ArrayList<>();
        for (NodeOffer offer : byNode.values()) {
            offers.add(offer.judged(set.node(offer.node()), exclusionRules.apply(offer.node())));
        }
        return List.copyOf(offers);
    }

    /** One record as a node offer. */
    NodeOffer offer(RecordSet.Located located) throws InvalidInputException {
        GpuCapacity record = located.record();
        GpuCapacitySpec spec = record.getSpec() == null
                ? new GpuCapacitySpec(null, null, null, null, null, null, null, null, null) : record.getSpec();
        List<OfferedGpu> gpus = new ArrayList<>();
        for (GpuCapacitySpec.GpuEntry gpu : spec.gpus()) {
            gpus.add(gpu(gpu, spec.slices()));
        }
        HandoutCount dra = spec.handout() == null ? null : HandoutCount.of(spec.handout(), spec.gpus(), gpus);
        gpus.sort(Comparator.comparing((OfferedGpu g) -> g.vendor().id())
                .thenComparing(g -> g.model() == null ? "" : g.model()));
        Map<String, Integer> allocatable = units(spec.allocatable());
        Map<String, Integer> inUse = units(spec.requested());
        if (spec.allocatable() != null || dra != null) {
            // The record says what the node advertises: a kind it lacks has no units (no device plugin, or one not
            // ready yet), however many GPUs the agent found; a hand-out says which GPUs a DRA driver adds.
            for (OfferedGpu g : gpus) {
                if (!g.migEnabled()) {
                    allocatable.putIfAbsent(NodeOffer.unitKind(g, null), 0);
                }
                g.profiles().forEach(p -> allocatable.putIfAbsent(NodeOffer.unitKind(g, p), 0));
            }
        }
        if (dra != null) {
            dra.allocatable().forEach((kind, n) -> allocatable.merge(kind, n, Integer::sum));
            dra.inUse().forEach((kind, n) -> inUse.merge(kind, n, Integer::sum));
        }
        NodeOffer offer = NodeOffer.of(located.node(), gpus, allocatable, inUse,
                RecordSet.lastGoodPass(located, store.describe())).withFabric(spec.fabric());
        return dra == null ? offer : offer.handedOut(dra.describe(), dra.warnings());
    }

    private static OfferedGpu gpu(GpuCapacitySpec.GpuEntry gpu, List<GpuCapacitySpec.Slice> slices) {
        boolean split = Boolean.TRUE.equals(gpu.partitioned());
        List<String> profiles = new ArrayList<>();
        if (split) {
            for (GpuCapacitySpec.Slice slice : slices) {
                boolean ours = (gpu.pciAddress() != null && gpu.pciAddress().equals(slice.gpuPciAddress()))
                        || (gpu.uuid() != null && gpu.uuid().equals(slice.gpuUuid()));
                if (ours && slice.profile() != null) {
                    profiles.add(slice.profile());
                }
            }
        }
        return OfferedGpu.of(gpu.toGpu("record"), split, split ? profiles : List.of());
    }

    /** Units per kind; Kubernetes resource names are read as our kinds ({@code nvidia.com/gpu} is {@code nvidia}). */
    private static Map<String, Integer> units(Map<String, Long> resources) {
        Map<String, Integer> out = new LinkedHashMap<>();
        if (resources != null) {
            resources.forEach((resource, count) -> out.merge(unitKind(resource), Math.toIntExact(count), Integer::sum));
        }
        return out;
    }

    /** The Kubernetes resource a unit kind stands for: {@code nvidia} -> {@code nvidia.com/gpu}, {@code mig-1g.10gb} -> {@code nvidia.com/mig-1g.10gb}. */
    public static String resourceName(String kind) {
        if (kind.startsWith("mig-")) {
            return "nvidia.com/" + kind;
        }
        return switch (kind) {
            case "nvidia", "amd" -> kind + ".com/gpu";
            case "intel" -> "gpu.intel.com/i915";
            default -> kind;
        };
    }

    /** {@code nvidia.com/gpu} -> {@code nvidia}, {@code nvidia.com/mig-1g.10gb} -> {@code mig-1g.10gb}, {@code gpu.intel.com/i915} -> intel. */
    static String unitKind(String resource) {
        String r = resource.strip();
        int slash = r.indexOf('/');
        if (slash < 0) {
            return r;
        }
        String domain = r.substring(0, slash);
        String name = r.substring(slash + 1);
        if (name.startsWith("mig-")) {
            return name;
        }
        for (String vendor : KNOWN_VENDORS) {
            if (domain.equals(vendor + ".com") || domain.equals("gpu." + vendor + ".com")) {
                return vendor;
            }
        }
        return r;
    }

}
