package io.gpudetect.model;

import java.util.Optional;

/**
 * NVIDIA's GPU architectures: the one table every other place reads them from. Each names the architecture as
 * nvidia-smi prints it ({@link #printed}), as GPU Feature Discovery labels its family ({@link #gfdFamily}), the
 * {@code nvmlDeviceArchitecture_t} value NVML gives it (nvml.h), the chip-code prefix pci.ids starts its chips with
 * ({@code GH} in {@code GH100 [H100 SXM5 80GB]}) and the CUDA compute capabilities it spans.
 */
public enum NvidiaArchitecture {
    TESLA("Tesla", "tesla", 0, null, 1, 0, 1, 99),
    FERMI("Fermi", "fermi", 0, null, 2, 0, 2, 99),
    KEPLER("Kepler", "kepler", 2, "GK", 3, 0, 3, 99),
    MAXWELL("Maxwell", "maxwell", 3, "GM", 5, 0, 5, 99),
    PASCAL("Pascal", "pascal", 4, "GP", 6, 0, 6, 99),
    VOLTA("Volta", "volta", 5, "GV", 7, 0, 7, 4),
    TURING("Turing", "turing", 6, "TU", 7, 5, 7, 99),
    AMPERE("Ampere", "ampere", 7, "GA", 8, 0, 8, 8),
    ADA_LOVELACE("Ada Lovelace", "ada-lovelace", 8, "AD", 8, 9, 8, 99),
    HOPPER("Hopper", "hopper", 9, "GH", 9, 0, 9, 99),
    /** Data-centre 10.x, Thor 11.x (10.1 before CUDA 13), the GB20x boards 12.x. */
    BLACKWELL("Blackwell", "blackwell", 10, "GB", 10, 0, 12, 99),
    /** The Jetson Orin's own NVML value; by compute capability (8.7) it is an Ampere. */
    ORIN("Orin", null, 11, null, 0, 0, -1, 0),
    RUBIN("Rubin", "rubin", 0, null, 13, 0, 13, 99);

    private final String printed;
    private final String gfdFamily;
    private final int nvml;
    private final String chipPrefix;
    private final int fromMajor;
    private final int fromMinor;
    private final int toMajor;
    private final int toMinor;

    NvidiaArchitecture(String printed, String gfdFamily, int nvml, String chipPrefix, int fromMajor, int fromMinor,
                       int toMajor, int toMinor) {
        this.printed = printed;
        this.gfdFamily = gfdFamily;
        this.nvml = nvml;
        this.chipPrefix = chipPrefix;
        this.fromMajor = fromMajor;
        this.fromMinor = fromMinor;
        this.toMajor = toMajor;
        this.toMinor = toMinor;
    }

    /** The name nvidia-smi prints and the inventory's {@code architecture} holds: {@code Ada Lovelace}. */
    public String printed() {
        return printed;
    }

    /** GPU Feature Discovery's {@code getArchFamily} name ({@code ada-lovelace}); null where GFD has none. */
    public String gfdFamily() {
        return gfdFamily;
    }

    /** The architecture of compute capability {@code major.minor}; empty for one no architecture here spans. */
    public static Optional<NvidiaArchitecture> ofComputeCapability(int major, int minor) {
        for (NvidiaArchitecture a : values()) {
            boolean fromOk = major > a.fromMajor || (major == a.fromMajor && minor >= a.fromMinor);
            boolean toOk = major < a.toMajor || (major == a.toMajor && minor <= a.toMinor);
            if (fromOk && toOk) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    /** The architecture of compute capability text such as {@code 9.0}; empty when it is not one. */
    public static Optional<NvidiaArchitecture> ofComputeCapability(String text) {
        String[] parts = text.split("\\.");
        try {
            return ofComputeCapability(Integer.parseInt(parts[0]), parts.length > 1 ? Integer.parseInt(parts[1]) : 0);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The architecture NVML's {@code nvmlDeviceArchitecture_t} value names; empty for unknown and newer values. */
    public static Optional<NvidiaArchitecture> ofNvml(long value) {
        for (NvidiaArchitecture a : values()) {
            if (a.nvml != 0 && a.nvml == value) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    /** The architecture a pci.ids chip code starts with ({@code GA} of {@code GA102}); empty for another code. */
    public static Optional<NvidiaArchitecture> ofChipPrefix(String prefix) {
        for (NvidiaArchitecture a : values()) {
            if (prefix.equals(a.chipPrefix)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }
}
