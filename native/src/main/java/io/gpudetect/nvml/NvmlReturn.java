package io.gpudetect.nvml;

import java.util.Map;

/** {@code nvmlReturn_t}: the codes detection acts on, and every code's name as {@code nvml.h} spells it. */
public final class NvmlReturn {

    public static final int SUCCESS = 0;
    public static final int ERROR_UNINITIALIZED = 1;
    public static final int ERROR_NOT_SUPPORTED = 3;
    public static final int ERROR_NO_PERMISSION = 4;
    public static final int ERROR_NOT_FOUND = 6;
    public static final int ERROR_DRIVER_NOT_LOADED = 9;
    /** {@code nvmlEventSetWait} found no event within its timeout. */
    public static final int ERROR_TIMEOUT = 10;
    public static final int ERROR_LIBRARY_NOT_FOUND = 12;
    /** Also what we record when the loaded library does not export a symbol at all. */
    public static final int ERROR_FUNCTION_NOT_FOUND = 13;
    public static final int ERROR_GPU_IS_LOST = 15;
    public static final int ERROR_RESET_REQUIRED = 16;
    public static final int ERROR_LIB_RM_VERSION_MISMATCH = 18;
    public static final int ERROR_UNKNOWN = 999;

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(0, "NVML_SUCCESS"), Map.entry(1, "NVML_ERROR_UNINITIALIZED"),
            Map.entry(2, "NVML_ERROR_INVALID_ARGUMENT"), Map.entry(3, "NVML_ERROR_NOT_SUPPORTED"),
            Map.entry(4, "NVML_ERROR_NO_PERMISSION"), Map.entry(5, "NVML_ERROR_ALREADY_INITIALIZED"),
            Map.entry(6, "NVML_ERROR_NOT_FOUND"), Map.entry(7, "NVML_ERROR_INSUFFICIENT_SIZE"),
            Map.entry(8, "NVML_ERROR_INSUFFICIENT_POWER"), Map.entry(9, "NVML_ERROR_DRIVER_NOT_LOADED"),
            Map.entry(10, "NVML_ERROR_TIMEOUT"), Map.entry(11, "NVML_ERROR_IRQ_ISSUE"),
            Map.entry(12, "NVML_ERROR_LIBRARY_NOT_FOUND"), Map.entry(13, "NVML_ERROR_FUNCTION_NOT_FOUND"),
            Map.entry(14, "NVML_ERROR_CORRUPTED_INFOROM"), Map.entry(15, "NVML_ERROR_GPU_IS_LOST"),
            Map.entry(16, "NVML_ERROR_RESET_REQUIRED"), Map.entry(17, "NVML_ERROR_OPERATING_SYSTEM"),
            Map.entry(18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH"), Map.entry(19, "NVML_ERROR_IN_USE"),
            Map.entry(20, "NVML_ERROR_MEMORY"), Map.entry(21, "NVML_ERROR_NO_DATA"),
            Map.entry(22, "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED"), Map.entry(23, "NVML_ERROR_INSUFFICIENT_RESOURCES"),
            Map.entry(24, "NVML_ERROR_FREQ_NOT_SUPPORTED"), Map.entry(25, "NVML_ERROR_ARGUMENT_VERSION_MISMATCH"),
            Map.entry(26, "NVML_ERROR_DEPRECATED"), Map.entry(27, "NVML_ERROR_NOT_READY"),
            Map.entry(28, "NVML_ERROR_GPU_NOT_FOUND"), Map.entry(29, "NVML_ERROR_INVALID_STATE"),
            Map.entry(999, "NVML_ERROR_UNKNOWN"));

    private NvmlReturn() {
    }

    /** {@code NVML_ERROR_GPU_IS_LOST}, or {@code NVML_RETURN_<n>} for a code newer than this list. */
    public static String name(int code) {
        // Not getOrDefault: its default would be built at every call, and every NVML call names its code.
        String name = NAMES.get(code);
        return name != null ? name : "NVML_RETURN_" + code;
    }

    /** True for codes that mean the GPU itself is gone or wedged, not that a feature is missing. */
    public static boolean meansGpuLost(int code) {
        return code == ERROR_GPU_IS_LOST || code == ERROR_UNKNOWN || code == ERROR_RESET_REQUIRED;
    }
}
