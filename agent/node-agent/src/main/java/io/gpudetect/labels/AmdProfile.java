package io.gpudetect.labels;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Partitioning;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * {@code amd.com/gpu.*} and {@code beta.amd.com/gpu.*} labels as AMD's node labeller (ROCm/k8s-device-plugin
 * {@code cmd/k8s-node-labeller}) writes them: {@code family} (the kernel's family code, {@code AI}, {@code NV},
 * ...), {@code device-id} ({@code 74a1}), {@code product-name} (spaces as {@code _}:
 * {@code AMD_Instinct_MI300X_OAM}), {@code vram} ({@code 192G}), {@code simd-count}, {@code cu-count},
 * {@code driver-version} and the partition keys.
 *
 * <p>Each value is counted per card, as the labeller's {@code createLabels} does. Under {@code amd.com} the key
 * holds the value when every card agrees ({@code amd.com/gpu.vram=192G}); on a mixed node each value becomes
 * part of the key with the number of cards as the value ({@code amd.com/gpu.vram.192G=4}). Under
 * {@code beta.amd.com} the counted form is always written, and the value form beside it when every card agrees
 * ({@code beta.amd.com/gpu.vram.192G=8} and {@code beta.amd.com/gpu.vram=192G}): the labeller's form since its
 * v1.31.0.0, which holds every key of its older, counted-only form too.
 *
 * <p>Unlike that labeller, which computes its labels once at start (k8s-device-plugin 234), these are
 * recomputed on every pass. docs/labels.md lists where the values can differ from the labeller's.
 */
public final class AmdProfile implements LabelProfile {

    public static final String NAME = "amd";
    public static final String PREFIX = "amd.com";
    /** The labeller's older prefix, which it still writes beside {@link #PREFIX}. */
    public static final String BETA_PREFIX = "beta.amd.com";
    /**
     * Every key this profile writes starts with one of these: what the agent may own and withdraw, and what the
     * chart's admission policy lets it touch with the profile on ({@code labels.profilePrefixes.amd}). Nothing else
     * under {@code amd.com}, such as a hand-set {@code amd.com/gpu=true}, is ever the agent's.
     */
    public static final List<String> KEY_PREFIXES = List.of(PREFIX + "/gpu.", BETA_PREFIX + "/gpu.");

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
        counted(out, gpus, "product-name", AmdProfile::productName, AmdProfile::productNameText);
        counted(out, gpus, "vram", g -> g.memoryMiB() == null ? null : Math.round(g.memoryMiB() / 1024.0) + "G",
                LabelText::value);
        counted(out, gpus, "family", g -> family(g.architecture()), LabelText::value);
        counted(out, gpus, "device-id", Gpu::pciDeviceId, LabelText::value);
        counted(out, gpus, "simd-count", AmdProfile::simdCount, String::valueOf);
        counted(out, gpus, "cu-count", Gpu::computeUnits, String::valueOf);
        property(out, gpus, "driver-version", Gpu::driverVersion, LabelText::value);
        partitions(out, gpus);
        return out;
    }

    /**
     * The name the labeller reads: the board's name from its FRU ({@code product_name}) where it has one, else the
     * chip's marketing name (libdrm's, which rocminfo prints), else whatever name the tools gave.
     */
    static String productName(Gpu gpu) {
        return gpu.boardName() != null && !gpu.boardName().isBlank() ? gpu.boardName() : gpu.name();
    }

    /** The labeller's cleaning (spaces to {@code _}, parentheses dropped), then fitted to a label value. */
    private static String productNameText(String name) {
        return LabelText.value(name.strip().replace(' ', '_').replace("(", "").replace(")", ""), '_');
    }

    /**
     * The labeller's partition keys: {@code compute-memory-partition} ({@code cpx_nps1}) when every card that
     * reports both modes is in the same pair; {@code compute-partitioning-supported} and
     * {@code memory-partitioning-supported}, {@code true} when the first card amdgpu drives (by PCI address, as
     * the labeller's glob of {@code /sys/module/amdgpu/drivers/pci:amdgpu/} orders them) can be switched between
     * modes ({@code available_compute_partition}, {@code available_memory_partition}), else {@code false}.
     */
    private static void partitions(SortedMap<String, String> out, List<Gpu> gpus) {
        TreeMap<String, Integer> pairs = GpuFacts.countBy(gpus, g -> {
            Partitioning p = g.partitioning();
            return p == null || p.kind() == null || p.memoryMode() == null ? null : p.kind() + "_" + p.memoryMode();
        }, LabelText::value);
        if (pairs.size() == 1) {
            out.put(key(PREFIX, "compute-memory-partition"), pairs.firstKey());
        }
        Gpu first = null;
        for (Gpu g : gpus) {
            if ((g.kernelDriver() == null || g.kernelDriver().equals("amdgpu"))
                    && (first == null || PciAddress.compareNullsLast(g.pciAddress(), first.pciAddress()) < 0)) {
                first = g;
            }
        }
        Partitioning p = first == null ? null : first.partitioning();
        out.put(key(PREFIX, "compute-partitioning-supported"), String.valueOf(p != null && p.modes() != null && !p.modes().isEmpty()));
        out.put(key(PREFIX, "memory-partitioning-supported"),
                String.valueOf(p != null && p.memoryModes() != null && !p.memoryModes().isEmpty()));
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

    /** The labeller's {@code createLabels}: the {@code amd.com} form and the {@code beta.amd.com} form. */
    private static <T> void counted(SortedMap<String, String> out, List<Gpu> gpus, String name,
                                    Function<Gpu, T> field, Function<T, String> text) {
        TreeMap<String, Integer> counts = GpuFacts.countBy(gpus, field, text);
        put(out, PREFIX, name, counts);
        counts.forEach((value, n) -> out.put(key(BETA_PREFIX, name + "." + value), String.valueOf(n)));
        if (counts.size() == 1) {
            out.put(key(BETA_PREFIX, name), counts.firstKey());
        }
    }

    /** A key the labeller writes under {@code amd.com} only. */
    private static <T> void property(SortedMap<String, String> out, List<Gpu> gpus, String name,
                                     Function<Gpu, T> field, Function<T, String> text) {
        put(out, PREFIX, name, GpuFacts.countBy(gpus, field, text));
    }

    private static void put(SortedMap<String, String> out, String prefix, String name, TreeMap<String, Integer> counts) {
        if (counts.size() == 1) {
            out.put(key(prefix, name), counts.firstKey());
        } else {
            counts.forEach((value, n) -> out.put(key(prefix, name + "." + value), String.valueOf(n)));
        }
    }

    private static String key(String prefix, String name) {
        return LabelText.key(prefix, "gpu." + name);
    }
}
