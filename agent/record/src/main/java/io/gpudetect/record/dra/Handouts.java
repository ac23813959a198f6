package io.gpudetect.record.dra;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How each detected GPU is handed out: a pure function of the inventory's GPUs, the Node's allocatable
 * resources, the node's ResourceSlices and the allocations of the claims held by its pods.
 *
 * <p>A DRA device is tied to a detected GPU by the first of these attributes that names one (the three GPU
 * drivers publish different ones, see {@link #MATCH_ORDER}); a device that names none but draws from a counter
 * set that a tied device of its pool also draws from (a partitionable device, KEP 4815) belongs to that GPU.
 */
public final class Handouts {

    /** The DRA drivers that publish GPUs: their devices that match no detected GPU are reported. */
    public static final Set<String> GPU_DRIVERS = Set.of("gpu.nvidia.com", "gpu.amd.com", "gpu.intel.com");

    /**
     * Attributes that identify a device's GPU, parent first (a MIG device's own {@code uuid} is not its GPU's):
     * <ul>
     * <li>{@code parentUUID}: NVIDIA's MIG devices (k8s-dra-driver-gpu {@code cmd/gpu-kubelet-plugin/mig.go});
     * <li>{@code parentPciAddr}: AMD's partitions (ROCm/k8s-gpu-dra-driver {@code cmd/gpu-kubeletplugin/deviceinfo.go});
     * <li>{@code resource.kubernetes.io/pciBusID}: the standard attribute (k8s.io/dynamic-resource-allocation
     * {@code deviceattribute}), {@code 0000:3b:00.0}; NVIDIA sets it on GPUs and, with the parent's value, on MIG
     * devices; Intel on GPUs and VFs (their own address);
     * <li>{@code uuid}: NVIDIA's GPUs before they published a bus id;
     * <li>{@code pciAddr}: AMD's whole GPUs; {@code pciAddress}: Intel's, deprecated for the standard one.
     * </ul>
     */
    public static final List<String> MATCH_ORDER = List.of("parentUUID", "parentPciAddr",
            "resource.kubernetes.io/pciBusID", "uuid", "pciAddr", "pciAddress");

    private Handouts() {
    }

    /**
     * @param gpus        the inventory's GPUs (emulated ones left out)
     * @param allocatable the Node's GPU extended resources ({@code status.allocatable})
     * @param slices      every ResourceSlice of the node
     * @param allocations the allocation results of the claims held by pods on the node that still run
     * @param unreadClaims claims of those pods that could not be read, each with why (they count as not allocated)
     */
    public static NodeHandout of(List<Gpu> gpus, Map<String, Long> allocatable, List<DraSlice> slices,
                                 List<DraAllocation> allocations, List<String> unreadClaims) {
        List<String> incomplete = new ArrayList<>();
        List<DraDevice> devices = currentDevices(slices, incomplete);
        Map<String, List<String>> claimsByDevice = new TreeMap<>();
        for (DraAllocation a : allocations) {
            claimsByDevice.computeIfAbsent(a.key(), k -> new ArrayList<>()).add(a.claim());
        }

        List<Gpu> sorted = gpus.stream().sorted(Comparator.comparing(Gpu::pciAddress, PciAddress::compareNullsLast)).toList();
        Map<PciAddress, Gpu> byAddress = new HashMap<>();
        Map<String, Gpu> byUuid = new HashMap<>();
        for (Gpu g : sorted) {
            if (g.pciAddress() != null) {
                byAddress.put(g.pciAddress(), g);
            }
            if (g.uuid() != null) {
                byUuid.put(g.uuid().toLowerCase(Locale.ROOT), g);
            }
        }

        // First by identifying attributes, then partitions by the counter sets their tied siblings draw from.
        Map<DraDevice, Tie> ties = new LinkedHashMap<>();
        Map<String, Gpu> byCounterSet = new HashMap<>();
        for (DraDevice d : devices) {
            tie(d, byAddress, byUuid).ifPresent(t -> {
                ties.put(d, t);
                d.consumesCounters().forEach(c -> byCounterSet.putIfAbsent(d.driver() + "/" + d.pool() + "/" + c, t.gpu()));
            });
        }
        for (DraDevice d : devices) {
            if (!ties.containsKey(d)) {
                d.consumesCounters().stream().map(c -> byCounterSet.get(d.driver() + "/" + d.pool() + "/" + c))
                        .filter(g -> g != null).findFirst().ifPresent(g -> ties.put(d, new Tie(g, "counterSet")));
            }
        }

        Map<Gpu, List<NodeHandout.DraDeviceRef>> draByGpu = new HashMap<>();
        List<NodeHandout.DraDeviceRef> unmatched = new ArrayList<>();
        Map<String, int[]> deviceCounts = new TreeMap<>(); // driver -> devices, allocated devices
        for (DraDevice d : devices) {
            List<String> claims = claimsByDevice.getOrDefault(d.key(), List.of());
            Tie t = ties.get(d);
            NodeHandout.DraDeviceRef ref = new NodeHandout.DraDeviceRef(d.driver(), d.pool(), d.name(), d.type(),
                    t == null ? null : t.by(), !claims.isEmpty(), claims.stream().sorted().distinct().toList());
            if (t != null) {
                draByGpu.computeIfAbsent(t.gpu(), g -> new ArrayList<>()).add(ref);
            } else if (GPU_DRIVERS.contains(d.driver())) {
                unmatched.add(ref);
            } else {
                continue; // a NIC, a CPU, NVIDIA's compute-domain channels: not ours to count
            }
            int[] c = deviceCounts.computeIfAbsent(d.driver(), k -> new int[2]);
            c[0]++;
            c[1] += claims.isEmpty() ? 0 : 1;
        }

        List<NodeHandout.GpuHandout> out = new ArrayList<>();
        Map<String, Set<Gpu>> gpusByDriver = new TreeMap<>();
        Map<String, Set<Gpu>> allocatedByDriver = new TreeMap<>();
        Set<String> modes = new TreeSet<>();
        for (Gpu g : sorted) {
            List<NodeHandout.DraDeviceRef> dra = draByGpu.getOrDefault(g, List.of()).stream()
                    .sorted(Comparator.comparing(NodeHandout.DraDeviceRef::driver).thenComparing(NodeHandout.DraDeviceRef::device))
                    .toList();
            String plugin = devicePluginResource(g.vendor(), allocatable);
            Boolean allocated = dra.isEmpty() ? null : dra.stream().anyMatch(NodeHandout.DraDeviceRef::allocated);
            for (NodeHandout.DraDeviceRef r : dra) {
                gpusByDriver.computeIfAbsent(r.driver(), k -> new java.util.HashSet<>()).add(g);
                if (r.allocated()) {
                    allocatedByDriver.computeIfAbsent(r.driver(), k -> new java.util.HashSet<>()).add(g);
                }
            }
            String by = plugin != null && !dra.isEmpty() ? "both" : plugin != null ? "devicePlugin" : !dra.isEmpty() ? "dra" : "none";
            modes.add(by);
            out.add(new NodeHandout.GpuHandout(g.pciAddress() == null ? null : g.pciAddress().toString(), g.uuid(), by,
                    plugin, dra, allocated));
        }
        if (!unmatched.isEmpty()) {
            modes.add("dra");
        }
        if (allocatable.values().stream().anyMatch(v -> v != null && v > 0)) {
            modes.add("devicePlugin");
        }
        modes.remove("none");
        String mode = modes.contains("both") || modes.size() > 1 ? "both" : modes.isEmpty() ? "none" : modes.iterator().next();

        List<NodeHandout.DraTotal> totals = new ArrayList<>();
        deviceCounts.forEach((driver, c) -> totals.add(new NodeHandout.DraTotal(driver,
                gpusByDriver.getOrDefault(driver, Set.of()).size(), allocatedByDriver.getOrDefault(driver, Set.of()).size(),
                c[0], c[1])));
        incomplete.addAll(unreadClaims);
        return new NodeHandout(mode, out, totals, unmatched, incomplete);
    }

    /** A device tied to a GPU, and the attribute that tied it. */
    private record Tie(Gpu gpu, String by) {
    }

    private static Optional<Tie> tie(DraDevice d, Map<PciAddress, Gpu> byAddress, Map<String, Gpu> byUuid) {
        for (String attribute : MATCH_ORDER) {
            String value = d.attributes().get(attribute);
            if (value == null || value.isBlank()) {
                continue;
            }
            Gpu g = attribute.equals("parentUUID") || attribute.equals("uuid")
                    ? byUuid.get(value.strip().toLowerCase(Locale.ROOT))
                    : PciAddress.parse(value.strip()).map(byAddress::get).orElse(null);
            if (g != null) {
                return Optional.of(new Tie(g, attribute));
            }
        }
        return Optional.empty();
    }

    /**
     * The devices of the newest generation of each pool. A pool with fewer such slices than its
     * {@code resourceSliceCount} is named in {@code incomplete}: its driver is still publishing.
     */
    static List<DraDevice> currentDevices(List<DraSlice> slices, List<String> incomplete) {
        Map<String, List<DraSlice>> byPool = new TreeMap<>();
        for (DraSlice s : slices) {
            byPool.computeIfAbsent(s.driver() + "/" + s.pool().name(), k -> new ArrayList<>()).add(s);
        }
        List<DraDevice> out = new ArrayList<>();
        byPool.forEach((pool, list) -> {
            long newest = list.stream().mapToLong(s -> s.pool().generation()).max().orElse(0);
            List<DraSlice> current = list.stream().filter(s -> s.pool().generation() == newest)
                    .sorted(Comparator.comparing(DraSlice::name)).toList();
            long expected = current.get(0).pool().resourceSliceCount();
            if (current.size() < expected) {
                incomplete.add(pool + ": " + current.size() + " of " + expected + " slices of generation " + newest);
            }
            current.forEach(s -> out.addAll(s.devices()));
        });
        return out;
    }

    /**
     * The extended resource a device plugin of {@code vendor} advertises on the node, when it advertises any:
     * the whole-GPU resource first ({@code nvidia.com/gpu}), else a MIG resource of the mixed strategy.
     */
    static String devicePluginResource(Vendor vendor, Map<String, Long> allocatable) {
        if (vendor == null) {
            return null;
        }
        return allocatable.entrySet().stream().filter(e -> e.getValue() != null && e.getValue() > 0)
                .map(Map.Entry::getKey).filter(name -> servesVendor(vendor, name))
                .min(Comparator.comparing((String name) -> name.contains("/mig-") ? 1 : 0).thenComparing(name -> name))
                .orElse(null);
    }

    private static boolean servesVendor(Vendor vendor, String resource) {
        return switch (vendor) {
            case NVIDIA -> resource.equals("nvidia.com/gpu") || resource.startsWith("nvidia.com/mig-");
            case AMD -> resource.equals("amd.com/gpu");
            // Intel's plugin also advertises gpu.intel.com/millicores, memory.max and tiles: shares, not GPUs.
            case INTEL -> resource.equals("gpu.intel.com/i915") || resource.equals("gpu.intel.com/xe");
            default -> false;
        };
    }
}
