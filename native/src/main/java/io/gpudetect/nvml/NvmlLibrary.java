package io.gpudetect.nvml;

import com.sun.jna.Library;
import com.sun.jna.NativeLibrary;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loaded {@code libnvidia-ml.so.1} with Java-named calls, each answering an {@link NvmlCall}. Each call
 * uses the newest symbol the library exports ({@code nvmlDeviceGetPciInfo_v3}, then {@code _v2}, then the
 * unversioned one) and records which one answered; a call none of whose symbols exists answers
 * {@code NVML_ERROR_FUNCTION_NOT_FOUND} instead of throwing {@link UnsatisfiedLinkError}.
 *
 * <p>Each call builds its answer in place rather than through a lambda per call: each lambda call site is
 * linked at every start of a one-shot {@code gpu-detect} on an NVIDIA host (docs/performance.md, "Start-up
 * and footprint tricks", row "NVML calls without lambdas").
 */
public final class NvmlLibrary {

    /** {@code RTLD_LAZY} without {@code RTLD_GLOBAL}: NVML's symbols stay out of the process's global scope. */
    private static final Map<String, Object> OPTIONS = Map.of(Library.OPTION_OPEN_FLAGS, 1);

    private final String path;
    private final NvmlApi api;
    /** {@link #errorString}'s answers by code. */
    private final Map<Integer, String> errorStrings = new ConcurrentHashMap<>();
    private NvmlLibrary(String path, NvmlApi api) {
        this.path = path;
        this.api = api;
    }

    /** Loads the first candidate that is an NVML library; the exception lists every place tried. */
    public static NvmlLibrary open(List<String> candidates) throws NvmlUnavailableException {
        return open(candidates, DynamicLinkerView.ofThisProcess());
    }

    static NvmlLibrary open(List<String> candidates, DynamicLinkerView linker) throws NvmlUnavailableException {
        List<String> notes = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (String candidate : candidates) {
            if (candidate.contains("/") && !Files.exists(Path.of(candidate))) {
                missing.add(Path.of(candidate).getParent().toString());
                continue;
            }
            if (!candidate.contains("/") && !linker.mayFind(candidate)) {
                missing.add("LD_LIBRARY_PATH and " + DynamicLinkerView.CACHE);
                continue;
            }
            avoidLdconfig();
            try {
                NativeLibrary lib = NativeLibrary.getInstance(candidate, OPTIONS);
                NvmlLibrary nvml = new NvmlLibrary(lib.getFile() == null ? candidate : lib.getFile().getPath(),
                        new NvmlApi(lib));
                if (!nvml.exports("nvmlInit_v2") && !nvml.exports("nvmlInit")) {
                    notes.add(candidate + " exports neither nvmlInit_v2 nor nvmlInit: not an NVML library");
                    continue;
                }
                return nvml;
            } catch (LinkageError | RuntimeException e) {
                notes.add(candidate + ": " + firstLine(e.getMessage()));
            }
        }
        StringBuilder why = new StringBuilder(NvmlLocator.LIBRARY_NAME + " not found (NVIDIA driver not installed, or not mounted into this container)");
        if (!missing.isEmpty()) {
            why.append("; not in ").append(String.join(", ", missing));
        }
        for (String note : notes) {
            why.append("; ").append(note);
        }
        throw new NvmlUnavailableException(why.toString());
    }

    /**
     * JNA's first use builds a search path that includes running {@code ldconfig -p}, a process per start.
     * Our candidates already name the library folders, so a fixed path of the same folders does instead;
     * a value someone set is kept.
     */
    private static void avoidLdconfig() {
        if (System.getProperty("jna.platform.library.path") == null) {
            List<String> dirs = new ArrayList<>();
            for (String dir : NvmlLocator.LIBRARY_DIRS) {
                dirs.add("/" + dir);
            }
            System.setProperty("jna.platform.library.path", String.join(java.io.File.pathSeparator, dirs));
        }
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "could not be loaded";
        }
        // JNA's message spans lines (one per place it tried); a diagnostic is one line.
        String line = s.strip().replaceAll("\\s+", " ");
        return line.length() > 300 ? line.substring(0, 300) + "..." : line;
    }

    /** The file that was loaded, as the dynamic linker resolved it where JNA knows it. */
    public String path() {
        return path;
    }

    /**
     * Binds the calls of an agent's steady pulse to this library through JNA's direct mapping ({@link NvmlDirect}),
     * for a session that this process holds and calls at every pass; true where they now go directly, false where the
     * library lacks one of their symbols (an old driver) and they stay as they were. Not for a one-shot command:
     * binding costs reflection once, for a handful of calls.
     */
    boolean callDirectly() {
        return api.callDirectly();
    }

    /** True when the library exports {@code symbol}; looked up once. */
    public boolean exports(String symbol) {
        return api.exports(symbol);
    }

    private String firstExported(String... symbols) {
        for (String s : symbols) {
            if (exports(s)) {
                return s;
            }
        }
        return null;
    }

    /**
     * {@code nvmlErrorString}'s text for {@code code}, asked once a code: the library answers each code with the same
     * constant text, and an agent's pulse meets the same failures at every pass (an empty MIG slot's Not Found, a
     * call a GPU does not support), each ask one more call through JNA in the interpreter (docs/performance.md,
     * "Start-up and footprint tricks", row "NVML's error text once a code").
     */
    public String errorString(int code) {
        String known = errorStrings.get(code);
        if (known == null && exports("nvmlErrorString")) {
            known = api.nvmlErrorString(code);
            if (known != null) {
                errorStrings.put(code, known);
            }
        }
        return known;
    }

    /**
     * A call that did not return {@code NVML_SUCCESS}, with the library's words for the code; {@link #missing} where
     * the library does not export {@code symbol} ({@link NvmlApi#NOT_EXPORTED}: the pulse's calls look their symbol
     * up once, in the call, instead of asking {@link #exports} first).
     */
    private <T> NvmlCall<T> failed(String symbol, int code) {
        if (code == NvmlApi.NOT_EXPORTED) {
            return missing(symbol);
        }
        return NvmlCall.failure(symbol, code, errorString(code));
    }

    private <T> NvmlCall<T> missing(String... symbols) {
        return NvmlCall.failure(String.join(" | ", symbols), NvmlReturn.ERROR_FUNCTION_NOT_FOUND,
                "not exported by " + path);
    }

    private static String hex(int packed) {
        return String.format(Locale.ROOT, "%08x", packed);
    }

    // --- library and system ---

    public NvmlCall<Void> init() {
        String s = firstExported("nvmlInit_v2", "nvmlInit");
        if (s == null) {
            return missing("nvmlInit_v2", "nvmlInit");
        }
        int rc = s.equals("nvmlInit_v2") ? api.nvmlInit_v2() : api.nvmlInit();
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success(s, null) : failed(s, rc);
    }

    public NvmlCall<Void> shutdown() {
        if (!exports("nvmlShutdown")) {
            return missing("nvmlShutdown");
        }
        int rc = api.nvmlShutdown();
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlShutdown", null) : failed("nvmlShutdown", rc);
    }

    public NvmlCall<String> driverVersion() {
        byte[] b = new byte[NvmlApi.SYSTEM_VERSION_BUFFER_SIZE];
        int rc = api.nvmlSystemGetDriverVersion(b, b.length);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlSystemGetDriverVersion", NvmlApi.text(b))
                : failed("nvmlSystemGetDriverVersion", rc);
    }

    public NvmlCall<String> nvmlVersion() {
        if (!exports("nvmlSystemGetNVMLVersion")) {
            return missing("nvmlSystemGetNVMLVersion");
        }
        byte[] b = new byte[NvmlApi.SYSTEM_VERSION_BUFFER_SIZE];
        int rc = api.nvmlSystemGetNVMLVersion(b, b.length);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlSystemGetNVMLVersion", NvmlApi.text(b))
                : failed("nvmlSystemGetNVMLVersion", rc);
    }

    /** The CUDA version the driver supports, as NVML encodes it: {@code 12040} for 12.4. */
    public NvmlCall<Integer> cudaDriverVersion() {
        String s = firstExported("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion");
        if (s == null) {
            return missing("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion");
        }
        IntByReference v = new IntByReference();
        int rc = s.endsWith("_v2") ? api.nvmlSystemGetCudaDriverVersion_v2(v) : api.nvmlSystemGetCudaDriverVersion(v);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success(s, v.getValue()) : failed(s, rc);
    }

    // The pulse's calls below call the newest symbol and, where the library does not export it, the older one: one
    // lookup a call instead of asking each symbol's export first (NvmlApi.NOT_EXPORTED).

    public NvmlCall<Integer> deviceCount() {
        int[] n = new int[1];
        String s = "nvmlDeviceGetCount_v2";
        int rc = api.nvmlDeviceGetCount_v2(n);
        if (rc == NvmlApi.NOT_EXPORTED) {
            s = "nvmlDeviceGetCount";
            rc = api.nvmlDeviceGetCount(n);
        }
        if (rc == NvmlApi.NOT_EXPORTED) {
            return missing("nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
        }
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success(s, n[0]) : failed(s, rc);
    }

    public NvmlCall<NvmlDevice> deviceHandle(int index) {
        long[] ref = new long[1];
        String s = "nvmlDeviceGetHandleByIndex_v2";
        int rc = api.nvmlDeviceGetHandleByIndex_v2(index, ref);
        if (rc == NvmlApi.NOT_EXPORTED) {
            s = "nvmlDeviceGetHandleByIndex";
            rc = api.nvmlDeviceGetHandleByIndex(index, ref);
        }
        if (rc == NvmlApi.NOT_EXPORTED) {
            return missing("nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
        }
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success(s, NvmlApi.handle(ref)) : failed(s, rc);
    }

    // --- one device (a GPU or a MIG device) ---

    public NvmlCall<String> name(NvmlDevice d) {
        if (!exports("nvmlDeviceGetName")) {
            return missing("nvmlDeviceGetName");
        }
        byte[] b = new byte[NvmlApi.DEVICE_NAME_BUFFER_SIZE];
        int rc = api.nvmlDeviceGetName(d, b, b.length);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlDeviceGetName", NvmlApi.text(b))
                : failed("nvmlDeviceGetName", rc);
    }

    public NvmlCall<String> uuid(NvmlDevice d) {
        byte[] b = new byte[NvmlApi.DEVICE_UUID_BUFFER_SIZE];
        int rc = api.nvmlDeviceGetUUID(d, b, b.length);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlDeviceGetUUID", NvmlApi.text(b))
                : failed("nvmlDeviceGetUUID", rc);
    }

    public NvmlCall<String> serial(NvmlDevice d) {
        if (!exports("nvmlDeviceGetSerial")) {
            return missing("nvmlDeviceGetSerial");
        }
        byte[] b = new byte[NvmlApi.DEVICE_SERIAL_BUFFER_SIZE];
        int rc = api.nvmlDeviceGetSerial(d, b, b.length);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlDeviceGetSerial", NvmlApi.text(b))
                : failed("nvmlDeviceGetSerial", rc);
    }

    public NvmlCall<String> boardPartNumber(NvmlDevice d) {
        if (!exports("nvmlDeviceGetBoardPartNumber")) {
            return missing("nvmlDeviceGetBoardPartNumber");
        }
        byte[] b = new byte[NvmlApi.DEVICE_PART_NUMBER_BUFFER_SIZE];
        int rc = api.nvmlDeviceGetBoardPartNumber(d, b, b.length);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlDeviceGetBoardPartNumber", NvmlApi.text(b))
                : failed("nvmlDeviceGetBoardPartNumber", rc);
    }

    public NvmlCall<NvmlSnapshot.Pci> pciInfo(NvmlDevice d) {
        String s = firstExported("nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo");
        if (s == null) {
            return missing("nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo");
        }
        NvmlPciInfo p = new NvmlPciInfo();
        int rc = s.endsWith("_v3") ? api.nvmlDeviceGetPciInfo_v3(d, p)
                : s.endsWith("_v2") ? api.nvmlDeviceGetPciInfo_v2(d, p) : api.nvmlDeviceGetPciInfo(d, p);
        boolean v1 = s.equals("nvmlDeviceGetPciInfo");
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success(s, new NvmlSnapshot.Pci(v1 ? p.busIdLegacy() : p.busId(),
                        Integer.toUnsignedLong(p.domain()), p.bus(), p.device(), hex(p.pciDeviceId()), hex(p.pciSubSystemId())))
                : failed(s, rc);
    }

    /**
     * Memory from {@code nvmlDeviceGetMemoryInfo_v2}, or from the v1 call when the library lacks v2 or
     * refuses its struct version (drivers before R510 export the symbol for some products only).
     */
    public NvmlCall<NvmlSnapshot.Memory> memory(NvmlDevice d) {
        if (exports("nvmlDeviceGetMemoryInfo_v2")) {
            NvmlMemoryV2 m = new NvmlMemoryV2();
            int rc = api.nvmlDeviceGetMemoryInfo_v2(d, m);
            if (rc == NvmlReturn.SUCCESS || !exports("nvmlDeviceGetMemoryInfo")
                    || (rc != NvmlReturn.ERROR_NOT_SUPPORTED && rc != 25 /* ARGUMENT_VERSION_MISMATCH */)) {
                return rc == NvmlReturn.SUCCESS
                        ? NvmlCall.success("nvmlDeviceGetMemoryInfo_v2", new NvmlSnapshot.Memory(m.total(), m.reserved()))
                        : failed("nvmlDeviceGetMemoryInfo_v2", rc);
            }
        }
        if (!exports("nvmlDeviceGetMemoryInfo")) {
            return missing("nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetMemoryInfo");
        }
        NvmlMemory m = new NvmlMemory();
        int rc = api.nvmlDeviceGetMemoryInfo(d, m);
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success("nvmlDeviceGetMemoryInfo", new NvmlSnapshot.Memory(m.total(), null))
                : failed("nvmlDeviceGetMemoryInfo", rc);
    }

    public NvmlCall<NvmlSnapshot.ComputeCapability> computeCapability(NvmlDevice d) {
        if (!exports("nvmlDeviceGetCudaComputeCapability")) {
            return missing("nvmlDeviceGetCudaComputeCapability");
        }
        IntByReference major = new IntByReference();
        IntByReference minor = new IntByReference();
        int rc = api.nvmlDeviceGetCudaComputeCapability(d, major, minor);
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success("nvmlDeviceGetCudaComputeCapability",
                        new NvmlSnapshot.ComputeCapability(major.getValue(), minor.getValue()))
                : failed("nvmlDeviceGetCudaComputeCapability", rc);
    }

    public NvmlCall<Long> architecture(NvmlDevice d) {
        if (!exports("nvmlDeviceGetArchitecture")) {
            return missing("nvmlDeviceGetArchitecture");
        }
        IntByReference v = new IntByReference();
        int rc = api.nvmlDeviceGetArchitecture(d, v);
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success("nvmlDeviceGetArchitecture", Integer.toUnsignedLong(v.getValue()))
                : failed("nvmlDeviceGetArchitecture", rc);
    }

    public NvmlCall<Long> brand(NvmlDevice d) {
        if (!exports("nvmlDeviceGetBrand")) {
            return missing("nvmlDeviceGetBrand");
        }
        IntByReference v = new IntByReference();
        int rc = api.nvmlDeviceGetBrand(d, v);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlDeviceGetBrand", Integer.toUnsignedLong(v.getValue()))
                : failed("nvmlDeviceGetBrand", rc);
    }

    public NvmlCall<Long> powerManagementLimitMilliwatts(NvmlDevice d) {
        if (!exports("nvmlDeviceGetPowerManagementLimit")) {
            return missing("nvmlDeviceGetPowerManagementLimit");
        }
        IntByReference v = new IntByReference();
        int rc = api.nvmlDeviceGetPowerManagementLimit(d, v);
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success("nvmlDeviceGetPowerManagementLimit", Integer.toUnsignedLong(v.getValue()))
                : failed("nvmlDeviceGetPowerManagementLimit", rc);
    }

    public NvmlCall<Long> enforcedPowerLimitMilliwatts(NvmlDevice d) {
        return unsignedInt("nvmlDeviceGetEnforcedPowerLimit", d);
    }

    public NvmlCall<Long> defaultPowerLimitMilliwatts(NvmlDevice d) {
        return unsignedInt("nvmlDeviceGetPowerManagementDefaultLimit", d);
    }

    public NvmlCall<NvmlSnapshot.PowerRange> powerLimitConstraints(NvmlDevice d) {
        if (!exports("nvmlDeviceGetPowerManagementLimitConstraints")) {
            return missing("nvmlDeviceGetPowerManagementLimitConstraints");
        }
        IntByReference min = new IntByReference();
        IntByReference max = new IntByReference();
        int rc = api.nvmlDeviceGetPowerManagementLimitConstraints(d, min, max);
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success("nvmlDeviceGetPowerManagementLimitConstraints", new NvmlSnapshot.PowerRange(
                        Integer.toUnsignedLong(min.getValue()), Integer.toUnsignedLong(max.getValue())))
                : failed("nvmlDeviceGetPowerManagementLimitConstraints", rc);
    }

    public NvmlCall<String> vbiosVersion(NvmlDevice d) {
        if (!exports("nvmlDeviceGetVbiosVersion")) {
            return missing("nvmlDeviceGetVbiosVersion");
        }
        byte[] b = new byte[NvmlApi.DEVICE_VBIOS_VERSION_BUFFER_SIZE];
        int rc = api.nvmlDeviceGetVbiosVersion(d, b, b.length);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlDeviceGetVbiosVersion", NvmlApi.text(b))
                : failed("nvmlDeviceGetVbiosVersion", rc);
    }

    /** The PCIe link: maximum and current generation, maximum and current width, each its own call. */
    public NvmlCall<Long> maxPcieLinkGeneration(NvmlDevice d) {
        return unsignedInt("nvmlDeviceGetMaxPcieLinkGeneration", d);
    }

    public NvmlCall<Long> currentPcieLinkGeneration(NvmlDevice d) {
        return unsignedInt("nvmlDeviceGetCurrPcieLinkGeneration", d);
    }

    public NvmlCall<Long> maxPcieLinkWidth(NvmlDevice d) {
        return unsignedInt("nvmlDeviceGetMaxPcieLinkWidth", d);
    }

    public NvmlCall<Long> currentPcieLinkWidth(NvmlDevice d) {
        return unsignedInt("nvmlDeviceGetCurrPcieLinkWidth", d);
    }

    /** A device call that answers one unsigned int. */
    private NvmlCall<Long> unsignedInt(String function, NvmlDevice d) {
        if (!exports(function)) {
            return missing(function);
        }
        IntByReference v = new IntByReference();
        int rc = api.unsignedIntValue(function, d, v);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success(function, Integer.toUnsignedLong(v.getValue()))
                : failed(function, rc);
    }

    public NvmlCall<NvmlSnapshot.Modes> eccMode(NvmlDevice d) {
        int[] current = new int[1];
        int[] pending = new int[1];
        int rc = api.nvmlDeviceGetEccMode(d, current, pending);
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success("nvmlDeviceGetEccMode", new NvmlSnapshot.Modes(current[0] != 0, pending[0] != 0))
                : failed("nvmlDeviceGetEccMode", rc);
    }

    /** Uncorrected ECC errors over the GPU's lifetime ({@code NVML_AGGREGATE_ECC}). */
    public NvmlCall<Long> eccUncorrectedAggregate(NvmlDevice d) {
        long[] n = new long[1];
        int rc = api.nvmlDeviceGetTotalEccErrors(d, NvmlApi.MEMORY_ERROR_TYPE_UNCORRECTED, NvmlApi.AGGREGATE_ECC, n);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlDeviceGetTotalEccErrors", n[0])
                : failed("nvmlDeviceGetTotalEccErrors", rc);
    }

    public NvmlCall<NvmlSnapshot.Modes> migMode(NvmlDevice d) {
        int[] current = new int[1];
        int[] pending = new int[1];
        int rc = api.nvmlDeviceGetMigMode(d, current, pending);
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success("nvmlDeviceGetMigMode", new NvmlSnapshot.Modes(current[0] != 0, pending[0] != 0))
                : failed("nvmlDeviceGetMigMode", rc);
    }

    public NvmlCall<Integer> maxMigDeviceCount(NvmlDevice d) {
        if (!exports("nvmlDeviceGetMaxMigDeviceCount")) {
            return missing("nvmlDeviceGetMaxMigDeviceCount");
        }
        IntByReference n = new IntByReference();
        int rc = api.nvmlDeviceGetMaxMigDeviceCount(d, n);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlDeviceGetMaxMigDeviceCount", n.getValue())
                : failed("nvmlDeviceGetMaxMigDeviceCount", rc);
    }

    public NvmlCall<NvmlDevice> migDeviceHandle(NvmlDevice d, int index) {
        long[] ref = new long[1];
        int rc = api.nvmlDeviceGetMigDeviceHandleByIndex(d, index, ref);
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success("nvmlDeviceGetMigDeviceHandleByIndex", NvmlApi.handle(ref))
                : failed("nvmlDeviceGetMigDeviceHandleByIndex", rc);
    }

    public NvmlCall<Long> gpuInstanceId(NvmlDevice mig) {
        if (!exports("nvmlDeviceGetGpuInstanceId")) {
            return missing("nvmlDeviceGetGpuInstanceId");
        }
        IntByReference v = new IntByReference();
        int rc = api.nvmlDeviceGetGpuInstanceId(mig, v);
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success("nvmlDeviceGetGpuInstanceId", Integer.toUnsignedLong(v.getValue()))
                : failed("nvmlDeviceGetGpuInstanceId", rc);
    }

    public NvmlCall<Long> computeInstanceId(NvmlDevice mig) {
        if (!exports("nvmlDeviceGetComputeInstanceId")) {
            return missing("nvmlDeviceGetComputeInstanceId");
        }
        IntByReference v = new IntByReference();
        int rc = api.nvmlDeviceGetComputeInstanceId(mig, v);
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success("nvmlDeviceGetComputeInstanceId", Integer.toUnsignedLong(v.getValue()))
                : failed("nvmlDeviceGetComputeInstanceId", rc);
    }

    public NvmlCall<Long> multiprocessorCount(NvmlDevice d) {
        if (!exports("nvmlDeviceGetAttributes_v2")) {
            return missing("nvmlDeviceGetAttributes_v2");
        }
        NvmlDeviceAttributes a = new NvmlDeviceAttributes();
        int rc = api.nvmlDeviceGetAttributes_v2(d, a);
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success("nvmlDeviceGetAttributes_v2", Integer.toUnsignedLong(a.multiprocessorCount()))
                : failed("nvmlDeviceGetAttributes_v2", rc);
    }

    // --- NVLink and the multi-node NVLink fabric: read at a full detection only, never in a pulse ---

    /** {@code nvmlDeviceGetNvLinkState}: whether link {@code link} is active. */
    public NvmlCall<Boolean> nvLinkState(NvmlDevice d, int link) {
        if (!exports("nvmlDeviceGetNvLinkState")) {
            return missing("nvmlDeviceGetNvLinkState");
        }
        IntByReference v = new IntByReference();
        int rc = api.nvmlDeviceGetNvLinkState(d, link, v);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlDeviceGetNvLinkState", v.getValue() != 0)
                : failed("nvmlDeviceGetNvLinkState", rc);
    }

    /** {@code nvmlDeviceGetNvLinkVersion}: the link's {@code nvmlNvlinkVersion_t}. */
    public NvmlCall<Long> nvLinkVersion(NvmlDevice d, int link) {
        if (!exports("nvmlDeviceGetNvLinkVersion")) {
            return missing("nvmlDeviceGetNvLinkVersion");
        }
        IntByReference v = new IntByReference();
        int rc = api.nvmlDeviceGetNvLinkVersion(d, link, v);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlDeviceGetNvLinkVersion", Integer.toUnsignedLong(v.getValue()))
                : failed("nvmlDeviceGetNvLinkVersion", rc);
    }

    /** {@code nvmlDeviceGetNvLinkRemoteDeviceType}: 0 GPU, 1 IBM NPU, 2 NVSwitch, 255 unknown. */
    public NvmlCall<Long> nvLinkRemoteDeviceType(NvmlDevice d, int link) {
        if (!exports("nvmlDeviceGetNvLinkRemoteDeviceType")) {
            return missing("nvmlDeviceGetNvLinkRemoteDeviceType");
        }
        IntByReference v = new IntByReference();
        int rc = api.nvmlDeviceGetNvLinkRemoteDeviceType(d, link, v);
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success("nvmlDeviceGetNvLinkRemoteDeviceType", Integer.toUnsignedLong(v.getValue()))
                : failed("nvmlDeviceGetNvLinkRemoteDeviceType", rc);
    }

    /** The PCI address at the far end of link {@code link}: {@code _v2}, else the v1 call with its shorter struct. */
    public NvmlCall<NvmlSnapshot.Pci> nvLinkRemotePci(NvmlDevice d, int link) {
        String s = firstExported("nvmlDeviceGetNvLinkRemotePciInfo_v2", "nvmlDeviceGetNvLinkRemotePciInfo");
        if (s == null) {
            return missing("nvmlDeviceGetNvLinkRemotePciInfo_v2", "nvmlDeviceGetNvLinkRemotePciInfo");
        }
        NvmlPciInfo p = new NvmlPciInfo();
        int rc = api.nvmlDeviceGetNvLinkRemotePciInfo(s, d, link, p);
        boolean v1 = !s.endsWith("_v2");
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success(s, new NvmlSnapshot.Pci(v1 ? p.busIdLegacy() : p.busId(),
                        Integer.toUnsignedLong(p.domain()), p.bus(), p.device(), hex(p.pciDeviceId()), hex(p.pciSubSystemId())))
                : failed(s, rc);
    }

    /** {@code nvmlDeviceGetP2PStatus} with {@code NVML_P2P_CAPS_INDEX_NVLINK}: 0 ({@code NVML_P2P_STATUS_OK}) when P2P over NVLink works. */
    public NvmlCall<Long> nvLinkP2pStatus(NvmlDevice a, NvmlDevice b) {
        if (!exports("nvmlDeviceGetP2PStatus")) {
            return missing("nvmlDeviceGetP2PStatus");
        }
        IntByReference v = new IntByReference();
        int rc = api.nvmlDeviceGetP2PStatus(a, b, NvmlApi.P2P_CAPS_INDEX_NVLINK, v);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlDeviceGetP2PStatus", Integer.toUnsignedLong(v.getValue()))
                : failed("nvmlDeviceGetP2PStatus", rc);
    }

    /**
     * The GPU's multi-node NVLink fabric registration: {@code nvmlDeviceGetGpuFabricInfoV} (R550 on) with the v2 struct,
     * else {@code nvmlDeviceGetGpuFabricInfo} (R535).
     */
    public NvmlCall<NvmlSnapshot.Fabric> gpuFabricInfo(NvmlDevice d) {
        String s = firstExported("nvmlDeviceGetGpuFabricInfoV", "nvmlDeviceGetGpuFabricInfo");
        if (s == null) {
            return missing("nvmlDeviceGetGpuFabricInfoV", "nvmlDeviceGetGpuFabricInfo");
        }
        NvmlFabricInfo f = new NvmlFabricInfo(s.endsWith("V"));
        int rc = api.nvmlDeviceGetGpuFabricInfo(s, d, f);
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success(s, new NvmlSnapshot.Fabric(f.clusterUuid(), f.cliqueId(), f.state(), f.status()))
                : failed(s, rc);
    }

    // --- health ---

    /** Uncorrected ECC errors since the driver loaded ({@code NVML_VOLATILE_ECC}): a GPU whose work fails now. */
    public NvmlCall<Long> eccUncorrectedVolatile(NvmlDevice d) {
        long[] n = new long[1];
        int rc = api.nvmlDeviceGetTotalEccErrors(d, NvmlApi.MEMORY_ERROR_TYPE_UNCORRECTED, NvmlApi.VOLATILE_ECC, n);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlDeviceGetTotalEccErrors", n[0])
                : failed("nvmlDeviceGetTotalEccErrors", rc);
    }

    /** Whether pages retired for ECC errors wait for a GPU reset ({@code NVML_FEATURE_ENABLED} = 1); pre-Ampere GPUs. */
    public NvmlCall<Long> retiredPagesPending(NvmlDevice d) {
        int[] v = new int[1];
        int rc = api.nvmlDeviceGetRetiredPagesPendingStatus(d, v);
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success("nvmlDeviceGetRetiredPagesPendingStatus", Integer.toUnsignedLong(v[0]))
                : failed("nvmlDeviceGetRetiredPagesPendingStatus", rc);
    }

    /** Ampere and later: rows remapped for correctable and uncorrectable errors, one pending a reset, a failure. */
    public NvmlCall<NvmlSnapshot.RemappedRows> remappedRows(NvmlDevice d) {
        int[] corrected = new int[1];
        int[] uncorrected = new int[1];
        int[] pending = new int[1];
        int[] failure = new int[1];
        int rc = api.nvmlDeviceGetRemappedRows(d, corrected, uncorrected, pending, failure);
        return rc == NvmlReturn.SUCCESS
                ? NvmlCall.success("nvmlDeviceGetRemappedRows", new NvmlSnapshot.RemappedRows(
                        Integer.toUnsignedLong(corrected[0]), Integer.toUnsignedLong(uncorrected[0]), pending[0] != 0,
                        failure[0] != 0))
                : failed("nvmlDeviceGetRemappedRows", rc);
    }

    /** The {@code nvmlClocksEventReason*} bits holding the clocks down now (the older name says "throttle"). */
    public NvmlCall<Long> clocksEventReasons(NvmlDevice d) {
        long[] v = new long[1];
        String s = "nvmlDeviceGetCurrentClocksEventReasons";
        int rc = api.clocksEventReasons(s, d, v);
        if (rc == NvmlApi.NOT_EXPORTED) {
            s = "nvmlDeviceGetCurrentClocksThrottleReasons";
            rc = api.clocksEventReasons(s, d, v);
        }
        if (rc == NvmlApi.NOT_EXPORTED) {
            return missing("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons");
        }
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success(s, v[0]) : failed(s, rc);
    }

    // --- events ---

    /** {@code nvmlEventSetCreate}: the set's pointer. */
    public NvmlCall<com.sun.jna.Pointer> eventSetCreate() {
        if (!exports("nvmlEventSetCreate")) {
            return missing("nvmlEventSetCreate");
        }
        PointerByReference ref = new PointerByReference();
        int rc = api.nvmlEventSetCreate(ref);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlEventSetCreate", ref.getValue())
                : failed("nvmlEventSetCreate", rc);
    }

    /** The {@code nvmlEventType*} bits the device can report. */
    public NvmlCall<Long> supportedEventTypes(NvmlDevice d) {
        if (!exports("nvmlDeviceGetSupportedEventTypes")) {
            return missing("nvmlDeviceGetSupportedEventTypes");
        }
        LongByReference v = new LongByReference();
        int rc = api.nvmlDeviceGetSupportedEventTypes(d, v);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlDeviceGetSupportedEventTypes", v.getValue())
                : failed("nvmlDeviceGetSupportedEventTypes", rc);
    }

    public NvmlCall<Void> registerEvents(NvmlDevice d, long eventTypes, com.sun.jna.Pointer set) {
        if (!exports("nvmlDeviceRegisterEvents")) {
            return missing("nvmlDeviceRegisterEvents");
        }
        int rc = api.nvmlDeviceRegisterEvents(d, eventTypes, set);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlDeviceRegisterEvents", null)
                : failed("nvmlDeviceRegisterEvents", rc);
    }

    /**
     * Blocks in {@code nvmlEventSetWait_v2} (or the unversioned one) up to {@code timeoutMs} for the next event;
     * {@code NVML_ERROR_TIMEOUT} when none came. The device is the handle the event came from.
     */
    public NvmlCall<NvmlEvent> eventSetWait(com.sun.jna.Pointer set, int timeoutMs) {
        return eventSetWait(set, timeoutMs, eventData());
    }

    /** Memory for {@link #eventSetWait(com.sun.jna.Pointer, int, com.sun.jna.Memory)}'s answer. */
    public static com.sun.jna.Memory eventData() {
        // nvmlEventData_t: device handle, eventType and eventData (unsigned long long), then (v2) two unsigned ints.
        return new com.sun.jna.Memory(32);
    }

    /**
     * {@link #eventSetWait(com.sun.jna.Pointer, int)} into {@code data} ({@link #eventData}), which a caller that
     * waits at every pulse keeps: a JNA {@code Memory} is a native allocation and a cleaner's registration each.
     */
    public NvmlCall<NvmlEvent> eventSetWait(com.sun.jna.Pointer set, int timeoutMs, com.sun.jna.Memory data) {
        String s = firstExported("nvmlEventSetWait_v2", "nvmlEventSetWait");
        if (s == null) {
            return missing("nvmlEventSetWait_v2", "nvmlEventSetWait");
        }
        data.clear();
        int rc = api.eventSetWait(s, set, data, timeoutMs);
        if (rc != NvmlReturn.SUCCESS) {
            return rc == NvmlReturn.ERROR_TIMEOUT ? NvmlCall.failure(s, rc, null) : failed(s, rc);
        }
        int pointer = com.sun.jna.Native.POINTER_SIZE;
        return NvmlCall.success(s, new NvmlEvent(new NvmlDevice(data.getPointer(0)), data.getLong(pointer),
                data.getLong(pointer + 8)));
    }

    public NvmlCall<Void> eventSetFree(com.sun.jna.Pointer set) {
        if (!exports("nvmlEventSetFree")) {
            return missing("nvmlEventSetFree");
        }
        int rc = api.nvmlEventSetFree(set);
        return rc == NvmlReturn.SUCCESS ? NvmlCall.success("nvmlEventSetFree", null) : failed("nvmlEventSetFree", rc);
    }
}
