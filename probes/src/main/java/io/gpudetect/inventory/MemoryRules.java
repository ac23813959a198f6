package io.gpudetect.inventory;

import io.gpudetect.model.Vendor;
import io.gpudetect.tables.MemorySize;

/**
 * The rules that decide the VRAM in whole GiB, where the tool gave none: never for a GPU that shares the host's
 * memory (an integrated GPU, a unified-memory superchip), whose size is no product's.
 */
final class MemoryRules {

    private MemoryRules() {
    }

    /** Open for a dedicated-memory card whose tool gave no GiB. */
    static boolean open(Card card) {
        return card.memoryGiOpen() && !card.sharedMemory();
    }

    /**
     * Applies when the tool gave the VRAM in MiB. Decides the GiB the card is sold as: the MiB rounded, to the size
     * Akash's table gives the ids where the MiB fit it (an 80 GB card shows 81,559 MiB). Evidence: {@code derived}.
     */
    record FromMiB() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return open(card) && card.input().memoryMiB() != null;
        }

        @Override
        public void decide(Card card) {
            Integer tableGi = card.akash().isPresent() ? card.akash().get().memoryGi() : null;
            card.memoryGi(MemorySize.gi(card.input().memoryMiB(), tableGi), "derived");
        }
    }

    /**
     * Applies when no size was printed and Akash's table gives one for the ids. Decides the table's size.
     * Evidence: {@code akash-gpus}.
     */
    record FromAkashTable() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return open(card) && card.akash().isPresent() && card.akash().get().memoryGi() != null;
        }

        @Override
        public void decide(Card card) {
            card.memoryGi(card.akash().get().memoryGi(), "akash-gpus");
        }
    }

    /**
     * Applies to an NVIDIA card whose name states a size ("NVIDIA H100 80GB HBM3" from {@code nvidia-smi -L}):
     * NVIDIA's names state the size they are sold with. Decides that size. Evidence: {@code derived}.
     */
    record StatedInName() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return open(card) && card.vendor() == Vendor.NVIDIA && NameShapes.memoryStatedInName(card.name()) != null;
        }

        @Override
        public void decide(Card card) {
            card.memoryGi(NameShapes.memoryStatedInName(card.name()), "derived");
        }
    }
}
