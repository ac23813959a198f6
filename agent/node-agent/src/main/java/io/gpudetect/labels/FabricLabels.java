package io.gpudetect.labels;

import io.gpudetect.model.Fabric;
import io.gpudetect.model.PciAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SortedMap;

/**
 * The node's RDMA fabric as a few summary labels of the {@code gpu-detect} profile, never one per device or port:
 * <ul>
 *   <li>{@code fabric.kind}: the kinds the active ports carry, joined by {@code _} ({@code infiniband},
 *       {@code roce}, {@code infiniband_roce}), {@code none} when no port is active;</li>
 *   <li>{@code fabric.rate-gbps.max}: the fastest active port in Gb/s ({@code 400});</li>
 *   <li>{@code fabric.gpudirect-rdma}: {@code can-work}, {@code cannot} or {@code unknown};</li>
 *   <li>{@code fabric.nic-distance.max}: the farthest any GPU is from its nearest NIC, lower-case {@code nvidia-smi
 *       topo -m} words ({@code pix}: every GPU has a NIC under its own PCIe switch), only when every GPU has one.</li>
 * </ul>
 * A node without an RDMA device on its PCI bus, or whose fabric is not known, gets none of them: a selector on
 * {@code fabric.kind} then leaves it out, as it should.
 */
final class FabricLabels {

    private FabricLabels() {
    }

    /** Adds the fabric's labels, each under {@code name} as {@code put} keys it. */
    static void add(Fabric fabric, List<PciAddress> gpus, java.util.function.BiConsumer<String, String> put) {
        if (fabric == null || fabric.devices().stream().noneMatch(d -> d.pciAddress() != null)) {
            return;
        }
        List<String> kinds = new ArrayList<>();
        for (Fabric.Kind k : fabric.activeKinds()) {
            kinds.add(k.id());
        }
        put.accept("fabric.kind", kinds.isEmpty() ? "none" : String.join("_", kinds));
        Double rate = fabric.maxActiveRateGbps();
        if (rate != null) {
            put.accept("fabric.rate-gbps.max", rate == Math.rint(rate) ? String.valueOf(rate.longValue()) : String.valueOf(rate));
        }
        if (fabric.gpuDirectRdma() != null && fabric.gpuDirectRdma().verdict() != null) {
            put.accept("fabric.gpudirect-rdma", fabric.gpuDirectRdma().verdict().id());
        }
        Fabric.PcieDistance farthest = null;
        for (PciAddress g : gpus) {
            Fabric.NearestNic n = fabric.nearestNicOf(g);
            if (n == null || n.distance() == null) {
                return;
            }
            if (farthest == null || n.distance().compareTo(farthest) > 0) {
                farthest = n.distance();
            }
        }
        if (farthest != null) {
            put.accept("fabric.nic-distance.max", farthest.id().toLowerCase(Locale.ROOT));
        }
    }

    /** The same into a label map. */
    static void add(Fabric fabric, List<PciAddress> gpus, SortedMap<String, String> out, String prefix) {
        add(fabric, gpus, (name, value) -> out.put(LabelText.key(prefix, name), value));
    }
}
