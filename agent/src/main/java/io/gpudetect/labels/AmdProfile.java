package io.gpudetect.labels;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * {@code amd.com/gpu.*} labels as AMD's node labeller (ROCm/k8s-device-plugin {@code cmd/k8s-node-labeller})
 * writes them: {@code family} (the kernel's family code, {@code AI}, {@code NV}, ...), {@code device-id}
 * ({@code 74a1}), {@code product-name} (spaces as {@code _}: {@code AMD_Instinct_MI300X_OAM}), {@code vram}
 * ({@code 192G}), {@code simd-count}, {@code cu-count} and {@code driver-version}. When every AMD card agrees
 * the key holds the value ({@code amd.com/gpu.vram=192G}); on a mixed node each value becomes part of the key
 * with the number of cards as the value ({@code amd.com/gpu.vram.192G=4}), the labeller's {@code createLabels}.
 *
 * <p>Unlike that labeller, which computes its labels once at start (k8s-device-plugin 234), these are
 * recomputed on every pass. docs/labels.md lists where the values can differ from the labeller's.
 */
public final class AmdProfile implements LabelProfile {

    public static final String NAME = "amd";
    public static final String PREFIX = "amd.com";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SortedMap<String, String> labels(Inventory inventory) {
        List<Gpu> gpus = GpuFacts.ofVendor(inventory.realGpus(), Vendor.AMD);
        SortedMap<String, String> out = new TreeMap<>();
        if (gpus.isEmpty()) {
            return out;
        }
        property(out, gpus, "product-name", Gpu::name, n -> LabelText.value(n, '_'));
        property(out, gpus, "vram", g -> g.memoryMiB() == null ? null : Math.round(g.memoryMiB() / 1024.0) + "G",
                LabelText::value);
        property(out, gpus, "family", g -> family(g.architecture()), LabelText::value);
        property(out, gpus, "device-id", Gpu::pciDeviceId, LabelText::value);
        property(out, gpus, "simd-count", AmdProfile::simdCount, String::valueOf);
        property(out, gpus, "cu-count", Gpu::computeUnits, String::valueOf);
        property(out, gpus, "driver-version", Gpu::driverVersion, LabelText::value);
        return out;
    }

    /**
     * The family the labeller reads from libdrm ({@code amdgpu_gpu_info.family_id}, named as
     * {@code AMDGPU_FAMILY_*}), from the graphics IP the kernel assigns it to (amdgpu_discovery.c, vi.c,
     * cik.c, si.c); null for an architecture not listed.
     */
    static String family(String gfx) {
        if (gfx == null || !gfx.startsWith("gfx")) {
            return null;
        }
        return switch (gfx) {
            case "gfx600", "gfx601", "gfx602" -> "SI";
            case "gfx701", "gfx702", "gfx704" -> "CI";
            case "gfx700", "gfx703", "gfx705" -> "KV";
            case "gfx802", "gfx803", "gfx804", "gfx805" -> "VI";
            case "gfx801", "gfx810" -> "CZ";
            case "gfx900", "gfx904", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx950" -> "AI";
            case "gfx902", "gfx909", "gfx90c" -> "RV";
            case "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx1030", "gfx1031", "gfx1032", "gfx1034" -> "NV";
            case "gfx1033" -> "VGH";
            case "gfx1035" -> "YC";
            case "gfx1036" -> "GC_10_3_6";
            case "gfx1037" -> "GC_10_3_7";
            case "gfx1100", "gfx1101", "gfx1102" -> "GC_11_0_0";
            case "gfx1103" -> "GC_11_0_1";
            case "gfx1150", "gfx1151", "gfx1152", "gfx1153" -> "GC_11_5_0";
            case "gfx1200", "gfx1201" -> "GC_12_0_0";
            default -> null;
        };
    }

    /**
     * KFD's {@code simd_count}: compute units times SIMDs per CU, which the kernel sets per graphics
     * generation (4 on GCN and CDNA, gfx6 to gfx9; 2 on RDNA, gfx10 and later); null when either is unknown.
     */
    static Integer simdCount(Gpu gpu) {
        String family = family(gpu.architecture());
        if (family == null || gpu.computeUnits() == null) {
            return null;
        }
        int major = Integer.parseInt(gpu.architecture().substring(3, gpu.architecture().length() - 2));
        return gpu.computeUnits() * (major >= 10 ? 2 : 4);
    }

    private static <T> void property(SortedMap<String, String> out, List<Gpu> gpus, String name,
                                     Function<Gpu, T> field, Function<T, String> text) {
        TreeMap<String, Integer> counts = GpuFacts.countBy(gpus, field, text);
        if (counts.size() == 1) {
            out.put(LabelText.key(PREFIX, "gpu." + name), counts.firstKey());
        } else {
            counts.forEach((value, n) -> out.put(LabelText.key(PREFIX, "gpu." + name + "." + value), String.valueOf(n)));
        }
    }
}
