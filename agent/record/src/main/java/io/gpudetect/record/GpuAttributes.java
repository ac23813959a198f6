package io.gpudetect.record;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuField;
import io.gpudetect.model.Vendor;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one mapping from {@link GpuField}s to the attribute names Kubernetes DRA drivers publish, so a selector
 * written for a ResourceSlice reads a capacity record too. Names and types as they are published:
 * <ul>
 * <li>Kubernetes' standard attributes ({@code k8s.io/dynamic-resource-allocation/deviceattribute}, KEP-5316 and
 *     KEP-6072): {@code resource.kubernetes.io/pciBusID}, {@code resource.kubernetes.io/pcieRoot} (strings),
 *     {@code resource.kubernetes.io/numaNode} (an integer);</li>
 * <li>NVIDIA's DRA driver ({@code gpu.nvidia.com}, {@code GpuInfo.GetDevice}): {@code uuid}, {@code productName},
 *     {@code architecture} (strings), {@code cudaComputeCapability}, {@code driverVersion},
 *     {@code cudaDriverVersion} (versions). The two CUDA names are published for NVIDIA GPUs only: on other
 *     vendors a runtime version is ROCm's, which no DRA driver names.</li>
 * </ul>
 * NVIDIA's {@code brand} (NVML's brand: Tesla, GeForce) has no field here and is not published. The rest of an
 * entry (the PCIe link, power limits, VBIOS, memory kind) has no DRA name and stays in the entry's own fields.
 */
public final class GpuAttributes {

    /** How a DRA device carries a value. */
    public enum Kind { STRING, INT, VERSION }

    /**
     * One field under its DRA name.
     *
     * @param onlyFor the vendor whose GPUs carry it; null for every vendor
     */
    public record Attribute(GpuField<?> field, String name, Kind kind, Vendor onlyFor) {
    }

    /** Every attribute, in the order the docs list them (docs/labels.md, "Names shared with Kubernetes DRA drivers"). */
    public static final List<Attribute> ALL = List.of(
            new Attribute(GpuField.PCI_ADDRESS, "resource.kubernetes.io/pciBusID", Kind.STRING, null),
            new Attribute(GpuField.PCIE_ROOT, "resource.kubernetes.io/pcieRoot", Kind.STRING, null),
            new Attribute(GpuField.NUMA_NODE, "resource.kubernetes.io/numaNode", Kind.INT, null),
            new Attribute(GpuField.UUID, "uuid", Kind.STRING, null),
            new Attribute(GpuField.NAME, "productName", Kind.STRING, null),
            new Attribute(GpuField.ARCHITECTURE, "architecture", Kind.STRING, null),
            new Attribute(GpuField.COMPUTE_CAPABILITY, "cudaComputeCapability", Kind.VERSION, Vendor.NVIDIA),
            new Attribute(GpuField.DRIVER_VERSION, "driverVersion", Kind.VERSION, null),
            new Attribute(GpuField.RUNTIME_VERSION, "cudaDriverVersion", Kind.VERSION, Vendor.NVIDIA));

    /** Up to three dotted whole numbers, as a driver prints its version ({@code 580.159.04}, {@code 13.0}, {@code 9.0}). */
    private static final Pattern DOTTED = Pattern.compile("(\\d{1,9})(?:\\.(\\d{1,9}))?(?:\\.(\\d{1,9}))?");

    private GpuAttributes() {
    }

    /** The attributes {@code gpu} has a value for, by name; a version that is not up to three dotted numbers is left out. */
    public static Map<String, DeviceAttribute> of(Gpu gpu) {
        Map<String, DeviceAttribute> attributes = new TreeMap<>();
        for (Attribute a : ALL) {
            Object value = a.field().of(gpu);
            if (value == null || (a.onlyFor() != null && a.onlyFor() != gpu.vendor())) {
                continue;
            }
            DeviceAttribute attribute = switch (a.kind()) {
                case STRING -> DeviceAttribute.ofString(value.toString());
                case INT -> DeviceAttribute.ofInt(((Number) value).longValue());
                case VERSION -> {
                    String v = semver(value.toString());
                    yield v == null ? null : DeviceAttribute.ofVersion(v);
                }
            };
            if (attribute != null) {
                attributes.put(a.name(), attribute);
            }
        }
        return attributes;
    }

    /**
     * A driver's dotted version as a semantic version, as NVIDIA's DRA driver writes it (Masterminds semver):
     * three parts, missing ones 0, leading zeros dropped ({@code 580.159.04} is {@code 580.159.4}, {@code 9.0}
     * is {@code 9.0.0}); null for anything else.
     */
    public static String semver(String dotted) {
        Matcher m = DOTTED.matcher(dotted.strip());
        if (!m.matches()) {
            return null;
        }
        StringBuilder v = new StringBuilder();
        for (int i = 1; i <= 3; i++) {
            v.append(i > 1 ? "." : "").append(m.group(i) == null ? 0 : Long.parseLong(m.group(i)));
        }
        return v.toString();
    }
}
