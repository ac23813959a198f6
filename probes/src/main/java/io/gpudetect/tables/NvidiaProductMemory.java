package io.gpudetect.tables;

import java.util.Map;
import java.util.Set;

/**
 * The memory sizes (GB) NVIDIA sells a product with, by model slug, from NVIDIA's product specifications, for
 * products Akash's table does not list (GeForce cards, laptop GPUs, Ada laptop parts). Used only where a name was
 * cut ({@code NVIDIA GeForce RTX 4070 ...}) or lists products ({@code Quadro RTX 6000/8000}) and the card's VRAM is
 * what tells the products apart: 16 GB leaves the RTX 4070 Ti SUPER of the four. A product not listed here is never ruled out by its size.
 */
public final class NvidiaProductMemory {

    private static final Map<String, Set<Integer>> SIZES = Map.ofEntries(
            // GeForce RTX 20.
            Map.entry("rtx2060", Set.of(6, 12)), Map.entry("rtx2060s", Set.of(8)),
            Map.entry("rtx2070", Set.of(8)), Map.entry("rtx2070s", Set.of(8)),
            Map.entry("rtx2080", Set.of(8)), Map.entry("rtx2080s", Set.of(8)), Map.entry("rtx2080ti", Set.of(11)),
            // GeForce RTX 30 and its laptop parts.
            Map.entry("rtx3050", Set.of(6, 8)), Map.entry("rtx3060", Set.of(8, 12)), Map.entry("rtx3060ti", Set.of(8)),
            Map.entry("rtx3070", Set.of(8)), Map.entry("rtx3070ti", Set.of(8)),
            Map.entry("rtx3080", Set.of(10, 12)), Map.entry("rtx3080ti", Set.of(12)),
            Map.entry("rtx3090", Set.of(24)), Map.entry("rtx3090ti", Set.of(24)),
            Map.entry("rtx3050m", Set.of(4, 6)), Map.entry("rtx3050tim", Set.of(4)), Map.entry("rtx3060m", Set.of(6)),
            Map.entry("rtx3070m", Set.of(8)), Map.entry("rtx3070tim", Set.of(8)),
            Map.entry("rtx3080m", Set.of(8, 16)), Map.entry("rtx3080tim", Set.of(16)),
            // GeForce RTX 40 and its laptop parts.
            Map.entry("rtx4060", Set.of(8)), Map.entry("rtx4060ti", Set.of(8, 16)),
            Map.entry("rtx4070", Set.of(12)), Map.entry("rtx4070s", Set.of(12)), Map.entry("rtx4070ti", Set.of(12)),
            Map.entry("rtx4070tis", Set.of(16)), Map.entry("rtx4080", Set.of(16)), Map.entry("rtx4080s", Set.of(16)),
            Map.entry("rtx4090", Set.of(24)), Map.entry("rtx4090d", Set.of(24)),
            Map.entry("rtx4050m", Set.of(6)), Map.entry("rtx4060m", Set.of(8)), Map.entry("rtx4070m", Set.of(8)),
            Map.entry("rtx4080m", Set.of(12)), Map.entry("rtx4090m", Set.of(16)),
            // GeForce RTX 50.
            Map.entry("rtx5060", Set.of(8)), Map.entry("rtx5060ti", Set.of(8, 16)), Map.entry("rtx5070", Set.of(12)),
            Map.entry("rtx5070ti", Set.of(16)), Map.entry("rtx5080", Set.of(16)), Map.entry("rtx5090", Set.of(32)),
            // Quadro RTX (Turing), whose 6000 and 8000 are one pci.ids entry each listing both ("Quadro RTX 6000/8000").
            Map.entry("rtx4000", Set.of(8)), Map.entry("rtx5000", Set.of(16)), Map.entry("rtx6000", Set.of(24)),
            Map.entry("rtx8000", Set.of(48)),
            // Ada Generation laptop parts, which start as the desktop cards do ("RTX 4000 Ada Gene...").
            Map.entry("rtx2000adam", Set.of(8)), Map.entry("rtx2000adaembedded", Set.of(8)), Map.entry("rtx3500adam", Set.of(12)),
            Map.entry("rtx4000adam", Set.of(12)), Map.entry("rtx5000adam", Set.of(16)));

    private NvidiaProductMemory() {
    }

    /** False only when the product is listed and is never sold with {@code gi} GB. */
    public static boolean maySell(String slug, int gi) {
        Set<Integer> sizes = SIZES.get(slug);
        return sizes == null || sizes.contains(gi);
    }
}
