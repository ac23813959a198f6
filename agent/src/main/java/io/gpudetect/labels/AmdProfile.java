package io.gpudetect.labels;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * {@code amd.com/gpu.*} labels as AMD's node labeller (ROCm/k8s-device-plugin) writes them:
 * {@code product-name} (spaces as {@code _}: {@code AMD_Instinct_MI300X_OAM}), {@code vram}
 * ({@code 192G}), {@code family}, {@code device-id} ({@code 74a1}), {@code cu-count} and
 * {@code driver-version}. When every AMD card agrees the key holds the value
 * ({@code amd.com/gpu.vram=192G}); on a mixed node each value becomes part of the key with the number of
 * cards as the value ({@code amd.com/gpu.vram.192G=4}), the form the labeller uses for counts.
 *
 * <p>Unlike that labeller, which computes its labels once at start (k8s-device-plugin 234), these are
 * recomputed on every pass. {@code family} holds the architecture our probes report ({@code gfx942}),
 * not the labeller's two-letter family code; {@code simd-count} is not written (no probe reports it).
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
        property(out, gpus, "family", Gpu::architecture, LabelText::value);
        property(out, gpus, "device-id", Gpu::pciDeviceId, LabelText::value);
        property(out, gpus, "cu-count", Gpu::computeUnits, String::valueOf);
        property(out, gpus, "driver-version", Gpu::driverVersion, LabelText::value);
        return out;
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
