package io.gpudetect.record.dra;

import java.util.List;
import java.util.Map;

/**
 * One device of a ResourceSlice.
 *
 * @param driver            the slice's driver
 * @param pool              the slice's pool name
 * @param name              the device name, unique in its pool ({@code gpu-0}, {@code gpu-0-mig-1g10gb-19-0},
 *                          {@code gpu-1-129}, {@code 0000-03-00-0-0x56c0})
 * @param attributes        attribute values as text, by name; a name qualified with the driver's own domain
 *                          ({@code gpu.nvidia.com/uuid}) is stored unqualified ({@code uuid}), as DRA treats both as
 *                          one; other domains ({@code resource.kubernetes.io/pciBusID}) are kept whole
 * @param capacity          capacity values (quantities as text), by name
 * @param consumesCounters  the counter sets this device draws from ({@code consumesCounters[].counterSet})
 */
public record DraDevice(String driver, String pool, String name, Map<String, String> attributes,
                        Map<String, String> capacity, List<String> consumesCounters) {

    public DraDevice {
        attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
        capacity = capacity == null ? Map.of() : Map.copyOf(capacity);
        consumesCounters = consumesCounters == null ? List.of() : List.copyOf(consumesCounters);
    }

    /** The {@code type} attribute each of the three GPU drivers sets ({@code gpu}, {@code mig}, {@code amdgpu}, {@code vf} ...); null when absent. */
    public String type() {
        return attributes.get("type");
    }

    /** Driver, pool and device: what a claim's allocation result names. */
    public String key() {
        return driver + "/" + pool + "/" + name;
    }
}
