package io.gpudetect.nvml;

import com.sun.jna.Library;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The calls of {@code libnvidia-ml.so.1} that detection needs, with the C names and signatures of
 * {@code nvml.h} so that the header is the specification. Every function returns an {@code nvmlReturn_t}
 * ({@link NvmlReturn}). Versioned symbols ({@code _v2}, {@code _v3}) are declared beside the older ones:
 * {@link NvmlLibrary} calls the newest that the loaded library exports. Unsigned C ints arrive as Java
 * ints; callers widen them with {@link Integer#toUnsignedLong}.
 *
 * <p>Never loaded eagerly: {@link NvmlLibrary#open} binds it to a library it found, so a host without
 * NVML costs a failed {@code dlopen}, not a class-initialisation error.
 */
public interface NvmlApi extends Library {

    /** {@code NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE}, also enough for the NVML version. */
    int SYSTEM_VERSION_BUFFER_SIZE = 80;
    /** {@code NVML_DEVICE_NAME_V2_BUFFER_SIZE}. */
    int DEVICE_NAME_BUFFER_SIZE = 96;
    /** {@code NVML_DEVICE_UUID_V2_BUFFER_SIZE}. */
    int DEVICE_UUID_BUFFER_SIZE = 96;
    /** {@code NVML_DEVICE_SERIAL_BUFFER_SIZE}. */
    int DEVICE_SERIAL_BUFFER_SIZE = 30;
    /** {@code NVML_DEVICE_PART_NUMBER_BUFFER_SIZE}. */
    int DEVICE_PART_NUMBER_BUFFER_SIZE = 80;
    /** {@code NVML_MEMORY_ERROR_TYPE_UNCORRECTED}. */
    int MEMORY_ERROR_TYPE_UNCORRECTED = 1;
    /** {@code NVML_AGGREGATE_ECC}: counted over the GPU's lifetime, kept in the infoROM. */
    int AGGREGATE_ECC = 1;

    int nvmlInit_v2();

    int nvmlInit();

    int nvmlShutdown();

    String nvmlErrorString(int result);

    int nvmlSystemGetDriverVersion(byte[] version, int length);

    int nvmlSystemGetNVMLVersion(byte[] version, int length);

    int nvmlSystemGetCudaDriverVersion_v2(IntByReference cudaDriverVersion);

    int nvmlSystemGetCudaDriverVersion(IntByReference cudaDriverVersion);

    int nvmlDeviceGetCount_v2(IntByReference deviceCount);

    int nvmlDeviceGetCount(IntByReference deviceCount);

    int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

    int nvmlDeviceGetHandleByIndex(int index, PointerByReference device);

    int nvmlDeviceGetName(NvmlDevice device, byte[] name, int length);

    int nvmlDeviceGetUUID(NvmlDevice device, byte[] uuid, int length);

    int nvmlDeviceGetSerial(NvmlDevice device, byte[] serial, int length);

    int nvmlDeviceGetBoardPartNumber(NvmlDevice device, byte[] partNumber, int length);

    int nvmlDeviceGetPciInfo_v3(NvmlDevice device, NvmlPciInfo pci);

    int nvmlDeviceGetPciInfo_v2(NvmlDevice device, NvmlPciInfo pci);

    /** The v1 call fills a smaller struct (busId[16], ids, four reserved words) that fits inside {@link NvmlPciInfo}. */
    int nvmlDeviceGetPciInfo(NvmlDevice device, NvmlPciInfo pci);

    int nvmlDeviceGetMemoryInfo_v2(NvmlDevice device, NvmlMemoryV2 memory);

    int nvmlDeviceGetMemoryInfo(NvmlDevice device, NvmlMemory memory);

    int nvmlDeviceGetCudaComputeCapability(NvmlDevice device, IntByReference major, IntByReference minor);

    int nvmlDeviceGetArchitecture(NvmlDevice device, IntByReference arch);

    int nvmlDeviceGetBrand(NvmlDevice device, IntByReference type);

    /** Milliwatts. */
    int nvmlDeviceGetPowerManagementLimit(NvmlDevice device, IntByReference limit);

    int nvmlDeviceGetEccMode(NvmlDevice device, IntByReference current, IntByReference pending);

    int nvmlDeviceGetTotalEccErrors(NvmlDevice device, int errorType, int counterType, LongByReference eccCounts);

    int nvmlDeviceGetMigMode(NvmlDevice device, IntByReference currentMode, IntByReference pendingMode);

    int nvmlDeviceGetMaxMigDeviceCount(NvmlDevice device, IntByReference count);

    int nvmlDeviceGetMigDeviceHandleByIndex(NvmlDevice device, int index, PointerByReference migDevice);

    int nvmlDeviceGetGpuInstanceId(NvmlDevice device, IntByReference id);

    int nvmlDeviceGetComputeInstanceId(NvmlDevice device, IntByReference id);

    int nvmlDeviceGetAttributes_v2(NvmlDevice device, NvmlDeviceAttributes attributes);
}
