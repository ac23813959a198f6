package io.gpudetect.labels;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.inventory.Inventories;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Which vendors' cards the akash profile counts: the ones a provider can offer on Akash. */
class AkashProfileVendorsTest {

    private static Gpu gpu(Vendor vendor, String model) {
        return Gpu.builder("test").vendor(vendor).model(model).memoryGi(16).build();
    }

    @Test
    void nvidiaAmdAndIntelAreCountedOtherVendorsAreNot() {
        Inventory inventory = Inventories.of("test", List.of(gpu(Vendor.NVIDIA, "t4"), gpu(Vendor.AMD, "mi100"),
                gpu(Vendor.INTEL, "arc-a770"), gpu(Vendor.APPLE, "m4-pro"), gpu(Vendor.ARM, "mali-g610"),
                gpu(Vendor.OTHER, "unknown")), List.of(), List.of());

        Map<String, String> capabilities = new TreeMap<>();
        new AkashProfile().labels(inventory).forEach((k, v) -> {
            if (k.startsWith("akash.network/capabilities.gpu.vendor.") && !k.contains(".ram.")) {
                capabilities.put(k.substring("akash.network/capabilities.gpu.vendor.".length()), v);
            }
        });

        assertEquals(Map.of("amd.model.mi100", "1", "intel.model.arc-a770", "1", "nvidia.model.t4", "1"), capabilities);
    }
}
