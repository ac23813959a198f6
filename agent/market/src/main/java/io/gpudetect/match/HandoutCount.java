package io.gpudetect.match;

import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.record.dra.NodeHandout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What a record's {@code handout} adds to its node's units: GPUs that only a DRA driver hands out (they are not
 * in the Node's allocatable) count as allocatable units of their vendor, and those a pod's claim holds, a MIG
 * device or partition of them included, as in use. A GPU served by both a device plugin and a DRA driver is
 * already one of the device plugin's units: it is counted once, there, and reported. DRA devices that match no
 * GPU, and the hand-out's problems, are warnings, never capacity.
 *
 * @param allocatable whole-GPU units per unit kind ({@code nvidia}) that DRA adds
 * @param inUse       of those, the units a claim holds
 * @param describe    the hand-out for a person: {@code dra (gpu.nvidia.com: 4 GPUs, 1 allocated)}
 */
record HandoutCount(Map<String, Integer> allocatable, Map<String, Integer> inUse, String describe,
                    List<String> warnings) {

    static HandoutCount of(NodeHandout handout, List<GpuCapacitySpec.GpuEntry> entries, List<OfferedGpu> offered) {
        Map<String, Integer> allocatable = new TreeMap<>();
        Map<String, Integer> inUse = new TreeMap<>();
        List<String> warnings = new ArrayList<>();
        for (NodeHandout.GpuHandout h : handout.gpus()) {
            String gpu = h.pciAddress() != null ? h.pciAddress() : h.uuid();
            String drivers = h.dra().stream().map(NodeHandout.DraDeviceRef::driver).distinct().sorted()
                    .collect(Collectors.joining(", "));
            if ("both".equals(h.by())) {
                warnings.add("GPU " + gpu + " is served by both the device plugin (" + h.devicePlugin()
                        + ") and DRA driver " + drivers + ": counted once, as a " + h.devicePlugin() + " unit");
                continue;
            }
            if (!"dra".equals(h.by())) {
                continue;
            }
            int index = indexOf(h, entries);
            if (index < 0) {
                warnings.add("GPU " + gpu + " handed out by DRA driver " + drivers
                        + " is not in the record's gpus: not counted");
                continue;
            }
            OfferedGpu g = offered.get(index);
            if (g.migEnabled()) {
                // NVIDIA's device plugin offers a MIG-enabled card as slices only; its DRA driver names MIG devices
                // by placement (gpu-0-mig-1g10gb-19-0), not by a profile a deployment asks for.
                warnings.add("GPU " + gpu + " has MIG on and is handed out by DRA driver " + drivers
                        + ": its MIG devices are not counted as slices");
                continue;
            }
            String kind = NodeOffer.unitKind(g, null);
            allocatable.merge(kind, 1, Integer::sum);
            if (Boolean.TRUE.equals(h.allocated())) {
                inUse.merge(kind, 1, Integer::sum);
            }
        }
        for (NodeHandout.DraDeviceRef d : handout.unmatched()) {
            warnings.add("DRA device " + d.driver() + "/" + d.pool() + "/" + d.device()
                    + (d.type() == null ? "" : " (type " + d.type() + ")")
                    + " matches no detected GPU: not counted" + (d.allocated() ? " (held by " + String.join(", ", d.claims()) + ")" : ""));
        }
        for (String p : handout.problems()) {
            warnings.add("DRA hand-out may be incomplete: " + p);
        }
        String totals = handout.draTotals().stream()
                .map(t -> t.driver() + ": " + t.gpus() + (t.gpus() == 1 ? " GPU, " : " GPUs, ") + t.allocatedGpus()
                        + " allocated")
                .collect(Collectors.joining("; "));
        String mode = Objects.requireNonNullElse(handout.mode(), "none");
        return new HandoutCount(allocatable, inUse, totals.isEmpty() ? mode : mode + " (" + totals + ")", warnings);
    }

    /** The record's GPU entry a hand-out names, by PCI address, else UUID; -1 for none. */
    private static int indexOf(NodeHandout.GpuHandout h, List<GpuCapacitySpec.GpuEntry> entries) {
        for (int i = 0; i < entries.size(); i++) {
            GpuCapacitySpec.GpuEntry e = entries.get(i);
            if (h.pciAddress() != null && h.pciAddress().equalsIgnoreCase(Objects.requireNonNullElse(e.pciAddress(), ""))) {
                return i;
            }
        }
        for (int i = 0; i < entries.size(); i++) {
            GpuCapacitySpec.GpuEntry e = entries.get(i);
            if (h.uuid() != null && h.uuid().equalsIgnoreCase(Objects.requireNonNullElse(e.uuid(), ""))) {
                return i;
            }
        }
        return -1;
    }
}
