package io.gpudetect.inventory;

import io.gpudetect.model.Vendor;
import java.util.Set;
import java.util.TreeSet;

/**
 * The rules that decide what the chip is where the tool did not say: an NVIDIA card's CUDA compute capability
 * (nvidia-smi's XML and older NVML schemas print none, but GFD labels it, and every chip has exactly one) and the
 * architecture (old nvidia-smi schemas print none, but every chip code says it).
 */
final class ChipRules {

    private ChipRules() {
    }

    /** Open for an NVIDIA card whose tool printed no compute capability. */
    static boolean computeCapabilityOpen(Card card) {
        return card.computeCapabilityOpen() && card.vendor() == Vendor.NVIDIA;
    }

    /**
     * Applies to an NVIDIA card whose ids pci.ids lists under a chip CUDA's tables know ({@code GA102GL [RTX
     * A5000]}). Decides that chip's compute capability (8.6). Evidence: {@code pci.ids}.
     */
    record ComputeCapabilityFromChip() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return computeCapabilityOpen(card) && card.pciIdsEntry().isPresent()
                    && Chips.nvidiaComputeCapabilityFromChip(card.pciIdsEntry().get()) != null;
        }

        @Override
        public void decide(Card card) {
            card.computeCapability(Chips.nvidiaComputeCapabilityFromChip(card.pciIdsEntry().get()), "pci.ids");
        }
    }

    /**
     * Applies to an NVIDIA card with a name but no device id pci.ids lists (some recordings and some VMs show no
     * real one). Decides the compute capability of the chips pci.ids lists under that product name, where they all
     * have one and the same. Evidence: {@code pci.ids}.
     */
    record ComputeCapabilityByName() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return computeCapabilityOpen(card) && card.pciIdsEntry().isEmpty() && card.name() != null;
        }

        @Override
        public void decide(Card card) {
            Set<String> byName = new TreeSet<>();
            for (String e : card.tables().pciIds().devicesNamed(Vendor.NVIDIA.pciVendorId(),
                    card.name().strip().replaceFirst("(?i)^nvidia\\s+", ""))) {
                byName.add(String.valueOf(Chips.nvidiaComputeCapabilityFromChip(e)));
            }
            if (byName.size() == 1 && !byName.contains("null")) {
                card.computeCapability(byName.iterator().next(), "pci.ids");
            }
        }
    }

    /**
     * Applies to an NVIDIA card named a GB10 (DGX Spark and its OEM twins), which the shipped pci.ids does not
     * list: by name it is one product. Decides 12.1, CUDA's compute capability for it. Evidence: {@code derived}.
     */
    record Gb10ByName() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return computeCapabilityOpen(card) && card.name() != null && NameShapes.namesGb10(card.name().strip());
        }

        @Override
        public void decide(Card card) {
            card.computeCapability("12.1", "derived");
        }
    }

    /**
     * Applies to an NVIDIA card newer than the shipped pci.ids that the tool calls Blackwell and whose name says RTX:
     * every RTX-branded Blackwell (GeForce RTX 50, RTX PRO) is a GB20x chip; the data-centre B100/B200 (10.0) carry
     * no RTX. Decides 12.0. Evidence: {@code derived}.
     */
    record RtxBlackwell() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return computeCapabilityOpen(card) && card.pciIdsEntry().isEmpty()
                    && "Blackwell".equalsIgnoreCase(card.input().architecture())
                    && card.name() != null && card.name().matches("(?i).*\\bRTX\\b.*");
        }

        @Override
        public void decide(Card card) {
            card.computeCapability("12.0", "derived");
        }
    }

    /**
     * Applies when the tool printed a compute capability but no architecture. Decides the architecture CUDA's
     * numbering gives it (8.0 Ampere, 9.0 Hopper). Evidence: {@code derived}.
     */
    record ArchitectureFromComputeCapability() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return card.architectureOpen() && card.input().computeCapability() != null;
        }

        @Override
        public void decide(Card card) {
            card.architecture(Chips.nvidiaArchitecture(card.input().computeCapability()), "derived");
        }
    }

    /**
     * Applies to an NVIDIA card with a device id whose tool printed neither architecture nor compute capability.
     * Decides the architecture of the chip code that starts its pci.ids entry ({@code TU102 [GeForce RTX 2080 Ti]}
     * is Turing). Evidence: {@code pci.ids}.
     */
    record ArchitectureFromChip() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return card.architectureOpen() && card.input().computeCapability() == null && card.vendor() == Vendor.NVIDIA
                    && card.deviceId() != null;
        }

        @Override
        public void decide(Card card) {
            String entry = card.pciIdsEntry().orElse(null);
            String architecture = entry == null ? null : Chips.nvidiaArchitectureFromChip(entry);
            if (architecture != null) {
                card.architecture(architecture, "pci.ids");
            }
        }
    }
}
