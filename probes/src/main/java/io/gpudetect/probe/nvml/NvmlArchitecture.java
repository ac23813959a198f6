package io.gpudetect.probe.nvml;

/** {@code nvmlDeviceArchitecture_t} values (nvml.h) as the names nvidia-smi prints for them. */
final class NvmlArchitecture {

    private NvmlArchitecture() {
    }

    /** Null for {@code NVML_DEVICE_ARCH_UNKNOWN} and values newer than this list: the compute capability still tells. */
    static String name(long value) {
        return switch ((int) value) {
            case 2 -> "Kepler";
            case 3 -> "Maxwell";
            case 4 -> "Pascal";
            case 5 -> "Volta";
            case 6 -> "Turing";
            case 7 -> "Ampere";
            case 8 -> "Ada Lovelace";
            case 9 -> "Hopper";
            case 10 -> "Blackwell";
            case 11 -> "Orin";
            default -> null;
        };
    }
}
