package io.gpudetect.nvml;

import com.sun.jna.Function;
import com.sun.jna.Library;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The calls of {@code libnvidia-ml.so.1} that detection needs, with the C names and signatures of
 * {@code nvml.h} so that the header is the specification. Every function returns an {@code nvmlReturn_t}
 * ({@link NvmlReturn}). Versioned symbols ({@code _v2}, {@code _v3}) are declared beside the older ones:
 * {@link NvmlLibrary} calls the newest that the loaded library exports. Unsigned C ints arrive as Java
 * ints; callers widen them with {@link Integer#toUnsignedLong}.
 *
 * <p>Each call goes through the JNA {@link Function} of its symbol, looked up on first use, rather than
 * through an interface that JNA implements: that costs a dynamic proxy class, which JDK 17 cannot keep in
 * the class-data-sharing archive, generated at every start (docs/performance.md, "Start-up and
 * footprint tricks", row "NVML calls without a proxy"). JNA's direct mapping ({@code Native.register}) serves
 * only the calls of a held session's pulse ({@link #callDirectly}, {@link NvmlDirect}): binding costs reflection
 * over the class, which a one-shot command would pay for a handful of calls, and each library needs its own copy
 * of the class. Handles, by-reference values and structs are passed as the pointers
 * they are, so no argument needs JNA's reflective conversion. The output arguments of the calls an agent's steady
 * pulse makes are one-element Java arrays ({@code int[1]}, {@code long[1]}), which JNA passes as a pointer to a copy
 * that it writes back after the call: a primitive array is the first thing JNA's argument conversion lets through,
 * where a by-reference value's memory goes through all of it, and its value is then read back with a native call
 * (docs/performance.md, "The NVML pulse").
 */
final class NvmlApi {

    /** {@code NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE}, also enough for the NVML version. */
    static final int SYSTEM_VERSION_BUFFER_SIZE = 80;
    /** {@code NVML_DEVICE_NAME_V2_BUFFER_SIZE}. */
    static final int DEVICE_NAME_BUFFER_SIZE = 96;
    /** {@code NVML_DEVICE_UUID_V2_BUFFER_SIZE}. */
    static final int DEVICE_UUID_BUFFER_SIZE = 96;
    /** {@code NVML_DEVICE_SERIAL_BUFFER_SIZE}. */
    static final int DEVICE_SERIAL_BUFFER_SIZE = 30;
    /** {@code NVML_DEVICE_PART_NUMBER_BUFFER_SIZE}. */
    static final int DEVICE_PART_NUMBER_BUFFER_SIZE = 80;
    /** {@code NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE}. */
    static final int DEVICE_VBIOS_VERSION_BUFFER_SIZE = 32;
    /** {@code NVML_MEMORY_ERROR_TYPE_UNCORRECTED}. */
    static final int MEMORY_ERROR_TYPE_UNCORRECTED = 1;
    /** {@code NVML_AGGREGATE_ECC}: counted over the GPU's lifetime, kept in the infoROM. */
    static final int AGGREGATE_ECC = 1;
    /** {@code NVML_VOLATILE_ECC}: counted since the driver loaded (a reboot or driver reload starts it at zero). */
    static final int VOLATILE_ECC = 0;

    /** {@code NVML_NVLINK_MAX_LINKS}: the most NVLinks a GPU has (18 on Hopper and Blackwell). */
    static final int NVLINK_MAX_LINKS = 18;
    /** {@code NVML_P2P_CAPS_INDEX_NVLINK}. */
    static final int P2P_CAPS_INDEX_NVLINK = 2;

    /**
     * What {@link #call} gives JNA as a call's options. No type mapper and no invoking method, as in the library's own
     * options; and "allow objects", with which JNA's argument conversion lets an argument through before it asks
     * whether JNA supports the argument's type (a walk of {@code Native.getNativeSize} for each handle and int, 7% of
     * an agent's pulse in the interpreter: docs/performance.md, "Start-up and footprint tricks", row "NVML outputs as
     * one-element arrays ..."). Every argument these methods pass is a type JNA's native dispatch reads as before
     * (a {@code Pointer}, an {@code Integer} or {@code Long}, a primitive array), so the call is the same; what the
     * check would have caught, an unsupported type, no signature here can pass.
     */
    private static final Map<String, Object> OPTIONS = Map.of(Library.OPTION_ALLOW_OBJECTS, Boolean.TRUE);

    private final NativeLibrary library;
    /** Each symbol's function, or null where the library does not export it. */
    private final Map<String, Function> functions = new HashMap<>();

    /**
     * The pulse's calls bound to this library through JNA's direct mapping ({@link #callDirectly}); null where they go
     * through {@link #call}. Volatile: bound on the thread that holds the session, read by whichever thread calls.
     */
    private volatile NvmlDirect.Pulse direct;
    /** Whether {@link #callDirectly} was asked. */
    private boolean boundDirectly;
    /** The clock reasons under their name since R535, bound directly; null where not. */
    private volatile NvmlDirect.Clocks clocksEvent;
    /** The clock reasons under their name before R535, bound directly; null where not. */
    private volatile NvmlDirect.Clocks clocksThrottle;

    NvmlApi(NativeLibrary library) {
        this.library = library;
    }

    /**
     * Binds the calls of an agent's pulse to this library through JNA's direct mapping ({@link NvmlDirect}), where the
     * library exports their symbols; once. True where the pulse's calls (but the clock reasons) now go directly.
     */
    synchronized boolean callDirectly() {
        if (!boundDirectly) {
            // Once: each binding defines classes that JNA keeps for the life of the process.
            boundDirectly = true;
            direct = NvmlDirect.bind(this, library, NvmlDirect.PulseSymbols.class, NvmlDirect.Pulse.class);
            clocksEvent = NvmlDirect.bind(this, library, NvmlDirect.ClocksEventSymbol.class, NvmlDirect.Clocks.class);
            clocksThrottle = NvmlDirect.bind(this, library, NvmlDirect.ClocksThrottleSymbol.class,
                    NvmlDirect.Clocks.class);
        }
        return direct != null;
    }

    /** A handle's address, as a directly mapped call takes it. */
    private static long address(NvmlDevice device) {
        return Pointer.nativeValue(device.getPointer());
    }

    /** True when the library exports {@code symbol}; looked up once. */
    boolean exports(String symbol) {
        return lookUp(symbol) != null;
    }

    /**
     * The symbol's function, or null where the library does not export it; looked up once. One map lookup when known:
     * every call of an agent's steady pass comes here, in the interpreter (docs/performance.md, "Modes read in turn").
     */
    private synchronized Function lookUp(String symbol) {
        Function f = functions.get(symbol);
        if (f == null && !functions.containsKey(symbol)) {
            try {
                f = library.getFunction(symbol);
            } catch (UnsatisfiedLinkError e) {
                f = null;
            }
            functions.put(symbol, f);
        }
        return f;
    }

    private Function function(String symbol) {
        Function f = lookUp(symbol);
        if (f == null) {
            throw new UnsatisfiedLinkError(symbol + " is not exported by " + library.getFile());
        }
        return f;
    }

    /**
     * What {@link #call} answers for a symbol the library does not export: no {@code nvmlReturn_t} (0-29, 999). The
     * calls of an agent's pulse look their symbol up this once instead of asking {@link #exports} first.
     */
    static final int NOT_EXPORTED = Integer.MIN_VALUE;

    private int call(String symbol, Object... args) {
        Function f = lookUp(symbol);
        if (f == null) {
            return NOT_EXPORTED;
        }
        // Not invokeInt(args), which hands JNA the library's options: three lookups in its map a call (an agent's
        // pulse makes ~70 calls) for a type mapper, an invoking method and "allow objects" (OPTIONS).
        return (Integer) f.invoke(Integer.class, args, OPTIONS);
    }

    /**
     * The {@code nvmlDevice_t} a handle call wrote into {@code out}, a fresh {@code long[1]}: NVML is built for 64-bit
     * hosts only (x86_64, aarch64, ppc64le), where a pointer fills the long; on a little-endian 32-bit one it would
     * fill its zeroed low half, so the value would still read right.
     */
    static NvmlDevice handle(long[] out) {
        return new NvmlDevice(out[0] == 0 ? null : new Pointer(out[0]));
    }

    /** A C string from a fixed-size buffer: up to the first NUL, or the whole buffer. */
    static String text(byte[] buffer) {
        int end = 0;
        while (end < buffer.length && buffer[end] != 0) {
            end++;
        }
        return new String(buffer, 0, end, StandardCharsets.UTF_8);
    }

    int nvmlInit_v2() {
        return call("nvmlInit_v2");
    }

    int nvmlInit() {
        return call("nvmlInit");
    }

    int nvmlShutdown() {
        return call("nvmlShutdown");
    }

    String nvmlErrorString(int result) {
        return function("nvmlErrorString").invokeString(new Object[] {result}, false);
    }

    int nvmlSystemGetDriverVersion(byte[] version, int length) {
        return call("nvmlSystemGetDriverVersion", version, length);
    }

    int nvmlSystemGetNVMLVersion(byte[] version, int length) {
        return call("nvmlSystemGetNVMLVersion", version, length);
    }

    int nvmlSystemGetCudaDriverVersion_v2(IntByReference cudaDriverVersion) {
        return call("nvmlSystemGetCudaDriverVersion_v2", cudaDriverVersion.getPointer());
    }

    int nvmlSystemGetCudaDriverVersion(IntByReference cudaDriverVersion) {
        return call("nvmlSystemGetCudaDriverVersion", cudaDriverVersion.getPointer());
    }

    int nvmlDeviceGetCount_v2(int[] deviceCount) {
        NvmlDirect.Pulse d = direct;
        return d != null ? d.deviceCount(deviceCount) : call("nvmlDeviceGetCount_v2", (Object) deviceCount);
    }

    int nvmlDeviceGetCount(int[] deviceCount) {
        return call("nvmlDeviceGetCount", (Object) deviceCount);
    }

    /** {@code device}: see {@link #handle}. */
    int nvmlDeviceGetHandleByIndex_v2(int index, long[] device) {
        NvmlDirect.Pulse d = direct;
        return d != null ? d.deviceHandle(index, device) : call("nvmlDeviceGetHandleByIndex_v2", index, device);
    }

    int nvmlDeviceGetHandleByIndex(int index, long[] device) {
        return call("nvmlDeviceGetHandleByIndex", index, device);
    }

    int nvmlDeviceGetName(NvmlDevice device, byte[] name, int length) {
        return call("nvmlDeviceGetName", device.getPointer(), name, length);
    }

    int nvmlDeviceGetUUID(NvmlDevice device, byte[] uuid, int length) {
        NvmlDirect.Pulse d = direct;
        return d != null ? d.uuid(address(device), uuid, length)
                : call("nvmlDeviceGetUUID", device.getPointer(), uuid, length);
    }

    int nvmlDeviceGetSerial(NvmlDevice device, byte[] serial, int length) {
        return call("nvmlDeviceGetSerial", device.getPointer(), serial, length);
    }

    int nvmlDeviceGetBoardPartNumber(NvmlDevice device, byte[] partNumber, int length) {
        return call("nvmlDeviceGetBoardPartNumber", device.getPointer(), partNumber, length);
    }

    int nvmlDeviceGetPciInfo_v3(NvmlDevice device, NvmlPciInfo pci) {
        return call("nvmlDeviceGetPciInfo_v3", device.getPointer(), pci.memory);
    }

    int nvmlDeviceGetPciInfo_v2(NvmlDevice device, NvmlPciInfo pci) {
        return call("nvmlDeviceGetPciInfo_v2", device.getPointer(), pci.memory);
    }

    /** The v1 call fills a smaller struct (busId[16], ids, four reserved words) that fits inside {@link NvmlPciInfo}. */
    int nvmlDeviceGetPciInfo(NvmlDevice device, NvmlPciInfo pci) {
        return call("nvmlDeviceGetPciInfo", device.getPointer(), pci.memory);
    }

    int nvmlDeviceGetMemoryInfo_v2(NvmlDevice device, NvmlMemoryV2 memory) {
        return call("nvmlDeviceGetMemoryInfo_v2", device.getPointer(), memory.memory);
    }

    int nvmlDeviceGetMemoryInfo(NvmlDevice device, NvmlMemory memory) {
        return call("nvmlDeviceGetMemoryInfo", device.getPointer(), memory.memory);
    }

    int nvmlDeviceGetCudaComputeCapability(NvmlDevice device, IntByReference major, IntByReference minor) {
        return call("nvmlDeviceGetCudaComputeCapability", device.getPointer(), major.getPointer(), minor.getPointer());
    }

    int nvmlDeviceGetArchitecture(NvmlDevice device, IntByReference arch) {
        return call("nvmlDeviceGetArchitecture", device.getPointer(), arch.getPointer());
    }

    int nvmlDeviceGetBrand(NvmlDevice device, IntByReference type) {
        return call("nvmlDeviceGetBrand", device.getPointer(), type.getPointer());
    }

    /** Milliwatts. */
    int nvmlDeviceGetPowerManagementLimit(NvmlDevice device, IntByReference limit) {
        return call("nvmlDeviceGetPowerManagementLimit", device.getPointer(), limit.getPointer());
    }

    /** Milliwatts: the range {@code nvidia-smi -pl} accepts. */
    int nvmlDeviceGetPowerManagementLimitConstraints(NvmlDevice device, IntByReference min, IntByReference max) {
        return call("nvmlDeviceGetPowerManagementLimitConstraints", device.getPointer(), min.getPointer(), max.getPointer());
    }

    int nvmlDeviceGetVbiosVersion(NvmlDevice device, byte[] version, int length) {
        return call("nvmlDeviceGetVbiosVersion", device.getPointer(), version, length);
    }

    /**
     * A device call whose one answer is an unsigned int: {@code nvmlDeviceGetEnforcedPowerLimit} and
     * {@code nvmlDeviceGetPowerManagementDefaultLimit} (milliwatts), {@code nvmlDeviceGetMaxPcieLinkGeneration},
     * {@code nvmlDeviceGetCurrPcieLinkGeneration}, {@code nvmlDeviceGetMaxPcieLinkWidth},
     * {@code nvmlDeviceGetCurrPcieLinkWidth}.
     */
    int unsignedIntValue(String function, NvmlDevice device, IntByReference value) {
        return call(function, device.getPointer(), value.getPointer());
    }

    int nvmlDeviceGetEccMode(NvmlDevice device, int[] current, int[] pending) {
        NvmlDirect.Pulse d = direct;
        return d != null ? d.eccMode(address(device), current, pending)
                : call("nvmlDeviceGetEccMode", device.getPointer(), current, pending);
    }

    int nvmlDeviceGetTotalEccErrors(NvmlDevice device, int errorType, int counterType, long[] eccCounts) {
        NvmlDirect.Pulse d = direct;
        return d != null ? d.totalEccErrors(address(device), errorType, counterType, eccCounts)
                : call("nvmlDeviceGetTotalEccErrors", device.getPointer(), errorType, counterType, eccCounts);
    }

    int nvmlDeviceGetMigMode(NvmlDevice device, int[] currentMode, int[] pendingMode) {
        NvmlDirect.Pulse d = direct;
        return d != null ? d.migMode(address(device), currentMode, pendingMode)
                : call("nvmlDeviceGetMigMode", device.getPointer(), currentMode, pendingMode);
    }

    int nvmlDeviceGetMaxMigDeviceCount(NvmlDevice device, IntByReference count) {
        return call("nvmlDeviceGetMaxMigDeviceCount", device.getPointer(), count.getPointer());
    }

    int nvmlDeviceGetMigDeviceHandleByIndex(NvmlDevice device, int index, long[] migDevice) {
        NvmlDirect.Pulse d = direct;
        return d != null ? d.migDeviceHandle(address(device), index, migDevice)
                : call("nvmlDeviceGetMigDeviceHandleByIndex", device.getPointer(), index, migDevice);
    }

    int nvmlDeviceGetGpuInstanceId(NvmlDevice device, IntByReference id) {
        return call("nvmlDeviceGetGpuInstanceId", device.getPointer(), id.getPointer());
    }

    int nvmlDeviceGetComputeInstanceId(NvmlDevice device, IntByReference id) {
        return call("nvmlDeviceGetComputeInstanceId", device.getPointer(), id.getPointer());
    }

    int nvmlDeviceGetAttributes_v2(NvmlDevice device, NvmlDeviceAttributes attributes) {
        return call("nvmlDeviceGetAttributes_v2", device.getPointer(), attributes.memory);
    }

    int nvmlDeviceGetNvLinkState(NvmlDevice device, int link, IntByReference isActive) {
        return call("nvmlDeviceGetNvLinkState", device.getPointer(), link, isActive.getPointer());
    }

    int nvmlDeviceGetNvLinkVersion(NvmlDevice device, int link, IntByReference version) {
        return call("nvmlDeviceGetNvLinkVersion", device.getPointer(), link, version.getPointer());
    }

    int nvmlDeviceGetNvLinkRemoteDeviceType(NvmlDevice device, int link, IntByReference type) {
        return call("nvmlDeviceGetNvLinkRemoteDeviceType", device.getPointer(), link, type.getPointer());
    }

    /** {@code nvmlDeviceGetNvLinkRemotePciInfo_v2}, or the v1 call (the shorter struct, as {@link #nvmlDeviceGetPciInfo}). */
    int nvmlDeviceGetNvLinkRemotePciInfo(String symbol, NvmlDevice device, int link, NvmlPciInfo pci) {
        return call(symbol, device.getPointer(), link, pci.memory);
    }

    int nvmlDeviceGetP2PStatus(NvmlDevice device1, NvmlDevice device2, int capsIndex, IntByReference status) {
        return call("nvmlDeviceGetP2PStatus", device1.getPointer(), device2.getPointer(), capsIndex, status.getPointer());
    }

    /** {@code nvmlDeviceGetGpuFabricInfoV} or {@code nvmlDeviceGetGpuFabricInfo}, each with its struct ({@link NvmlFabricInfo}). */
    int nvmlDeviceGetGpuFabricInfo(String symbol, NvmlDevice device, NvmlFabricInfo info) {
        return call(symbol, device.getPointer(), info.memory);
    }

    int nvmlDeviceGetRetiredPagesPendingStatus(NvmlDevice device, int[] isPending) {
        NvmlDirect.Pulse d = direct;
        return d != null ? d.retiredPagesPending(address(device), isPending)
                : call("nvmlDeviceGetRetiredPagesPendingStatus", device.getPointer(), isPending);
    }

    int nvmlDeviceGetRemappedRows(NvmlDevice device, int[] corrRows, int[] uncRows, int[] isPending,
                                  int[] failureOccurred) {
        NvmlDirect.Pulse d = direct;
        return d != null ? d.remappedRows(address(device), corrRows, uncRows, isPending, failureOccurred)
                : call("nvmlDeviceGetRemappedRows", device.getPointer(), corrRows, uncRows, isPending, failureOccurred);
    }

    /** {@code nvmlDeviceGetCurrentClocksEventReasons}, or its older name {@code ...ThrottleReasons}: same signature. */
    int clocksEventReasons(String function, NvmlDevice device, long[] reasons) {
        NvmlDirect.Clocks d = function.equals("nvmlDeviceGetCurrentClocksEventReasons") ? clocksEvent
                : function.equals("nvmlDeviceGetCurrentClocksThrottleReasons") ? clocksThrottle : null;
        return d != null ? d.reasons(address(device), reasons) : call(function, device.getPointer(), reasons);
    }

    // --- events (nvml.h "Event Handling Methods") ---

    int nvmlEventSetCreate(PointerByReference set) {
        return call("nvmlEventSetCreate", set.getPointer());
    }

    int nvmlDeviceGetSupportedEventTypes(NvmlDevice device, LongByReference eventTypes) {
        return call("nvmlDeviceGetSupportedEventTypes", device.getPointer(), eventTypes.getPointer());
    }

    int nvmlDeviceRegisterEvents(NvmlDevice device, long eventTypes, com.sun.jna.Pointer set) {
        return call("nvmlDeviceRegisterEvents", device.getPointer(), eventTypes, set);
    }

    /** {@code _v2} fills {@code nvmlEventData_t} with the GPU and compute instance ids; the unversioned one without. */
    int eventSetWait(String function, com.sun.jna.Pointer set, com.sun.jna.Memory data, int timeoutMs) {
        NvmlDirect.Pulse d = function.equals("nvmlEventSetWait_v2") ? direct : null;
        if (d == null) {
            return call(function, set, data, timeoutMs);
        }
        try {
            return d.eventSetWait(Pointer.nativeValue(set), Pointer.nativeValue(data), timeoutMs);
        } finally {
            Reference.reachabilityFence(data); // its cleaner frees the memory once nothing refers to it
        }
    }

    int nvmlEventSetFree(com.sun.jna.Pointer set) {
        return call("nvmlEventSetFree", set);
    }
}
