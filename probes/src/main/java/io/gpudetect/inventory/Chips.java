package io.gpudetect.inventory;

import io.gpudetect.model.NvidiaArchitecture;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What a chip's name tells: the chip family of a pci.ids entry or of an AMD gfx target, and the architecture and
 * CUDA compute capability of an NVIDIA chip code. Pure functions over names; no table is read here.
 */
final class Chips {

    /** The chip code that starts an NVIDIA pci.ids entry: {@code TU102}, {@code GH100}. */
    static final Pattern NVIDIA_CHIP = Pattern.compile("^(GK|GM|GP|GV|TU|GA|AD|GH|GB)(\\d{3}|10B)");

    private Chips() {
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
        if (NameShapes.namesGb10(pciIdsEntry)) {
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
