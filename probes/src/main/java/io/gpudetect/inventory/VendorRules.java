package io.gpudetect.inventory;

import io.gpudetect.model.Vendor;

/** The rules that decide who made the card: its vendor and its PCI vendor id. */
final class VendorRules {

    private VendorRules() {
    }

    /**
     * Applies when the tool gave no vendor, or an unknown one, but a PCI vendor id. Decides the vendor from the id
     * (10de NVIDIA, 1002 AMD, 8086 Intel, any other id "other"). Evidence: {@code derived}.
     */
    record FromPciVendorId() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return (card.vendor() == null || card.vendor() == Vendor.OTHER) && card.vendorId() != null;
        }

        @Override
        public void decide(Card card) {
            card.vendor(Vendor.fromPciVendorId(card.vendorId()));
        }
    }

    /**
     * Applies when neither vendor nor PCI vendor id was given. Decides the vendor from the words of the name
     * ("NVIDIA", "GeForce", "Quadro", "AMD", "Radeon", ...), "other" where none is there. Evidence: {@code derived}.
     */
    record FromName() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return card.vendor() == null;
        }

        @Override
        public void decide(Card card) {
            card.vendor(Vendor.fromName(card.name()));
        }
    }

    /**
     * Applies when no PCI vendor id was given and the vendor has one. Decides the PCI vendor id from the vendor,
     * so that the tables keyed by ids can be read. Evidence: {@code derived}.
     */
    record PciVendorIdFromVendor() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return card.vendorId() == null && card.vendor().pciVendorId() != null;
        }

        @Override
        public void decide(Card card) {
            card.vendorId(card.vendor().pciVendorId());
        }
    }
}
