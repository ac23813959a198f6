package io.gpudetect.inventory;

import io.gpudetect.model.GpuInterface;
import io.gpudetect.model.NvidiaArchitecture;
import java.util.regex.Pattern;

/**
 * What a tool's or a table's name says by its shape alone: a placeholder, a cut or damaged name, AMD's generic and
 * marketing names, the form (SXM, PCIe) and size a name states, and NVIDIA's laptop spellings. Pure functions the
 * naming rules share; no table is read here.
 */
final class NameShapes {

    private NameShapes() {
    }

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

    /** A name that states the form: "A100-SXM4-80GB", "Tesla V100-SXM2-16GB", "H100 PCIe", "A100-PCIE-40GB". */
    private static final Pattern SXM_IN_NAME = Pattern.compile("(?i)(?:^|[^a-z])sxm\\d*(?:[^a-z]|$)");
    private static final Pattern PCIE_IN_NAME = Pattern.compile("(?i)(?:^|[^a-z])pcie(?:[^a-z]|$)");

    /** A memory size in a product name: "80GB", "16 GB", "-16GB". */
    private static final Pattern SIZE_IN_NAME = Pattern.compile("(?i)(?:^|[\\s-])(\\d{1,3})\\s?GB\\b");

    /** The laptop words pci.ids puts after a product: "Mobile", "Max-Q", "Mobile / Max-Q", "Max-Q / Mobile". */
    private static final Pattern LAPTOP_WORDS = Pattern.compile("(?i)\\s+(?:mobile|max-q)(?:\\s*/\\s*(?:mobile|max-q))?$");

    /** A name a tool prints for a card it cannot name ({@link #PLACEHOLDER_NAME}). */
    static boolean isPlaceholder(String name) {
        return name != null && PLACEHOLDER_NAME.matcher(name.strip()).matches();
    }

    /** AMD's brand-only name for an integrated GPU ({@link #GENERIC_AMD_NAME}). */
    static boolean isGenericAmdName(String name) {
        return name != null && GENERIC_AMD_NAME.matcher(name.strip()).matches();
    }

    /** A name that names an AMD product line rather than a chip code or a pci.ids list ({@link #AMD_MARKETING_NAME}). */
    static boolean hasAmdMarketingWord(String name) {
        return name != null && AMD_MARKETING_NAME.matcher(name).find();
    }

    /** NVIDIA's GB10 by name: "NVIDIA GB10", "[GB10]". */
    static boolean namesGb10(String name) {
        return name != null && GB10_NAME.matcher(name).find();
    }

    /**
     * The plain nvidia-smi table cuts long names to fit ({@code NVIDIA GeForce RTX 2080 ...}): such a name
     * is replaced from pci.ids where the ids are known, and never gives a model by the slug rules, which would
     * be wrong ({@code rtx2080} for a 2080 SUPER); {@link ModelRules.FromCutName} finds one only when a single
     * product fits. The same holds for names cut or cleaned by FieldLimits.
     */
    static boolean isTruncated(String name) {
        // U+FFFD marks bytes that were not text or control characters removed (FieldLimits): a damaged
        // name is no better than a cut one for a model ("a10g0owned" from an escape sequence).
        return name != null && (name.strip().endsWith("...") || name.indexOf('\uFFFD') >= 0);
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

    /** The size an NVIDIA product name states ("H100 80GB HBM3": 80), or null. */
    static Integer memoryStatedInName(String name) {
        if (name == null) {
            return null;
        }
        java.util.regex.Matcher m = SIZE_IN_NAME.matcher(name);
        return m.find() ? Integer.valueOf(m.group(1)) : null;
    }

    /**
     * The product name NVIDIA's driver gives a laptop part of a chip older than Ampere, or null where it is the
     * pci.ids name: until Ampere the driver printed a laptop GPU under its desktop name ("Quadro P2000", at most
     * "with Max-Q Design"), never "Laptop GPU", and Akash's table names those ids so (GP107GLM [Quadro P2000
     * Mobile] is p2000, TU117M [GeForce GTX 1650 Ti Mobile] gtx1650ti), where an Ampere or later laptop part is
     * its own model (GA106M [GeForce RTX 3060 Mobile / Max-Q] is rtx3060m).
     */
    static String nameBeforeLaptopGpu(String pciIdsEntry, String product) {
        java.util.regex.Matcher chip = Chips.NVIDIA_CHIP.matcher(pciIdsEntry);
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
}
