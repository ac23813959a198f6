package io.gpudetect.inventory;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import io.gpudetect.tables.AkashGpus;
import io.gpudetect.tables.AmdComputeUnits;
import io.gpudetect.tables.AmdProductMemory;
import io.gpudetect.tables.MemorySize;
import io.gpudetect.tables.ModelSlug;
import io.gpudetect.tables.NvidiaProductMemory;
import io.gpudetect.tables.ProductList;
import io.gpudetect.tables.Tables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The rules that decide the model slug ({@code a100}, {@code rtx4090}, {@code mi300x}), after the name rules. The
 * first that applies decides; one that applies and finds no one product leaves the model unknown, and no later
 * rule guesses. A model the tool printed is kept. The rules that remember a judgement do so for one pass (a
 * {@link Normaliser}): eight cards of one kind are judged, and told of, once. Their keys write their own equals
 * and hashCode: a record's generated ones are bootstrapped through java.lang.runtime.ObjectMethods at their first
 * call, which spins some thirty method-handle classes that no class-data archive keeps, at every start that names
 * an AMD card (docs/performance.md, row "normaliser's keys without ObjectMethods").
 */
final class ModelRules {

    private ModelRules() {
    }

    /** A name a model may be slugged from: neither cut short nor damaged, nor a placeholder. */
    static boolean sluggable(String name) {
        return !NameShapes.isTruncated(name) && !NameShapes.isPlaceholder(name);
    }

    /**
     * Applies to an AMD card whose name is a marketing name, whose ids Akash's table lists, and whose device id
     * AMD sells as several products (66a1: MI50, MI60, Radeon Pro VII). Decides the model from the name: Akash
     * keys by device id alone, so the tool's exact marketing name tells the model better than the table.
     * Evidence: {@code derived}.
     */
    record AmdMarketingNameOverAkash() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return card.modelOpen() && card.vendor() == Vendor.AMD && card.akash().isPresent()
                    && NameShapes.hasAmdMarketingWord(card.name())
                    && card.tables().amdGpuIds().namesSeveralProducts(card.deviceId());
        }

        @Override
        public void decide(Card card) {
            String model = ModelSlug.fromName(card.name());
            if (model != null) {
                card.model(this, model, "derived");
            }
        }
    }

    /**
     * Applies when the tool cut the name short ({@code NVIDIA RTX 6000 Ada Gene...}), printed no device id, and
     * Akash's table has nothing for the card. Decides the one product of pci.ids whose name starts with what is
     * left, whose full name would not have fit the column, and whose size (Akash's table, NVIDIA's specifications)
     * does not rule out the card's; where several or none remain the model is left unknown, with a warning.
     * Evidence: {@code pci.ids}.
     */
    static final class FromCutName implements NamingRule {
        /** Cut names judged in this pass, by name and size: eight cards of one kind are judged, and told of, once. */
        private final Map<CutNameKind, Optional<String>> judged = new java.util.HashMap<>();

        @Override
        public boolean appliesTo(Card card) {
            return card.modelOpen() && card.akash().isEmpty() && card.name() != null && card.name().strip().endsWith("...")
                    && card.deviceId() == null && card.vendorId() != null;
        }

        @Override
        public void decide(Card card) {
            CutNameKind kind = new CutNameKind(card.name(), card.input().memoryMiB());
            Optional<String> model = judged.get(kind);
            if (model == null) {
                model = Optional.ofNullable(cutNameModel(card.tables(), card.vendor(), card.vendorId(), card.name(),
                        card.input().memoryMiB(), card.probeOf("name"), card.diagnostics()));
                judged.put(kind, model);
            }
            card.model(this, model.orElse(null), "pci.ids");
        }

        private record CutNameKind(String name, Long memoryMiB) {
            @Override
            public boolean equals(Object o) {
                return o instanceof CutNameKind k && Objects.equals(name, k.name) && Objects.equals(memoryMiB, k.memoryMiB);
            }

            @Override
            public int hashCode() {
                return Objects.hashCode(name) * 31 + Objects.hashCode(memoryMiB);
            }
        }

        /**
         * The model of a card whose name the tool cut short ({@code NVIDIA RTX 6000 Ada Gene...}) and whose device id
         * it did not print: the products whose pci.ids name starts with what is left, less those whose size in
         * Akash's table differs from the card's. One product left is the model; otherwise the model stays unknown
         * and a note says which products the cut name fits.
         */
        private static String cutNameModel(Tables tables, Vendor vendor, String vendorId, String name, Long memoryMiB, String probe,
                List<Diagnostic> diagnostics) {
            String prefix = name.strip();
            // What the tool kept before "...": a product whose full name is no longer than what was printed would
            // have been printed whole, so the name's being cut rules it out ("NVIDIA GeForce RTX 4070 ..." is not
            // the 4070 or the 4070 Ti, whose names fit the column).
            int printed = prefix.length();
            prefix = prefix.substring(0, prefix.length() - 3).strip();
            if (vendor == Vendor.NVIDIA && prefix.regionMatches(true, 0, "NVIDIA ", 0, 7)) {
                prefix = prefix.substring(7);
            }
            SortedMap<String, String> candidates = tables.pciIds().devicesNamedFrom(vendorId, prefix);
            Map<String, String> models = new TreeMap<>();
            for (Map.Entry<String, String> c : candidates.entrySet()) {
                if (vendor == Vendor.NVIDIA && NameShapes.printedName(c.getValue()).length() <= printed) {
                    continue;
                }
                Optional<AkashGpus.Entry> entry = tables.akash().lookup(vendorId, c.getKey());
                Integer productGi = entry.map(AkashGpus.Entry::memoryGi).orElse(null);
                if (productGi != null && memoryMiB != null && !productGi.equals(MemorySize.gi(memoryMiB, productGi))) {
                    continue;
                }
                String ownSlug = ModelSlug.forProduct(vendor, c.getValue());
                if (productGi == null && memoryMiB != null && vendor == Vendor.NVIDIA && ownSlug != null
                        && !NvidiaProductMemory.maySell(ownSlug, MemorySize.gi(memoryMiB, null))) {
                    // Akash does not list it (GeForce, laptop parts): NVIDIA's specifications give its sizes.
                    continue;
                }
                String slug = entry.map(AkashGpus.Entry::model).orElse(ownSlug);
                if (slug != null) {
                    models.merge(slug, c.getValue(), (a, bName) -> a);
                }
            }
            Integer gi = memoryMiB == null ? null : MemorySize.gi(memoryMiB, null);
            if (models.size() == 1) {
                Map.Entry<String, String> only = models.entrySet().iterator().next();
                diagnostics.add(Diagnostic.info(probe, "pci.ids", "'" + name + "' is cut short; of the products whose name "
                        + "starts so" + (gi == null ? "" : " and whose size does not rule out " + gi + " GiB") + ", only "
                        + only.getValue() + " remains: model " + only.getKey()));
                return only.getKey();
            }
            String fits;
            if (models.isEmpty()) {
                fits = "no product pci.ids names";
            } else {
                List<String> names = new ArrayList<>(models.values());
                fits = names.size() + " products" + (gi == null ? "" : " that " + gi + " GiB does not rule out") + " ("
                        + String.join(", ", names.subList(0, Math.min(5, names.size()))) + (names.size() > 5 ? ", ..." : "") + ")";
            }
            // A warning, not a note: the card is there but its model is unknown, and a person can fix that (issue 28).
            diagnostics.add(Diagnostic.warning(probe, "pci.ids", null, "'" + name + "' is cut short and fits " + fits
                    + ": model left unknown; nvidia-smi -L or -q prints the full name"));
            return null;
        }
    }

    /**
     * Applies when Akash's table lists the card's vendor, device and subsystem ids with a model. Decides Akash's
     * model, so that a provider's bids and labels use the slug the marketplace knows. Evidence: {@code akash-gpus}.
     */
    record FromAkashTable() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return card.modelOpen() && card.akash().isPresent() && card.akash().get().model() != null;
        }

        @Override
        public void decide(Card card) {
            card.model(this, card.akash().get().model(), "akash-gpus");
        }
    }

    /**
     * Applies to an NVIDIA or AMD card whose (sluggable) name lists several products ({@code Navi 21 [Radeon RX
     * 6800/6800 XT / 6900 XT]}, {@code AMD Instinct MI60 / MI50}). Decides the one product the list holds, or the one
     * its VRAM (and, for AMD, compute units) leaves, with a note; else the chip family, or no model where the name
     * names no chip, with a warning naming the products. Never the list run together. Evidence: {@code derived}.
     */
    static final class FromListedProducts implements NamingRule {
        /** Names that list several products, judged once per name, size and CU count in this pass. */
        private final Map<ListKind, Optional<String>> judged = new java.util.HashMap<>();

        @Override
        public boolean appliesTo(Card card) {
            return card.modelOpen() && sluggable(card.name())
                    && (card.vendor() == Vendor.NVIDIA || card.vendor() == Vendor.AMD) && products(card).isList();
        }

        private static ProductList products(Card card) {
            return ProductList.parse(card.slugName() != null ? card.slugName() : card.name());
        }

        @Override
        public void decide(Card card) {
            Integer gi = card.memoryGi();
            ListKind kind = new ListKind(card.name(), gi, card.input().computeUnits());
            Optional<String> model = judged.get(kind);
            if (model == null) {
                model = Optional.ofNullable(listModel(card.vendor(), card.name(), products(card), gi, card.input(),
                        card.diagnostics()));
                judged.put(kind, model);
            }
            card.model(this, model.orElse(null), "derived");
        }

        private record ListKind(String name, Integer memoryGi, Integer computeUnits) {
            @Override
            public boolean equals(Object o) {
                return o instanceof ListKind k && Objects.equals(name, k.name) && Objects.equals(memoryGi, k.memoryGi)
                        && Objects.equals(computeUnits, k.computeUnits);
            }

            @Override
            public int hashCode() {
                return (Objects.hashCode(name) * 31 + Objects.hashCode(memoryGi)) * 31 + Objects.hashCode(computeUnits);
            }
        }

        /**
         * The model for a name that lists products ({@code Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]}, {@code AMD
         * Instinct MI60 / MI50}): the one product the list holds, or the one its memory (and, for AMD, compute units)
         * leaves; else the chip family, told in a warning naming the products, and no model where the name names no
         * chip. Never the list run together.
         */
        private static String listModel(Vendor vendor, String name, ProductList list, Integer gi, Gpu gpu, List<Diagnostic> diagnostics) {
            Map<String, String> bySlug = new java.util.LinkedHashMap<>();
            for (String product : list.products()) {
                String slug = ModelSlug.forProduct(vendor, product);
                if (slug != null) {
                    bySlug.putIfAbsent(slug, product);
                }
            }
            if (bySlug.size() == 1) {
                return bySlug.keySet().iterator().next();
            }
            List<String> fitting = new ArrayList<>();
            for (Map.Entry<String, String> e : bySlug.entrySet()) {
                String slug = e.getKey();
                boolean sizeFits = gi == null || (vendor == Vendor.AMD ? AmdProductMemory.maySell(slug, gi) : NvidiaProductMemory.maySell(slug, gi));
                boolean unitsFit = vendor != Vendor.AMD || gpu.computeUnits() == null || AmdComputeUnits.mayHave(slug, gpu.computeUnits());
                if (sizeFits && unitsFit) {
                    fitting.add(slug);
                }
            }
            String probe = gpu.sources() == null ? null : gpu.sources().get("name");
            if (fitting.size() == 1) {
                diagnostics.add(Diagnostic.info(probe, "derived", "'" + name + "' lists " + String.join(", ", bySlug.values())
                        + "; " + (gi == null ? "" : gi + " GB") + (gpu.computeUnits() == null ? "" : " and " + gpu.computeUnits()
                        + " compute units") + " leave only " + bySlug.get(fitting.get(0)) + ": model " + fitting.get(0)));
                return fitting.get(0);
            }
            String chip = list.chip() == null ? null : Chips.chipFamily(list.chip());
            String family = chip == null ? null : ModelSlug.fromName(chip);
            diagnostics.add(Diagnostic.warning(probe, "derived", null, "'" + name + "' names several products ("
                    + String.join(", ", bySlug.values()) + ")"
                    + (gi == null ? "; no VRAM size to tell them apart" : fitting.isEmpty() ? "; none is sold with " + gi + " GB"
                            : "; " + gi + " GB leaves " + fitting.size())
                    + (family == null ? ": model left unknown" : ": model is the chip family '" + family + "'")
                    + (gpu.pciAddress() == null ? "" : " (GPU at " + gpu.pciAddress() + ")")));
            return family;
        }
    }

    /**
     * Applies to an AMD card still named only "AMD Radeon Graphics" (the tables named no product for its ids) whose
     * chip is known: pci.ids' chip for its device id, else the chip of its gfx target. Decides the chip family
     * ({@code strixhalo} for gfx1151), with a warning (once per kind of card) naming the products sold on that chip.
     * Evidence: {@code derived}.
     */
    static final class FromGenericAmdName implements NamingRule {
        /** Generic AMD names (architecture and device id) whose products were told of in this pass. */
        private final java.util.Set<GenericKind> told = new java.util.HashSet<>();

        @Override
        public boolean appliesTo(Card card) {
            return card.modelOpen() && sluggable(card.name()) && card.vendor() == Vendor.AMD
                    && NameShapes.isGenericAmdName(card.name())
                    && genericChip(card.tables(), card.architecture(), card.input()) != null;
        }

        @Override
        public void decide(Card card) {
            card.model(this, genericAmdModel(card.tables(), card.name(), card.architecture(), card.input(),
                    card.diagnostics()), "derived");
        }

        private record GenericKind(String architecture, String pciDeviceId) {
            @Override
            public boolean equals(Object o) {
                return o instanceof GenericKind k && Objects.equals(architecture, k.architecture)
                        && Objects.equals(pciDeviceId, k.pciDeviceId);
            }

            @Override
            public int hashCode() {
                return Objects.hashCode(architecture) * 31 + Objects.hashCode(pciDeviceId);
            }
        }

        /**
         * The model of an AMD GPU named only "AMD Radeon Graphics" whose gfx target is known (rusticl prints it among
         * its driver details): the chip family ({@code strixhalo} for gfx1151), with a warning naming the products
         * sold on that chip where the tables list them by the chip's device id.
         */
        private String genericAmdModel(Tables tables, String name, String architecture, Gpu gpu,
                                       List<Diagnostic> diagnostics) {
            String family = genericChip(tables, architecture, gpu);
            String model = ModelSlug.fromName(family);
            if (!told.add(new GenericKind(architecture, gpu.pciDeviceId()))) {
                return model;
            }
            String device = gpu.pciDeviceId() != null ? gpu.pciDeviceId() : Chips.integratedDeviceOfGfx(architecture);
            List<String> candidates = device == null ? List.of() : tables.amdGpuIds().candidates(device, null);
            String probe = gpu.sources() == null ? null : gpu.sources().get("name");
            diagnostics.add(Diagnostic.warning(probe, "derived", null, "'" + name + "' is AMD's generic name for an integrated GPU; "
                    + (gpu.pciDeviceId() != null ? "device " + gpu.pciDeviceId() : architecture) + " is " + family
                    + (candidates.isEmpty() ? "" : ", sold as " + String.join(", ", candidates))
                    + (gpu.pciDeviceId() != null ? "; the tables name no one product for it" : "; without the PCI device id and revision the product is unknown")
                    + ": model is the chip family '" + model + "'"));
            return model;
        }

        /**
         * The chip of a GPU AMD's driver calls only "AMD Radeon Graphics": pci.ids' chip for its device id where it has
         * one (13c0 is Granite Ridge, though its gfx1036 is also Raphael's), else the chip of its gfx target.
         */
        private static String genericChip(Tables tables, String architecture, Gpu gpu) {
            if (gpu.pciDeviceId() != null) {
                String chip = tables.pciIds().device("1002", gpu.pciDeviceId()).map(Chips::chipFamily).orElse(null);
                if (chip != null) {
                    return chip;
                }
            }
            return Chips.chipFamilyOfGfx(architecture);
        }
    }

    /**
     * Applies to every card whose model is still open and whose name is sluggable. Decides the slug of the name
     * (of the desktop name kept for an old NVIDIA laptop part) by {@link ModelSlug#forProduct}: Akash's rules for
     * NVIDIA, AMD and Intel's numbered products ("NVIDIA GeForce RTX 4090" is {@code rtx4090}, "AMD Instinct MI300X"
     * {@code mi300x}), readable hyphenated words for the rest ({@code Apple M4 Pro} is {@code m4-pro}); unknown
     * where the name is empty. Evidence: {@code derived}.
     */
    record FromName() implements NamingRule {
        @Override
        public boolean appliesTo(Card card) {
            return card.modelOpen() && sluggable(card.name());
        }

        @Override
        public void decide(Card card) {
            card.model(this, ModelSlug.forProduct(card.vendor(), card.slugName() != null ? card.slugName() : card.name()),
                    "derived");
        }
    }

    /**
     * Applies to an AMD card with a device id whose model {@link FromName} slugged from a board's name (rocm-smi's
     * card series, {@code AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2}). Decides the product the device id names
     * (0x7408 is the MI250X) where the tables name exactly one for it and no product AMD sells has the board name's
     * slug; a board name that is a product stays the model. Evidence: {@code derived} (a note cites amdgpu.ids).
     */
    static final class AmdIdOverBoardName implements NamingRule {
        /** Board names judged against their device id in this pass. */
        private final Map<BoardNameKind, Optional<String>> boardNameModels = new java.util.HashMap<>();

        @Override
        public boolean appliesTo(Card card) {
            return card.modelRule() instanceof FromName && card.vendor() == Vendor.AMD && card.deviceId() != null
                    && card.model() != null;
        }

        @Override
        public void decide(Card card) {
            card.model(this, idProductOverBoardName(card.tables(), card.name(), card.model(), card.input(),
                    card.diagnostics()), "derived");
        }

        private record BoardNameKind(String pciDeviceId, String pciRevision, String nameModel) {
            @Override
            public boolean equals(Object o) {
                return o instanceof BoardNameKind k && Objects.equals(pciDeviceId, k.pciDeviceId)
                        && Objects.equals(pciRevision, k.pciRevision) && Objects.equals(nameModel, k.nameModel);
            }

            @Override
            public int hashCode() {
                return (Objects.hashCode(pciDeviceId) * 31 + Objects.hashCode(pciRevision)) * 31 + Objects.hashCode(nameModel);
            }
        }

        /**
         * The model an AMD card's device id gives where its board's name names no product: rocm-smi prints the board
         * string ({@code AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2}) as the card series, and "MI200" is a series, where
         * device 0x7408 is one product, the MI250X. The id wins only when the tables name exactly one product for it and
         * no product anywhere in amdgpu.ids has the board name's slug; a board name that is a product stays the model.
         */
        private String idProductOverBoardName(Tables tables, String name, String nameModel, Gpu gpu, List<Diagnostic> diagnostics) {
            BoardNameKind kind = new BoardNameKind(gpu.pciDeviceId(), gpu.pciRevision(), nameModel);
            Optional<String> judged = boardNameModels.get(kind);
            if (judged == null) {
                judged = Optional.empty();
                List<String> byId = tables.amdGpuIds().candidates(gpu.pciDeviceId(), gpu.pciRevision());
                String product = byId.size() == 1 ? byId.get(0) : null;
                if (product == null && byId.isEmpty()) {
                    ProductList listed = tables.pciIds().device("1002", gpu.pciDeviceId()).map(ProductList::parse).orElse(null);
                    product = listed != null && listed.products().size() == 1 ? listed.products().get(0) : null;
                }
                String idModel = product == null ? null : ModelSlug.fromName(product);
                if (idModel != null && !idModel.equals(nameModel)
                        && !tables.amdGpuIds().sellsProduct(p -> nameModel.equals(ModelSlug.fromName(p)))) {
                    judged = Optional.of(idModel);
                    String probe = gpu.sources() == null ? null : gpu.sources().get("name");
                    diagnostics.add(Diagnostic.info(probe, "amdgpu.ids", "'" + name + "' names no product AMD sells; device "
                            + gpu.pciDeviceId() + " is " + product + ": model " + idModel));
                }
                boardNameModels.put(kind, judged);
            }
            return judged.orElse(nameModel);
        }
    }
}
