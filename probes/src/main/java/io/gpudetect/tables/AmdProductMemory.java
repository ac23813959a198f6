package io.gpudetect.tables;

import java.util.Map;
import java.util.Set;

/**
 * The memory sizes (GB) AMD sells a product with, by model slug, from AMD's product specifications.
 * Only for products that share a device id with another product of a different size, where the
 * VRAM a tool reports is what tells them apart when no revision was printed (66A1: MI50 16 or 32 GB,
 * MI60 32 GB, Radeon Pro VII 16 GB). A product not listed here is never ruled out by its size.
 */
public final class AmdProductMemory {

    private static final Map<String, Set<Integer>> SIZES = Map.ofEntries(
            Map.entry("mi25", Set.of(16)),
            Map.entry("mi25x2", Set.of(16)),
            Map.entry("provii", Set.of(16)),
            Map.entry("radeonvii", Set.of(16)),
            Map.entry("mi50", Set.of(16, 32)),
            Map.entry("mi60", Set.of(32)),
            Map.entry("prov340", Set.of(8)),
            Map.entry("prov320", Set.of(8)),
            Map.entry("mi100", Set.of(32)),
            Map.entry("mi210", Set.of(64)),
            Map.entry("mi250", Set.of(128)),
            Map.entry("mi250x", Set.of(128)),
            Map.entry("mi300a", Set.of(128)),
            Map.entry("mi300x", Set.of(192)),
            Map.entry("mi308x", Set.of(192)),
            Map.entry("mi325x", Set.of(256)),
            Map.entry("mi350x", Set.of(288)),
            Map.entry("mi355x", Set.of(288)),
            Map.entry("rx6700xt", Set.of(12)),
            Map.entry("rx6750xt", Set.of(12)),
            Map.entry("rx6700", Set.of(10)),
            Map.entry("rx6800m", Set.of(12)),
            Map.entry("rx6700m", Set.of(10)),
            Map.entry("rx6900xt", Set.of(16)),
            Map.entry("rx6800xt", Set.of(16)),
            Map.entry("rx6800", Set.of(16)),
            Map.entry("rx7900xtx", Set.of(24)),
            Map.entry("rx7900xt", Set.of(20)),
            Map.entry("rx7900gre", Set.of(16)),
            Map.entry("rx7900m", Set.of(16)));

    private AmdProductMemory() {
    }

    /** False only when the product is listed and is never sold with {@code gi} GB. */
    public static boolean maySell(String slug, int gi) {
        Set<Integer> sizes = SIZES.get(slug);
        return sizes == null || sizes.contains(gi);
    }
}
