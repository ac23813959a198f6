package io.gpudetect.inventory;

import io.gpudetect.model.Vendor;
import io.gpudetect.tables.ModelSlug;
import io.gpudetect.tables.ProductList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The rules that decide the name a card is shown and slugged by, and whether it is an emulated adapter. */
final class NameRules {

    private NameRules() {
    }

    /**
     * Applies when the name carries an OpenCL driver's details ("AMD Radeon Graphics (radeonsi, gfx1151, LLVM
     * 19.1.7, DRM 3.63, ...)"). Decides the name without them, and the architecture from the gfx target among them
     * where the tool printed none: the details name no product, but the gfx target still names the chip where the
     * rest of the name is generic. Evidence: {@code derived} for both.
     */
    record WithoutDriverDetails() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            String cleaned = ModelSlug.withoutDriverDetails(card.name());
            return cleaned != null && !cleaned.equals(card.name());
        }

        @Override
        public void decide(Card card) {
            String gfx = ModelSlug.gfxTargetInDriverDetails(card.name());
            card.name(ModelSlug.withoutDriverDetails(card.name()), "derived");
            if (card.architecture() == null && gfx != null) {
                card.statedArchitecture(gfx, "derived");
            }
        }
    }

    /**
     * Applies to an AMD card with a device id whose name is no one product's marketing name: a chip code name
     * ("Navi 22 [Radeon RX 6700/6700 XT / 6800M]", "Vega 20"), a placeholder, AMD's generic "AMD Radeon Graphics",
     * or a name listing several products ("AMD Instinct MI60 / MI50"). Decides, from libdrm's table by id and
     * revision, then VRAM, then compute units ({@link AmdProducts}): the product's name where the id and revision
     * or the VRAM leave one (and its model, where the VRAM decided), the model alone where the compute units decide
     * (the name stays as printed, as AMD's labeller publishes it), and the chip family as the model where several
     * remain, with a warning naming them. Products a libdrm-style name lists narrow the id's candidates; pci.ids' lists leave some of an id's
     * products out, so they narrow nothing. Evidence: {@code amdgpu.ids} for the name, {@code derived} for the
     * model.
     */
    record FromAmdIds(AmdProducts products) implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return card.vendor() == Vendor.AMD && card.deviceId() != null && !isMarketingName(card.name());
        }

        /** One product's marketing name: names an AMD product line, lists nothing, and is not the generic name. */
        private static boolean isMarketingName(String name) {
            return NameShapes.hasAmdMarketingWord(name) && !name.contains(" / ") && !NameShapes.isGenericAmdName(name)
                    && ProductList.parse(name).products().size() <= 1;
        }

        @Override
        public void decide(Card card) {
            ProductList nameList = ProductList.parse(card.name());
            List<String> named = nameList.products().size() > 1 && nameList.chip() == null ? nameList.products() : List.of();
            AmdProducts.AmdProduct product = products.judge(card.input(), card.architecture(), named, card.diagnostics());
            if (product.name() != null) {
                card.name(product.name(), "amdgpu.ids");
            }
            if (product.model() != null && card.modelOpen()) {
                card.model(this, product.model(), "derived");
            }
        }
    }

    /**
     * Applies when the card has no name, a placeholder ("Graphics Device", "Device 2684", "10de:2684"), or a name
     * cut short or damaged ("NVIDIA GeForce RTX 2080 ..."). Decides the name the tables give the ids: libdrm's
     * (by id and revision) for AMD, else pci.ids'. For an NVIDIA laptop part of a chip older than Ampere it also
     * keeps the desktop name to slug the model from ("Quadro P2000 Mobile" is a p2000), as that driver printed it.
     * Evidence: {@code amdgpu.ids} or {@code pci.ids}, whichever named it.
     */
    record FromTables() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            String name = card.name();
            return name == null || NameShapes.isPlaceholder(name) || NameShapes.isTruncated(name);
        }

        @Override
        public void decide(Card card) {
            Optional<String> named = tableName(card);
            if (named.isEmpty()) {
                return;
            }
            if (card.vendor() == Vendor.NVIDIA) {
                String entry = card.pciIdsEntry().orElse(null);
                card.slugName(entry == null ? null : NameShapes.nameBeforeLaptopGpu(entry, named.get()));
            }
            card.name(named.get(), card.vendor() == Vendor.AMD
                    && card.tables().amdGpuIds().name(card.deviceId(), card.input().pciRevision()).isPresent()
                    ? "amdgpu.ids" : "pci.ids");
        }

        private static Optional<String> tableName(Card card) {
            if (card.vendor() == Vendor.AMD) {
                Optional<String> amd = card.tables().amdGpuIds().name(card.deviceId(), card.input().pciRevision());
                if (amd.isPresent()) {
                    return amd;
                }
            }
            return card.tables().pciIds().productName(card.vendorId(), card.deviceId());
        }
    }

    /**
     * Applies when the PCI vendor (or vendor and device) is a virtual machine's or a BMC's display adapter (QEMU,
     * VirtIO, VMware, VirtualBox, Hyper-V, ASPEED, Matrox, Cirrus, Huawei's iBMC): never a compute GPU. Decides
     * that it is emulated (where the tool did not say), and a name for people where no tool or table gave one;
     * that name names no product, so no model is slugged from it. Evidence: {@code derived}.
     */
    record EmulatedAdapter() implements NamingRule {
        /** PCI vendors whose display functions are virtual machine or BMC adapters, never compute GPUs. */
        private static final Set<String> EMULATED_VENDORS = Set.of(
                "1af4", "1234", "1013", "1b36", "15ad", "1a03", "80ee", "1414", "102b");
        private static final Set<String> EMULATED_DEVICES = Set.of("19e5:1711");

        @Override
        public boolean appliesTo(Card card) {
            String vendorId = card.vendorId();
            return vendorId != null && (EMULATED_VENDORS.contains(vendorId)
                    || EMULATED_DEVICES.contains(vendorId + ":" + card.deviceId()));
        }

        @Override
        public void decide(Card card) {
            if (card.input().emulated() == null) {
                card.emulated(true);
            }
            if (card.name() == null) {
                // QEMU's standard VGA (1234:1111) is not in pci.ids; a person still wants to see what it is.
                card.displayName("1234".equals(card.vendorId()) ? "QEMU/Bochs standard VGA"
                        : "emulated display adapter " + card.vendorId() + ":" + card.deviceId());
            }
        }
    }
}
