package io.gpudetect.record.dra;

import java.util.List;

/**
 * One ResourceSlice of the node, in any served version of {@code resource.k8s.io} (v1beta1 nests a device's
 * attributes under {@code basic}, v1beta2 and v1 do not: {@code io.gpudetect.k8s.dra.ResourceSlices} reads
 * each into this one shape).
 *
 * @param name              the slice's object name
 * @param driver            {@code spec.driver}: {@code gpu.nvidia.com}, {@code gpu.amd.com}, {@code gpu.intel.com} ...
 * @param pool              {@code spec.pool}
 * @param devices           {@code spec.devices}
 * @param sharedCounterSets names of {@code spec.sharedCounters} (partitionable devices: a GPU's MIG devices and the
 *                          whole GPU consume from one counter set)
 */
public record DraSlice(String name, String driver, Pool pool, List<DraDevice> devices, List<String> sharedCounterSets) {

    public DraSlice {
        devices = devices == null ? List.of() : List.copyOf(devices);
        sharedCounterSets = sharedCounterSets == null ? List.of() : List.copyOf(sharedCounterSets);
    }

    /**
     * {@code spec.pool}: a driver's devices on a node form one pool, published in {@code resourceSliceCount}
     * slices of one {@code generation}; a slice of an older generation is stale (the driver is replacing it).
     */
    public record Pool(String name, long generation, long resourceSliceCount) {
    }
}
