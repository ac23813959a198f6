package io.gpudetect.akash;

import io.gpudetect.match.CapacityRecordOffers;
import io.gpudetect.match.InvalidInputException;
import io.gpudetect.match.KubeNode;
import io.gpudetect.match.RecordSet;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.record.GpuCapacitySpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Nodes as their {@code GpuCapacity} records describe them, for the operator's rules: each GPU with its PCI ids,
 * and the node's allocatable GPU resources as the record names them ({@code nvidia.com/gpu}). A record without
 * an {@code allocatable} field leaves the allocatable units unknown; one with an empty map says there are none.
 * Records do not say which cards have a DRM node. {@code Node} objects without a record are listed without GPUs;
 * each node's Ready condition and cordon come from its {@code Node} object, when one was read.
 */
public final class RecordNodes {

    private RecordNodes() {
    }

    public static List<NodeInput> read(CapacityRecordOffers.RecordStore store) throws InvalidInputException {
        RecordSet set = store.records();
        Map<String, NodeInput> nodes = new TreeMap<>();
        for (RecordSet.Located located : set.records()) {
            GpuCapacitySpec spec = located.record().getSpec();
            List<Gpu> gpus = new ArrayList<>();
            Map<String, Long> allocatable = null;
            if (spec != null) {
                for (int i = 0; i < spec.gpus().size(); i++) {
                    gpus.add(gpu(spec.gpus().get(i), store, located, i));
                }
                allocatable = spec.allocatable();
            }
            String node = located.node();
            nodes.put(node, new NodeInput(node, gpus,
                    new DrmCards.NotKnown("a GpuCapacity record does not say which cards have a DRM node; run "
                            + "gpu-detect akash on the node itself"),
                    allocatable, "the record has no allocatable field", set.listsNode(node) ? set.node(node) : null,
                    set.listsNode(node) ? "its Node object has no status" : "no Node object named " + node
                            + " was read beside the records (kubectl get gpucapacities,nodes -o yaml lists both)",
                    store.describe()));
        }
        for (KubeNode n : set.nodes()) {
            nodes.putIfAbsent(n.name(), new NodeInput(n.name(), List.of(),
                    new DrmCards.NotKnown("the node has no GpuCapacity record"), null,
                    "the node has no GpuCapacity record", n, "its Node object has no status", store.describe()));
        }
        return List.copyOf(nodes.values());
    }

    private static Gpu gpu(GpuCapacitySpec.GpuEntry entry, CapacityRecordOffers.RecordStore store,
                           RecordSet.Located located, int index) throws InvalidInputException {
        Gpu.Builder b = Gpu.builder("record")
                .vendor(entry.vendor() == null ? null : Vendor.fromId(entry.vendor())).name(entry.name())
                .model(entry.model()).interfaceType(entry.interfaceType()).memoryGi(entry.memoryGi())
                .pciVendorId(entry.pciVendorId()).pciDeviceId(entry.pciDeviceId())
                .pciSubsystemVendorId(entry.pciSubsystemVendorId()).pciSubsystemDeviceId(entry.pciSubsystemDeviceId());
        if (entry.pciAddress() != null) {
            b.pciAddress(PciAddress.parse(entry.pciAddress()).orElseThrow(() -> new InvalidInputException(
                    store.describe(), located.where() + "(" + located.node() + ").gpus[" + index + "].pciAddress",
                    located.line(), "expected a PCI address such as 0000:17:00.0, found " + entry.pciAddress())));
        }
        return b.build();
    }
}
