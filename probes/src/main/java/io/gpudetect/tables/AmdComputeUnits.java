package io.gpudetect.tables;

import java.util.Map;

/**
 * The compute units of AMD products that share a device id and a memory size with another product, by model
 * slug, from AMD's product specifications: device 66A1 with 32 GB is an MI50 (60 CUs) or an MI60 (64 CUs), and
 * rocminfo's and clinfo's CU count tells which. A product not listed here is never ruled out by its CUs.
 */
public final class AmdComputeUnits {

    private static final Map<String, Integer> UNITS = Map.ofEntries(
            // GCN only: RDNA cards count work-group processors in some runtimes (ROCm's OpenCL prints 36 for an
            // RX 6800 XT's 72 CUs) and each die of an MI250 is a GPU of its own, so neither count is the product's.
            Map.entry("mi50", 60), Map.entry("mi60", 64), Map.entry("provii", 60), Map.entry("radeonvii", 60));

    private AmdComputeUnits() {
    }

    /** False only when the product is listed with another number of compute units than {@code units}. */
    public static boolean mayHave(String slug, int units) {
        Integer listed = UNITS.get(slug);
        return listed == null || listed == units;
    }
}
