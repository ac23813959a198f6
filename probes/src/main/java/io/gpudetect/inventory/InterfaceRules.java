package io.gpudetect.inventory;

import io.gpudetect.model.GpuInterface;
import io.gpudetect.model.Vendor;
import java.util.regex.Pattern;

/**
 * The rules that decide the interface ({@code sxm}, {@code pcie}, {@code oam}, {@code integrated}) where something
 * says it, and else none. Nothing else tells it: an H100 is sold as SXM, PCIe and NVL boards under one product
 * name ("NVIDIA H100 80GB HBM3" is an SXM5 module), and every form, SXM included, sits on the PCI bus, so neither a
 * name nor a PCI function tells a card from a module.
 */
final class InterfaceRules {

    private InterfaceRules() {
    }

    /**
     * Applies when Akash's table gives an interface for the ids. Decides it. Evidence: {@code akash-gpus}.
     */
    record FromAkashTable() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return card.interfaceOpen() && card.akash().isPresent() && card.akash().get().interfaceType() != null;
        }

        @Override
        public void decide(Card card) {
            card.interfaceType(card.akash().get().interfaceType(), "akash-gpus");
        }
    }

    /**
     * Applies to a GPU that shares the host's memory. Decides {@code integrated}: beside discrete GPUs it is not
     * what a node is offered for. Evidence: {@code derived}.
     */
    record SharedMemoryIsIntegrated() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return card.interfaceOpen() && card.sharedMemory();
        }

        @Override
        public void decide(Card card) {
            card.interfaceType(GpuInterface.INTEGRATED, "derived");
        }
    }

    /**
     * Applies when the name as the tool printed it states the form ("A100-SXM4-80GB", "H100 PCIe"). Decides that
     * form. Evidence: {@code derived}.
     */
    record StatedInName() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return card.interfaceOpen() && NameShapes.formInName(card.input().name()) != null;
        }

        @Override
        public void decide(Card card) {
            card.interfaceType(NameShapes.formInName(card.input().name()), "derived");
        }
    }

    /**
     * Applies to an NVIDIA card whose pci.ids entry states the form ("GH100 [H100 SXM5 80GB]"); AMD's entries never
     * do. Decides that form. Evidence: {@code pci.ids}.
     */
    record StatedInPciIds() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return card.interfaceOpen() && card.vendor() == Vendor.NVIDIA && card.deviceId() != null
                    && NameShapes.formInName(card.pciIdsEntry().orElse(null)) != null;
        }

        @Override
        public void decide(Card card) {
            card.interfaceType(NameShapes.formInName(card.pciIdsEntry().orElse(null)), "pci.ids");
        }
    }

    /**
     * Applies to an AMD card whose model is sold only as an OAM module: the Instinct MI250, MI250X and MI3x0X. Not
     * the MI300A, an APU in a socket, nor a bare "mi300", which could be either. Decides {@code oam}. Evidence:
     * {@code derived}.
     */
    record OamOnlyModel() implements NamingRule {
        private static final Pattern OAM_MODELS = Pattern.compile("^mi(2[05]0x?|3\\d\\dx)$");

        @Override
        public boolean appliesTo(Card card) {
            return card.interfaceOpen() && card.model() != null && card.vendor() == Vendor.AMD
                    && OAM_MODELS.matcher(card.model()).matches();
        }

        @Override
        public void decide(Card card) {
            card.interfaceType(GpuInterface.OAM, "derived");
        }
    }
}
