package io.gpudetect.model;

import java.util.Optional;

/**
 * NVIDIA's GPU architectures: the one table every other place reads them from. Each names the architecture as
 * nvidia-smi prints it ({@link #printed}), as GPU Feature Discovery labels its family ({@link #gfdFamily}), the
 * {@code nvmlDeviceArchitecture_t} value NVML gives it (nvml.h), the chip-code prefix pci.ids starts its chips with
 * ({@code GH} in {@code GH100 [H100 SXM5 80GB]}) and the CUDA compute capabilities it spans.
 */
public enum NvidiaArchitecture {
    TESLA("Tesla", 0, null, 100, 199),
    FERMI("Fermi", 0, null, 200, 299),
    KEPLER("Kepler", 2, "GK", 300, 399),
    MAXWELL("Maxwell", 3, "GM", 500, 599),
    PASCAL("Pascal", 4, "GP", 600, 699),
    VOLTA("Volta", 5, "GV", 700, 704),
    TURING("Turing", 6, "TU", 705, 799),
    AMPERE("Ampere", 7, "GA", 800, 808),
    ADA_LOVELACE("Ada Lovelace", 8, "AD", 809, 899),
    HOPPER("Hopper", 9, "GH", 900, 999),
    /** Data-centre 10.x, Thor 11.x (10.1 before CUDA 13), the GB20x boards 12.x. */
    BLACKWELL("Blackwell", 10, "GB", 1000, 1299),
    /** The Jetson Orin's own NVML value; by compute capability (8.7) it is an Ampere. */
    ORIN("Orin", 11, null, 1, 0),
    RUBIN("Rubin", 0, null, 1300, 1399);

    private final String printed;
    /** The {@code nvmlDeviceArchitecture_t} value; 0 for an architecture older or newer than NVML names. */
    private final int nvml;
    private final String chipPrefix;
    /** The compute capabilities spanned, as major * 100 + minor: 800 to 808 for 8.0 to 8.8; none when from > to. */
    private final int from;
    private final int to;

    NvidiaArchitecture(String printed, int nvml, String chipPrefix, int from, int to) {
        this.printed = printed;
        this.nvml = nvml;
        this.chipPrefix = chipPrefix;
        this.from = from;
        this.to = to;
    }

    /** The name nvidia-smi prints and the inventory's {@code architecture} holds: {@code Ada Lovelace}. */
    public String printed() {
        return printed;
    }

    /**
     * GPU Feature Discovery's {@code getArchFamily} name, the printed name in lower case with {@code -} for a space
     * ({@code ada-lovelace}); null for an NVML-only name with no compute capability of its own (Orin).
     */
    public String gfdFamily() {
        return from > to ? null : printed.toLowerCase(java.util.Locale.ROOT).replace(' ', '-');
    }

    /** The architecture of compute capability {@code major.minor}; empty for one no architecture here spans. */
    public static Optional<NvidiaArchitecture> ofComputeCapability(int major, int minor) {
        int cc = major * 100 + minor;
        for (NvidiaArchitecture a : values()) {
            if (minor >= 0 && minor < 100 && cc >= a.from && cc <= a.to) {
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
