package io.gpudetect.akash;

import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.match.CapacityRecordOffers;
import io.gpudetect.match.InvalidInputException;
import io.gpudetect.match.KubeNode;
import io.gpudetect.match.RecordSet;
import io.gpudetect.model.Gpu;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.record.dra.NodeHandout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Nodes as their {@code GpuCapacity} records describe them, for the operator's rules: each GPU with its PCI ids,
 * and the node's allocatable GPU resources as the record names them ({@code nvidia.com/gpu}). A record without
 * an {@code allocatable} field leaves the allocatable units unknown; one with an empty map says there are none.
 * Which cards have a DRM node comes from the record's {@code sysClassDrm} and each GPU's {@code drmCards}
 * ({@link #drm}); a record without them leaves it unknown. {@code Node} objects without a record are listed without
 * GPUs; each node's Ready condition and cordon come from its {@code Node} object, when one was read. The record's
 * {@code handout} says which GPUs a DRA driver hands out instead of a device plugin.
 */
public final class RecordNodes {

    private RecordNodes() {
    }

    public static List<NodeInput> read(CapacityRecordOffers.RecordStore store) throws InvalidInputException {
        // Each record cut to what a node's input is made of as it is read (a page at a time from the API server): the
        // typed records are never all held beside the GPUs made of them, and a GPU is made only once every record is
        // read, so an error in a later record is reported as before. Holding the GPUs themselves while pages arrive
        // cost more (each keeps a source per field): docs/performance.md, issue 37.
        RecordSet.Kept<Read> set = store.records(located -> {
            GpuCapacitySpec spec = located.record().getSpec();
            return new Read(located.node(), located.where(), located.line(), spec == null ? null
                    : new GpuCapacitySpec(spec.gpus(), null, null, spec.allocatable(), null, null, spec.sysClassDrm(),
                            null, spec.handout(), spec.fabric(), null));
        });
        Map<String, NodeInput> nodes = new TreeMap<>();
        for (Read located : set.records()) {
            GpuCapacitySpec spec = located.spec();
            List<Gpu> gpus = new ArrayList<>();
            Map<String, Long> allocatable = null;
            NodeHandout handout = null;
            if (spec != null) {
                handout = spec.handout();
                for (int i = 0; i < spec.gpus().size(); i++) {
                    gpus.add(gpu(spec.gpus().get(i), store, located, i));
                }
                allocatable = spec.allocatable();
            }
            String node = located.node();
            nodes.put(node, new NodeInput(node, gpus, drm(spec, gpus), allocatable, "the record has no allocatable field", set.listsNode(node) ? set.node(node) : null,
                    set.listsNode(node) ? "its Node object has no status" : "no Node object named " + node
                            + " was read beside the records (kubectl get gpucapacities,nodes -o yaml lists both)",
                    store.describe(), handout, spec == null ? null : spec.fabric()));
        }
        for (KubeNode n : set.nodes()) {
            nodes.putIfAbsent(n.name(), new NodeInput(n.name(), List.of(),
                    new DrmCards.NotKnown("the node has no GpuCapacity record"), null,
                    "the node has no GpuCapacity record", n, "its Node object has no status", store.describe(), null));
        }
        return List.copyOf(nodes.values());
    }

    /**
     * The node's DRM cards as its record lists them: each GPU's {@code drmCards} at the GPU's PCI address, under
     * {@code sysClassDrm}. A record without {@code sysClassDrm} (its agent could not read {@code /sys/class/drm},
     * or predates the field), or with a GPU that lacks {@code drmCards}, does not say: never read as "no DRM node".
     */
    static DrmCards drm(GpuCapacitySpec spec, List<Gpu> gpus) {
        if (spec == null || spec.sysClassDrm() == null) {
            return new DrmCards.NotKnown("the GpuCapacity record does not say which cards have a DRM node (no "
                    + "sysClassDrm: its agent could not read /sys/class/drm, or is older than the field); run "
                    + "gpu-detect akash on the node itself");
        }
        List<DrmCards.Card> cards = new ArrayList<>();
        for (int i = 0; i < spec.gpus().size(); i++) {
            List<String> names = spec.gpus().get(i).drmCards();
            if (names == null) {
                return new DrmCards.NotKnown("the GpuCapacity record's gpus[" + i + "] has no drmCards; run "
                        + "gpu-detect akash on the node itself");
            }
            for (String name : names) {
                cards.add(new DrmCards.Card(name, gpus.get(i).pciAddress()));
            }
        }
        return new DrmCards.Listed(spec.sysClassDrm(), cards);
    }

    private static Gpu gpu(GpuCapacitySpec.GpuEntry entry, CapacityRecordOffers.RecordStore store,
                           Read located, int index) throws InvalidInputException {
        Gpu gpu = entry.toGpu("record");
        if (entry.pciAddress() != null && gpu.pciAddress() == null) {
            throw new InvalidInputException(store.describe(),
                    located.where() + "(" + located.node() + ").gpus[" + index + "].pciAddress", located.line(),
                    "expected a PCI address such as 0000:17:00.0, found " + entry.pciAddress());
        }
        return gpu;
    }

    /** What {@link #read} keeps of a record: where it was, its node and the parts of its spec a node's input uses. */
    private record Read(String node, String where, Integer line, GpuCapacitySpec spec) {
    }
}
