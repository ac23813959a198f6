package io.gpudetect.inventory;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuInterface;
import io.gpudetect.model.NvidiaArchitecture;
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
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Fills what the tools left out from the tables and from the other fields: vendor from the PCI id,
 * a name for cards the tool could not name, the Akash model slug, VRAM in GiB, the interface, and the
 * mark on emulated adapters. Every value set here names its table, or {@code derived}, as its source.
 */
public final class Normaliser {

    /**
     * What tools print when they cannot name a card: "Graphics Device", "Device 2684", "10de:2684", "0x1002",
     * "[1002:73df]". An id is written with "0x", as vendor:device, or as four hex digits led by a digit (device
     * ids of GPUs are), so that product names made of hex letters and digits ("NVIDIA A40", "A100") stay names.
     */
    private static final Pattern PLACEHOLDER_NAME = Pattern.compile("(?i)^(nvidia\\s+)?(graphics device|device [0-9a-f]{4}"
            + "|unknown|n/a|\\[n/a]|\\[?(0x[0-9a-f]{1,4}|[0-9a-f]{4}:[0-9a-f]{4}|[0-9][0-9a-f]{3})]?)$");

    /** A product name rather than a chip code name: names a line and is not a pci.ids list in brackets. */
    private static final Pattern AMD_MARKETING_NAME = Pattern.compile(
            "(?i)^(?!.*\\[)(?=.*\\b(radeon|instinct|firepro|ryzen)\\b)");

    /**
     * The name AMD's drivers give every integrated GPU whose product they do not know ("AMD Radeon Graphics",
     * "AMD Radeon(TM) Graphics"): a brand, not a product, so the ids or the gfx target say more.
     */
    private static final Pattern GENERIC_AMD_NAME = Pattern.compile("(?i)^(amd\\s+)?radeon(\\s*\\(tm\\))?\\s+graphics$");

    /** NVIDIA's GB10 (DGX Spark, its OEM twins): a GB20x-family chip that CUDA lists as 12.1, not 12.0. */
    private static final Pattern GB10_NAME = Pattern.compile("(?i)(^|[\\s\\[])(nvidia\\s+)?gb10(]|$)");

    /** PCI vendors whose display functions are virtual machine or BMC adapters, never compute GPUs. */
    private static final Set<String> EMULATED_VENDORS = Set.of(
            "1af4", "1234", "1013", "1b36", "15ad", "1a03", "80ee", "1414", "102b");
    private static final Set<String> EMULATED_DEVICES = Set.of("19e5:1711");

    /**
     * OAM modules: the Instinct MI250, MI250X and MI3x0X are sold in no other form. Not the MI300A, an APU in
     * a socket, nor a bare "mi300", which could be either.
     */
    private static final Pattern OAM_MODELS = Pattern.compile("^mi(2[05]0x?|3\\d\\dx)$");

    /** A name that states the form: "A100-SXM4-80GB", "Tesla V100-SXM2-16GB", "H100 PCIe", "A100-PCIE-40GB". */
    private static final Pattern SXM_IN_NAME = Pattern.compile("(?i)(?:^|[^a-z])sxm\\d*(?:[^a-z]|$)");
    private static final Pattern PCIE_IN_NAME = Pattern.compile("(?i)(?:^|[^a-z])pcie(?:[^a-z]|$)");

    /** The chip code that starts an NVIDIA pci.ids entry: {@code TU102}, {@code GH100}. */
    private static final Pattern NVIDIA_CHIP = Pattern.compile("^(GK|GM|GP|GV|TU|GA|AD|GH|GB)(\\d{3}|10B)");

    /** A memory size in a product name: "80GB", "16 GB", "-16GB". */
    private static final Pattern SIZE_IN_NAME = Pattern.compile("(?i)(?:^|[\\s-])(\\d{1,3})\\s?GB\\b");

    private final Tables tables;
    /** One judgement per kind of AMD card in this pass (see {@link #amdProduct}). */
    private final java.util.Map<AmdKind, AmdJudgement> amdJudgements = new java.util.HashMap<>();
    /** Cut names judged in this pass, by name and size: eight cards of one kind are judged, and told of, once. */
    private final Map<CutNameKind, Optional<String>> cutNameModels = new java.util.HashMap<>();
    /** Names that list several products (pci.ids' brackets), judged once per name, size and CU count in this pass. */
    private final Map<ListKind, Optional<String>> listModels = new java.util.HashMap<>();
    /** Generic AMD names (architecture and device id) whose products were told of in this pass. */
    private final java.util.Set<GenericKind> genericKinds = new java.util.HashSet<>();
    /** Kinds of AMD card whose CU-decided model was told of in this pass: eight cards, one note. */
    private final java.util.Set<AmdKind> toldKinds = new java.util.HashSet<>();
    /** Board names judged against their device id in this pass (see {@link #idProductOverBoardName}). */
    private final Map<BoardNameKind, Optional<String>> boardNameModels = new java.util.HashMap<>();

    /**
     * The keys of the judgements above: one kind of card, as the judgement reads it. Each writes its own equals and
     * hashCode: a record's generated ones are bootstrapped through java.lang.runtime.ObjectMethods at their first
     * call, which spins some thirty method-handle classes that no class-data archive keeps, at every start that
     * names an AMD card (docs/performance.md, row "normaliser's keys without ObjectMethods").
     */
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

    private record AmdKind(String deviceId, String pciRevision, Integer memoryGi, String architecture,
                           Integer computeUnits, List<String> named) {
        AmdKind {
            named = List.copyOf(named);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof AmdKind k && Objects.equals(deviceId, k.deviceId) && Objects.equals(pciRevision, k.pciRevision)
                    && Objects.equals(memoryGi, k.memoryGi) && Objects.equals(architecture, k.architecture)
                    && Objects.equals(computeUnits, k.computeUnits) && named.equals(k.named);
        }

        @Override
        public int hashCode() {
            int h = Objects.hashCode(deviceId);
            h = h * 31 + Objects.hashCode(pciRevision);
            h = h * 31 + Objects.hashCode(memoryGi);
            h = h * 31 + Objects.hashCode(architecture);
            h = h * 31 + Objects.hashCode(computeUnits);
            return h * 31 + named.hashCode();
        }
    }

    public Normaliser(Tables tables) {
        this.tables = tables;
    }

    /** Normalises one GPU; what a person should know about a judgement made here goes to {@code diagnostics}. */
    public Gpu normalise(Gpu gpu, List<Diagnostic> diagnostics) {
        Gpu.Builder b = gpu.toBuilder("derived");
        String vendorId = gpu.pciVendorId();
        Vendor vendor = gpu.vendor();
        if ((vendor == null || vendor == Vendor.OTHER) && vendorId != null) {
            vendor = Vendor.fromPciVendorId(vendorId);
            b.vendor(vendor);
        }
        if (vendor == null) {
            vendor = Vendor.fromName(gpu.name());
            b.vendor(vendor);
        }
        if (vendorId == null && vendor.pciVendorId() != null) {
            vendorId = vendor.pciVendorId();
            b.pciVendorId(vendorId);
        }

        String name = gpu.name();
        String architecture = gpu.architecture();
        String cleaned = ModelSlug.withoutDriverDetails(name);
        if (cleaned != null && !cleaned.equals(name)) {
            // An OpenCL driver's details ("(radeonsi, gfx1151, LLVM 19.1.7, DRM 3.63, ...)") name no product; the
            // gfx target among them still names the chip, where the rest of the name is generic.
            String gfx = ModelSlug.gfxTargetInDriverDetails(name);
            name = cleaned;
            b.name(name);
            if (architecture == null && gfx != null) {
                architecture = gfx;
                b.architecture(gfx);
            }
        }
        boolean genericAmdName = name != null && GENERIC_AMD_NAME.matcher(name.strip()).matches();
        String resolvedAmdModel = null;
        // A name that lists products ("AMD Instinct MI50/MI60") is no one product's name, however it is spelled.
        ProductList nameList = name == null ? new ProductList(null, List.of()) : ProductList.parse(name);
        List<String> namedProducts = nameList.products();
        boolean amdMarketingName = name != null && AMD_MARKETING_NAME.matcher(name).find() && !name.contains(" / ")
                && !genericAmdName && namedProducts.size() <= 1;
        if (vendor == Vendor.AMD && gpu.pciDeviceId() != null && !amdMarketingName) {
            // A chip code name ("Navi 22 [Radeon RX 6700/6700 XT / 6800M]", "Vega 20"), a placeholder, or a name
            // listing several products: libdrm's table names the product by id and revision, then by VRAM.
            // libdrm's names list the products of one id and revision ("AMD Instinct MI60 / MI50" is 66A1 rev 02, not
            // the Pro VII of rev 06): they narrow the id's products. pci.ids' lists ("Navi 22 [Radeon RX 6700/6700 XT
            // / 6800M]") leave some of an id's products out, so they narrow nothing.
            List<String> named = namedProducts.size() > 1 && nameList.chip() == null ? namedProducts : List.of();
            AmdProduct product = amdProduct(gpu, architecture, named, diagnostics);
            if (product.name() != null) {
                name = product.name();
                b.as("amdgpu.ids").name(name).as("derived");
            }
            resolvedAmdModel = product.model();
        }
        // The name a slug is made from where it differs from the name shown (a laptop part named from pci.ids).
        String slugName = null;
        if (name == null || PLACEHOLDER_NAME.matcher(name.strip()).matches() || isTruncated(name)) {
            Optional<String> named = tableName(vendor, vendorId, gpu.pciDeviceId(), gpu.pciRevision());
            if (named.isPresent()) {
                name = named.get();
                if (vendor == Vendor.NVIDIA) {
                    slugName = tables.pciIds().device(vendorId, gpu.pciDeviceId())
                            .map(entry -> nameBeforeLaptopGpu(entry, named.get())).orElse(null);
                }
                b.as(vendor == Vendor.AMD && tables.amdGpuIds().name(gpu.pciDeviceId(), gpu.pciRevision()).isPresent()
                        ? "amdgpu.ids" : "pci.ids").name(name).as("derived");
            }
        }

        boolean emulated = vendorId != null && (EMULATED_VENDORS.contains(vendorId)
                || EMULATED_DEVICES.contains(vendorId + ":" + gpu.pciDeviceId()));
        if (emulated && gpu.emulated() == null) {
            b.emulated(true);
        }
        if (emulated && name == null) {
            // QEMU's standard VGA (1234:1111) is not in pci.ids; a person still wants to see what it is.
            b.name("1234".equals(vendorId) ? "QEMU/Bochs standard VGA" : "emulated display adapter " + vendorId + ":" + gpu.pciDeviceId());
        }

        Optional<AkashGpus.Entry> akash = tables.akash().lookup(vendorId, gpu.pciDeviceId(), gpu.pciSubsystemDeviceId());
        String model = gpu.model();
        if (model == null && resolvedAmdModel != null) {
            model = resolvedAmdModel;
            b.model(model);
        }
        if (model == null && vendor == Vendor.AMD && akash.isPresent() && name != null
                && AMD_MARKETING_NAME.matcher(name).find() && tables.amdGpuIds().namesSeveralProducts(gpu.pciDeviceId())) {
            // Akash keys by device id alone; AMD sells one id as several products (66a1: MI50, MI60, Radeon
            // Pro VII), so a tool's exact marketing name tells the model better than the table.
            model = ModelSlug.fromName(name);
            b.model(model);
        }
        if (model == null && akash.isEmpty() && name != null && name.strip().endsWith("...") && gpu.pciDeviceId() == null
                && vendorId != null) {
            CutNameKind kind = new CutNameKind(name, gpu.memoryMiB());
            Optional<String> judged = cutNameModels.get(kind);
            if (judged == null) {
                judged = Optional.ofNullable(cutNameModel(vendor, vendorId, name, gpu.memoryMiB(),
                        gpu.sources() == null ? null : gpu.sources().get("name"), diagnostics));
                cutNameModels.put(kind, judged);
            }
            model = judged.orElse(null);
            if (model != null) {
                b.as("pci.ids").model(model).as("derived");
            }
        }
        if (model == null && akash.isPresent() && akash.get().model() != null) {
            model = akash.get().model();
            b.as("akash-gpus").model(model).as("derived");
        } else if (model == null && !isTruncated(name) && !(name != null && PLACEHOLDER_NAME.matcher(name.strip()).matches())) {
            // "Graphics Device" that no table could name: a slug from it ("device") would be a wrong model.
            Integer gi = gpu.memoryGi() != null ? gpu.memoryGi() : gpu.memoryMiB() == null ? null : MemorySize.gi(gpu.memoryMiB(), null);
            ProductList list = ProductList.parse(slugName != null ? slugName : name);
            if ((vendor == Vendor.NVIDIA || vendor == Vendor.AMD) && list.isList()) {
                // "Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]": a chip and a list, never one slug run together.
                ListKind kind = new ListKind(name, gi, gpu.computeUnits());
                Optional<String> judged = listModels.get(kind);
                if (judged == null) {
                    judged = Optional.ofNullable(listModel(vendor, name, list, gi, gpu, diagnostics));
                    listModels.put(kind, judged);
                }
                model = judged.orElse(null);
            } else if (vendor == Vendor.AMD && name != null && GENERIC_AMD_NAME.matcher(name.strip()).matches()
                    && genericChip(architecture, gpu) != null) {
                // Still generic after the tables had their say (they may have named the product from the ids).
                model = genericAmdModel(name, architecture, gpu, diagnostics);
            } else {
                model = ModelSlug.forProduct(vendor, slugName != null ? slugName : name);
                if (vendor == Vendor.AMD && gpu.pciDeviceId() != null && model != null) {
                    model = idProductOverBoardName(name, model, gpu, diagnostics);
                }
            }
            if (model != null) {
                b.model(model);
            }
        }

        Integer tableGi = akash.map(AkashGpus.Entry::memoryGi).orElse(null);
        if (gpu.memoryGi() == null && !Boolean.TRUE.equals(gpu.sharedMemory())) {
            Integer statedGi = vendor == Vendor.NVIDIA ? memoryStatedInName(name) : null;
            if (gpu.memoryMiB() != null) {
                b.memoryGi(MemorySize.gi(gpu.memoryMiB(), tableGi));
            } else if (tableGi != null) {
                b.as("akash-gpus").memoryGi(tableGi).as("derived");
            } else if (statedGi != null) {
                // "NVIDIA H100 80GB HBM3" from nvidia-smi -L: NVIDIA's names state the size they are sold with.
                b.memoryGi(statedGi);
            }
        }

        if (gpu.interfaceType() == null) {
            interfaceFromEvidence(gpu, vendor, vendorId, model, akash, b);
        }

        if (gpu.computeCapability() == null && vendor == Vendor.NVIDIA) {
            Optional<String> entry = gpu.pciDeviceId() == null ? Optional.empty()
                    : tables.pciIds().device(vendorId, gpu.pciDeviceId());
            String cc = entry.map(Normaliser::nvidiaComputeCapabilityFromChip).orElse(null);
            if (entry.isEmpty() && name != null) {
                // Some recordings (and some VMs) show no real device id; the product name still finds the
                // chip, when every pci.ids entry of that name is one compute capability.
                Set<String> byName = new java.util.TreeSet<>();
                for (String e : tables.pciIds().devicesNamed(Vendor.NVIDIA.pciVendorId(),
                        name.strip().replaceFirst("(?i)^nvidia\\s+", ""))) {
                    byName.add(String.valueOf(nvidiaComputeCapabilityFromChip(e)));
                }
                cc = byName.size() == 1 && !byName.contains("null") ? byName.iterator().next() : null;
            }
            if (cc == null && name != null && GB10_NAME.matcher(name.strip()).find()) {
                // A GB10 is not in the shipped pci.ids; by name it is one product, 12.1 in CUDA's table.
                b.computeCapability("12.1");
            } else if (cc != null) {
                b.as("pci.ids").computeCapability(cc).as("derived");
            } else if (entry.isEmpty() && "Blackwell".equalsIgnoreCase(gpu.architecture()) && name != null
                    && name.matches("(?i).*\\bRTX\\b.*")) {
                // A card newer than the shipped pci.ids: every RTX-branded Blackwell (GeForce RTX 50, RTX PRO)
                // is a GB20x chip, 12.0 in CUDA's table; the data-centre B100/B200 (10.0) carry no RTX.
                b.computeCapability("12.0");
            }
        }
        if (gpu.architecture() == null && gpu.computeCapability() != null) {
            b.architecture(nvidiaArchitecture(gpu.computeCapability()));
        } else if (gpu.architecture() == null && vendor == Vendor.NVIDIA && gpu.pciDeviceId() != null) {
            tables.pciIds().device(vendorId, gpu.pciDeviceId()).map(Normaliser::nvidiaArchitectureFromChip)
                    .ifPresent(arch -> b.as("pci.ids").architecture(arch).as("derived"));
        }
        return b.build();
    }

    /**
     * The interface where something says it, else none: the Akash table by PCI ids, shared memory (an integrated
     * GPU), a name that states SXM or PCIe as the tool printed it or as pci.ids lists the device ("GH100 [H100
     * SXM5 80GB]", NVIDIA only: AMD's entries never state the form), or a product line sold only as OAM
     * modules. Nothing else: an H100 is sold as SXM, PCIe and NVL boards under one product name ("NVIDIA H100
     * 80GB HBM3" is an SXM5 module), and every form, SXM included, sits on the PCI bus, so neither a name nor
     * a PCI function tells a card from a module.
     */
    private void interfaceFromEvidence(Gpu gpu, Vendor vendor, String vendorId, String model,
                                       Optional<AkashGpus.Entry> akash, Gpu.Builder b) {
        if (akash.isPresent() && akash.get().interfaceType() != null) {
            b.as("akash-gpus").interfaceType(akash.get().interfaceType()).as("derived");
            return;
        }
        if (Boolean.TRUE.equals(gpu.sharedMemory())) {
            b.interfaceType(GpuInterface.INTEGRATED);
            return;
        }
        GpuInterface stated = formInName(gpu.name());
        if (stated != null) {
            b.interfaceType(stated);
            return;
        }
        if (vendor == Vendor.NVIDIA && gpu.pciDeviceId() != null) {
            GpuInterface listed = tables.pciIds().device(vendorId, gpu.pciDeviceId()).map(Normaliser::formInName).orElse(null);
            if (listed != null) {
                b.as("pci.ids").interfaceType(listed).as("derived");
                return;
            }
        }
        if (model != null && vendor == Vendor.AMD && OAM_MODELS.matcher(model).matches()) {
            b.interfaceType(GpuInterface.OAM);
        }
    }

    /** The laptop words pci.ids puts after a product: "Mobile", "Max-Q", "Mobile / Max-Q", "Max-Q / Mobile". */
    private static final Pattern LAPTOP_WORDS = Pattern.compile("(?i)\\s+(?:mobile|max-q)(?:\\s*/\\s*(?:mobile|max-q))?$");

    /**
     * The product name NVIDIA's driver gives a laptop part of a chip older than Ampere, or null where it is the
     * pci.ids name: until Ampere the driver printed a laptop GPU under its desktop name ("Quadro P2000", at most
     * "with Max-Q Design"), never "Laptop GPU", and Akash's table names those ids so (GP107GLM [Quadro P2000
     * Mobile] is p2000, TU117M [GeForce GTX 1650 Ti Mobile] gtx1650ti), where an Ampere or later laptop part is
     * its own model (GA106M [GeForce RTX 3060 Mobile / Max-Q] is rtx3060m).
     */
    static String nameBeforeLaptopGpu(String pciIdsEntry, String product) {
        java.util.regex.Matcher chip = NVIDIA_CHIP.matcher(pciIdsEntry);
        if (!chip.find() || !LAPTOP_WORDS.matcher(product).find()) {
            return null;
        }
        NvidiaArchitecture arch = NvidiaArchitecture.ofChipPrefix(chip.group(1)).orElse(null);
        if (arch == null || arch.compareTo(NvidiaArchitecture.AMPERE) >= 0) {
            return null;
        }
        return LAPTOP_WORDS.matcher(product).replaceFirst("");
    }

    /**
     * The name nvidia-smi prints for a pci.ids product: "NVIDIA " and the product, where pci.ids' "Max-Q" and
     * "Mobile" are the driver's "Laptop GPU" (pci.ids: "GeForce RTX 4070 Max-Q / Mobile", the driver: "NVIDIA
     * GeForce RTX 4070 Laptop GPU"), so that its length can be set against the width the table cut the name at.
     */
    static String printedName(String pciIdsProduct) {
        String n = pciIdsProduct.strip().replaceFirst("(?i)\\s+(max-q|mobile)$", " Laptop GPU");
        return n.regionMatches(true, 0, "NVIDIA ", 0, 7) ? n : "NVIDIA " + n;
    }

    /**
     * The model for a name that lists products ({@code Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]}, {@code AMD
     * Instinct MI60 / MI50}): the one product the list holds, or the one its memory (and, for AMD, compute units)
     * leaves; else the chip family, told in a warning naming the products, and no model where the name names no
     * chip. Never the list run together.
     */
    private String listModel(Vendor vendor, String name, ProductList list, Integer gi, Gpu gpu, List<Diagnostic> diagnostics) {
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
        String chip = list.chip() == null ? null : chipFamily(list.chip());
        String family = chip == null ? null : ModelSlug.fromName(chip);
        diagnostics.add(Diagnostic.warning(probe, "derived", null, "'" + name + "' names several products ("
                + String.join(", ", bySlug.values()) + ")"
                + (gi == null ? "; no VRAM size to tell them apart" : fitting.isEmpty() ? "; none is sold with " + gi + " GB"
                        : "; " + gi + " GB leaves " + fitting.size())
                + (family == null ? ": model left unknown" : ": model is the chip family '" + family + "'")
                + (gpu.pciAddress() == null ? "" : " (GPU at " + gpu.pciAddress() + ")")));
        return family;
    }

    /**
     * The model of an AMD GPU named only "AMD Radeon Graphics" whose gfx target is known (rusticl prints it among
     * its driver details): the chip family ({@code strixhalo} for gfx1151), with a warning naming the products
     * sold on that chip where the tables list them by the chip's device id.
     */
    private String genericAmdModel(String name, String architecture, Gpu gpu, List<Diagnostic> diagnostics) {
        String family = genericChip(architecture, gpu);
        String model = ModelSlug.fromName(family);
        if (!genericKinds.add(new GenericKind(architecture, gpu.pciDeviceId()))) {
            return model;
        }
        String device = gpu.pciDeviceId() != null ? gpu.pciDeviceId() : integratedDeviceOfGfx(architecture);
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
    private String genericChip(String architecture, Gpu gpu) {
        if (gpu.pciDeviceId() != null) {
            String chip = tables.pciIds().device("1002", gpu.pciDeviceId()).map(Normaliser::chipFamily).orElse(null);
            if (chip != null) {
                return chip;
            }
        }
        return chipFamilyOfGfx(architecture);
    }

    /**
     * The model an AMD card's device id gives where its board's name names no product: rocm-smi prints the board
     * string ({@code AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2}) as the card series, and "MI200" is a series, where
     * device 0x7408 is one product, the MI250X. The id wins only when the tables name exactly one product for it and
     * no product anywhere in amdgpu.ids has the board name's slug; a board name that is a product stays the model.
     */
    private String idProductOverBoardName(String name, String nameModel, Gpu gpu, List<Diagnostic> diagnostics) {
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

    /** {@code sxm} or {@code pcie} where the name states it, else null. */
    static GpuInterface formInName(String name) {
        if (name == null) {
            return null;
        }
        if (SXM_IN_NAME.matcher(name).find()) {
            return GpuInterface.SXM;
        }
        return PCIE_IN_NAME.matcher(name).find() ? GpuInterface.PCIE : null;
    }

    /**
     * The model of a card whose name the tool cut short ({@code NVIDIA RTX 6000 Ada Gene...}) and whose device id
     * it did not print: the products whose pci.ids name starts with what is left, less those whose size in
     * Akash's table differs from the card's. One product left is the model; otherwise the model stays unknown
     * and a note says which products the cut name fits.
     */
    private String cutNameModel(Vendor vendor, String vendorId, String name, Long memoryMiB, String probe,
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
            if (vendor == Vendor.NVIDIA && printedName(c.getValue()).length() <= printed) {
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

    /**
     * The plain nvidia-smi table cuts long names to fit ({@code NVIDIA GeForce RTX 2080 ...}): such a name
     * is replaced from pci.ids where the ids are known, and never gives a model by the slug rules, which would
     * be wrong ({@code rtx2080} for a 2080 SUPER); {@link #cutNameModel} finds one only when a single product
     * fits. The same holds for names cut or cleaned by FieldLimits.
     */
    static boolean isTruncated(String name) {
        // U+FFFD marks bytes that were not text or control characters removed (FieldLimits): a damaged
        // name is no better than a cut one for a model ("a10g0owned" from an escape sequence).
        return name != null && (name.strip().endsWith("...") || name.indexOf('\uFFFD') >= 0);
    }

    /** An AMD product as far as the ids, revision and VRAM tell it: a name, or a chip family as the model. */
    private record AmdProduct(String name, String model) {
    }

    /**
     * AMD's product from libdrm's table: by device id and revision; when that leaves several (no revision
     * printed, or one entry naming several), by the VRAM each is sold with; when still several, the chip
     * family from pci.ids ({@code vega20}) is the model and the candidates go into a diagnostic: a guess
     * between them would pay a provider for the wrong card, and their names run together are no model.
     */
    private AmdProduct amdProduct(Gpu gpu, String architecture, List<String> named, List<Diagnostic> diagnostics) {
        String deviceId = gpu.pciDeviceId();
        // An iGPU's memory is the host's, no size AMD sells a product with.
        Integer gi = Boolean.TRUE.equals(gpu.sharedMemory()) ? null : gpu.memoryGi() != null ? gpu.memoryGi()
                : gpu.memoryMiB() == null ? null : MemorySize.gi(gpu.memoryMiB(), null);
        // Eight cards of one kind are one judgement: names are slugged and tables read once per kind, not per card.
        AmdKind kind = new AmdKind(deviceId, gpu.pciRevision(), gi, architecture, gpu.computeUnits(), named);
        AmdJudgement judgement = amdJudgements.get(kind);
        if (judgement == null) {
            judgement = judgeAmd(deviceId, gpu.pciRevision(), gi, architecture, gpu.computeUnits(), named);
            amdJudgements.put(kind, judgement);
        }
        if (judgement.product() != null) {
            if (judgement.product().name() == null && judgement.product().model() != null && toldKinds.add(kind)) {
                // Decided by what the name does not say (the compute units): told once per kind of card.
                String probe = gpu.sources() == null ? null : gpu.sources().get("pciDeviceId");
                diagnostics.add(Diagnostic.info(probe, "amdgpu.ids", "1002:" + deviceId.toLowerCase(Locale.ROOT).replaceFirst("^0x", "")
                        + " is sold as " + String.join(", ", judgement.candidates()) + "; " + (gi == null ? "" : gi + " GB and ")
                        + gpu.computeUnits() + " compute units leave only " + String.join(", ", judgement.fitting())
                        + ": model " + judgement.product().model()));
            }
            return judgement.product();
        }
        List<String> candidates = judgement.candidates();
        List<String> fitting = judgement.fitting();
        String familyModel = judgement.familyModel();
        String lower = deviceId.toLowerCase(Locale.ROOT);
        String id = "1002:" + (lower.startsWith("0x") ? lower.substring(2) : lower);
        // Told under the probe that printed the id: the judgement is about what that probe saw.
        String probe = gpu.sources() == null ? null : gpu.sources().get("pciDeviceId");
        diagnostics.add(Diagnostic.warning(probe, "amdgpu.ids", null, id
                + (gpu.pciRevision() == null ? " (no revision printed)" : " revision " + gpu.pciRevision())
                + " is sold as " + String.join(", ", candidates)
                + (gi == null ? "; no VRAM size to tell them apart" : fitting.isEmpty()
                        ? "; none is sold with " + gi + " GB"
                        : "; " + gi + " GB of VRAM leaves " + String.join(", ", fitting))
                + (gpu.computeUnits() == null || fitting.isEmpty() ? "" : " (" + gpu.computeUnits() + " compute units)")
                + (familyModel == null ? ": model left unknown" : ": model is the chip family '" + familyModel + "'")
                + (gpu.pciAddress() == null ? "" : " (GPU at " + gpu.pciAddress() + ")")));
        return new AmdProduct(null, familyModel);
    }

    /**
     * The chip of an AMD architecture as ROCm names it ({@code gfx906} is Vega 20), named as pci.ids names it, so
     * that a card whose tool printed its gfx id needs no pci.ids (docs/performance.md: reading it was a third of
     * a replay). From AMD's LLVM processor table (AMDGPUUsage); null for an id not listed here.
     */
    static String chipFamilyOfGfx(String architecture) {
        if (architecture == null) {
            return null;
        }
        return switch (architecture.strip().toLowerCase(Locale.ROOT)) {
            case "gfx900" -> "Vega 10";
            case "gfx904" -> "Vega 12";
            case "gfx906" -> "Vega 20";
            case "gfx908" -> "Arcturus";
            case "gfx90a" -> "Aldebaran";
            case "gfx1010" -> "Navi 10";
            case "gfx1011" -> "Navi 12";
            case "gfx1012" -> "Navi 14";
            case "gfx1030" -> "Navi 21";
            case "gfx1031" -> "Navi 22";
            case "gfx1032" -> "Navi 23";
            case "gfx1034" -> "Navi 24";
            case "gfx1100" -> "Navi 31";
            case "gfx1101" -> "Navi 32";
            case "gfx1102" -> "Navi 33";
            case "gfx1200" -> "Navi 44";
            case "gfx1201" -> "Navi 48";
            // Integrated GPUs, named for the APU as pci.ids names their ids.
            case "gfx1035" -> "Rembrandt";
            case "gfx1036" -> "Raphael";
            case "gfx1103" -> "Phoenix";
            case "gfx1150" -> "Strix";
            case "gfx1151" -> "Strix Halo";
            default -> null;
        };
    }

    /**
     * The one PCI device id of an integrated GPU's gfx target, where it has one (gfx1151: 1586, Strix Halo), so
     * that the products sold on it can be named; null where a target spans several ids (gfx1103: Phoenix 1 and 2,
     * Hawk Point).
     */
    static String integratedDeviceOfGfx(String architecture) {
        if (architecture == null) {
            return null;
        }
        return switch (architecture.strip().toLowerCase(Locale.ROOT)) {
            case "gfx1150" -> "150e";
            case "gfx1151" -> "1586";
            default -> null;
        };
    }

    /**
     * What the tables say of one kind of AMD card: its product when they name one ({@code product}), else the
     * candidates, those its VRAM leaves, and the chip family's model.
     */
    private record AmdJudgement(AmdProduct product, List<String> candidates, List<String> fitting, String familyModel) {
    }

    private AmdJudgement judgeAmd(String deviceId, String revision, Integer gi, String architecture, Integer computeUnits,
                                  List<String> named) {
        List<String> candidates = tables.amdGpuIds().candidates(deviceId, revision);
        if (!named.isEmpty()) {
            // The tool named the products ("AMD Instinct MI60 / MI50", libdrm's name for 66A1 revision 02): of the
            // id's products, those it named, where it named some of them.
            java.util.Set<String> namedSlugs = new java.util.HashSet<>();
            for (String n : named) {
                namedSlugs.add(ModelSlug.fromName(n));
            }
            List<String> kept = new ArrayList<>();
            for (String c : candidates) {
                if (namedSlugs.contains(ModelSlug.fromName(c))) {
                    kept.add(c);
                }
            }
            if (!kept.isEmpty()) {
                candidates = kept;
            }
        }
        if (candidates.isEmpty()) {
            return new AmdJudgement(new AmdProduct(null, null), candidates, List.of(), null);
        }
        if (candidates.size() == 1) {
            return new AmdJudgement(new AmdProduct(candidates.get(0), null), candidates, candidates, null);
        }
        // A loop, as in the rest of the detection core (docs/performance.md, "detection core without streams").
        List<String> fitting = new ArrayList<>();
        for (String candidate : candidates) {
            if (gi == null || AmdProductMemory.maySell(ModelSlug.fromName(candidate), gi)) {
                fitting.add(candidate);
            }
        }
        if (fitting.size() == 1) {
            return new AmdJudgement(new AmdProduct(fitting.get(0), ModelSlug.fromName(fitting.get(0))), candidates,
                    fitting, null);
        }
        if (computeUnits != null && fitting.size() > 1) {
            // The compute units tell apart what the memory cannot: 66A1 with 32 GB is an MI50 (60) or an MI60 (64).
            // The model only: the name stays as the tool printed it, which AMD's own labeller publishes.
            List<String> byUnits = new ArrayList<>();
            for (String candidate : fitting) {
                if (AmdComputeUnits.mayHave(ModelSlug.fromName(candidate), computeUnits)) {
                    byUnits.add(candidate);
                }
            }
            if (byUnits.size() == 1) {
                return new AmdJudgement(new AmdProduct(null, ModelSlug.fromName(byUnits.get(0))), candidates, byUnits, null);
            }
            if (!byUnits.isEmpty()) {
                fitting = byUnits;
            }
        }
        String family = chipFamilyOfGfx(architecture);
        if (family == null) {
            family = tables.pciIds().device("1002", deviceId).map(Normaliser::chipFamily).orElse(null);
        }
        return new AmdJudgement(null, candidates, fitting, family == null ? null : ModelSlug.fromName(family));
    }

    /** "Vega 20 [Radeon Pro VII/Radeon Instinct MI50 32GB]" is chip Vega 20; "Aldebaran/MI200 [...]" is Aldebaran. */
    static String chipFamily(String pciIdsEntry) {
        String chip = pciIdsEntry;
        int bracket = chip.indexOf('[');
        if (bracket >= 0) {
            chip = chip.substring(0, bracket);
        }
        int slash = chip.indexOf('/');
        if (slash >= 0) {
            chip = chip.substring(0, slash);
        }
        chip = chip.strip();
        return chip.isEmpty() ? null : chip;
    }

    /** The size an NVIDIA product name states ("H100 80GB HBM3": 80), or null. */
    static Integer memoryStatedInName(String name) {
        if (name == null) {
            return null;
        }
        java.util.regex.Matcher m = SIZE_IN_NAME.matcher(name);
        return m.find() ? Integer.valueOf(m.group(1)) : null;
    }

    private Optional<String> tableName(Vendor vendor, String vendorId, String deviceId, String revision) {
        if (vendor == Vendor.AMD) {
            Optional<String> amd = tables.amdGpuIds().name(deviceId, revision);
            if (amd.isPresent()) {
                return amd;
            }
        }
        return tables.pciIds().productName(vendorId, deviceId);
    }

    /**
     * NVIDIA's architecture from the chip code that starts its pci.ids entry ({@code TU102 [GeForce RTX
     * 2080 Ti]}): old nvidia-smi schemas print no architecture, but every chip name says it.
     */
    static String nvidiaArchitectureFromChip(String pciIdsEntry) {
        java.util.regex.Matcher m = NVIDIA_CHIP.matcher(pciIdsEntry);
        if (!m.find()) {
            return null;
        }
        return NvidiaArchitecture.ofChipPrefix(m.group(1)).map(NvidiaArchitecture::printed).orElse(null);
    }

    /**
     * The CUDA compute capability of the chip that starts an NVIDIA pci.ids entry ({@code GA102GL [RTX A5000]}
     * is 8.6), as CUDA's own tables give it per chip (CUDA C Programming Guide, "Compute Capabilities"; NVIDIA's
     * CUDA GPUs list). nvidia-smi's XML and older NVML schemas print no compute capability, but GFD labels
     * it, and every chip has exactly one. Null for a chip not listed here (a new one) rather than a guess.
     */
    static String nvidiaComputeCapabilityFromChip(String pciIdsEntry) {
        if (GB10_NAME.matcher(pciIdsEntry).find()) {
            // GB10 (DGX Spark): whatever chip code a pci.ids gives it ("GB10B", a GB20x-style one), CUDA says 12.1.
            return "12.1";
        }
        java.util.regex.Matcher m = NVIDIA_CHIP.matcher(pciIdsEntry);
        if (!m.find()) {
            return null;
        }
        String chip = m.group();
        String family = m.group(1);
        return switch (family) {
            // GK110 and GK208 (and their B steppings) are 3.5, GK210 (Tesla K80) 3.7, the rest of Kepler 3.0.
            case "GK" -> chip.equals("GK110") || chip.equals("GK208") ? "3.5" : chip.equals("GK210") ? "3.7" : "3.0";
            case "GM" -> chip.startsWith("GM10") ? "5.0" : "5.2";
            case "GP" -> chip.equals("GP100") ? "6.0" : "6.1";
            case "GV" -> chip.equals("GV100") ? "7.0" : null;
            case "TU" -> "7.5";
            case "GA" -> chip.equals("GA100") ? "8.0" : "8.6";
            case "AD" -> "8.9";
            case "GH" -> chip.equals("GH100") ? "9.0" : null;
            // Blackwell has two lines: data-centre GB100/GB102 (10.0) and the GB20x boards (12.0).
            case "GB" -> chip.equals("GB100") || chip.equals("GB102") ? "10.0" : chip.startsWith("GB20") ? "12.0" : null;
            default -> null;
        };
    }

    /** NVIDIA's architecture from the compute capability, by {@link NvidiaArchitecture}. */
    static String nvidiaArchitecture(String computeCapability) {
        return NvidiaArchitecture.ofComputeCapability(computeCapability).map(NvidiaArchitecture::printed).orElse(null);
    }
}
