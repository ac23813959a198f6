package io.gpudetect.probe.opencl;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.HexId;
import io.gpudetect.tables.MemorySize;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One OpenCL device's properties, under clinfo's long-form names ({@code Device Name}), whichever form
 * they were read from; turns a GPU device into a {@link Gpu}. Both clinfo forms end here, so the two
 * parsers cannot disagree on what a field means.
 */
record OpenClDevice(String platform, Map<String, String> fields, int line) {

    static final String NAME = "Device Name";
    static final String BOARD_NAME = "Device Board Name (AMD)";
    static final String VENDOR = "Device Vendor";
    static final String VENDOR_ID = "Device Vendor ID";
    static final String TYPE = "Device Type";
    static final String TOPOLOGY_NV = "Device Topology (NV)";
    static final String TOPOLOGY_AMD = "Device Topology (AMD)";
    static final String PCI_BUS_KHR = "Device PCI bus info (KHR)";
    static final String UUID = "Device UUID";
    static final String PCIE_ID_AMD = "Device PCI-e ID (AMD)";
    static final String DRIVER = "Driver Version";
    static final String COMPUTE_UNITS = "Max compute units";
    static final String GLOBAL_MEMORY = "Global memory size";
    static final String UNIFIED_MEMORY = "Unified memory for Host and Device";

    private static final Pattern LEADING_NUMBER = Pattern.compile("^(\\d{1,18})(?!\\d)");
    /**
     * AMD's OpenCL runtimes print the version with the runtime that answered: "1598.5 (VM)", "2841.4 (PAL,HSAIL)",
     * "3188.4 (PAL,LC)". The driver version is the number; the parenthesised kind names the runtime (PAL or the
     * older VM back end, HSAIL or the LC compiler), which no label or record reads, so it is left out rather than
     * making two hosts with the same driver differ.
     */
    private static final Pattern RUNTIME_SUFFIX = Pattern.compile("^(\\d+(?:\\.\\d+)+)\\s*\\(\\s*[A-Za-z][A-Za-z0-9 .,+_-]*\\)$");
    private static final Pattern PCI_E = Pattern.compile("(?i)PCI-?E,\\s*(\\S+)");

    /** What tells this card from others of the host: its PCI address, else its name without driver details. */
    String cardKey() {
        Optional<PciAddress> address = address();
        if (address.isPresent()) {
            return address.get().toString();
        }
        String name = fields.get(BOARD_NAME) != null && !fields.get(BOARD_NAME).isBlank() ? fields.get(BOARD_NAME) : fields.get(NAME);
        if (name == null) {
            return "";
        }
        // "AMD Radeon RX 5500 XT (navi14, LLVM 15.0.7, DRM 3.52, ...)" from Clover, "(radeonsi, navi14, ...)" from rusticl.
        return name.replaceAll("\\s*\\(.*$", "").replaceAll("(?i)\\((r|tm)\\)", "").replaceAll("\\s+", " ")
                .strip().toLowerCase(Locale.ROOT);
    }

    boolean isGpu() {
        String type = fields.get(TYPE);
        return type != null && type.toUpperCase(Locale.ROOT).contains("GPU");
    }

    /**
     * Intel's integrated GPU names: a family with no card number (UHD, HD, Iris, Iris Xe; since Meteor Lake "Arc
     * Graphics") or Lunar/Arrow Lake's "Arc 140V GPU". Not "Intel(R) Graphics [0x56a0]": NEO's name for a device it
     * has no marketing name for, which is as often a discrete Arc (0x56a0 is an A770).
     */
    private static final Pattern INTEL_IGPU_NAME = Pattern.compile("(?i)^(?:Intel(?:\\(R\\))?\\s+)?(?:(?:U?HD|Iris)(?:\\(R\\)|\\(TM\\))?"
            + "(?:\\s+(?:Xe|Plus|Pro))?\\s+Graphics(?:\\s+\\d{3,4})?|Arc(?:\\(TM\\))?\\s+Graphics|Arc(?:\\(TM\\))?\\s+1\\d0[VT]\\s+GPU.*)\\s*$");
    /** Intel's discrete GPUs, which the family pattern must never take for integrated. */
    private static final Pattern INTEL_DISCRETE_NAME = Pattern.compile("(?i)\\bArc(?:\\(TM\\))?\\s+(?:Pro\\s+)?[AB]\\d{2,3}|Xe\\s+MAX|Data\\s+Center|\\bMax\\s+\\d|\\bFlex\\b");

    /** The device as a GPU observation; problems with single fields go to {@code diagnostics}. */
    Gpu toGpu(String probe, String file, List<Diagnostic> diagnostics) {
        Gpu.Builder b = Gpu.builder(probe);
        String rawVendorId = fields.get(VENDOR_ID);
        String vendorId = rawVendorId == null ? null : HexId.id16(rawVendorId);
        Vendor vendor = vendorId == null ? Vendor.OTHER : Vendor.fromPciVendorId(vendorId);
        if (vendor == Vendor.OTHER) {
            Vendor byName = Vendor.fromName(fields.get(VENDOR));
            vendor = byName == Vendor.OTHER ? Vendor.fromName(platform) : byName;
        }
        b.vendor(vendor);
        if (vendor != Vendor.OTHER) {
            // Apple and ARM print ids that are not PCI vendor ids (0x1027f00); keep only the ones we know.
            b.pciVendorId(vendorId);
        }
        String name = fields.get(NAME);
        String board = fields.get(BOARD_NAME);
        b.name(board != null && !board.isBlank() ? board : name);
        if (name != null && name.matches("gfx[0-9a-f]+(:.*)?")) {
            b.architecture(name.replaceFirst(":.*", ""));
        }
        address().ifPresent(b::pciAddress);
        String pcieId = fields.get(PCIE_ID_AMD);
        if (vendor == Vendor.AMD && pcieId != null && pcieId.strip().matches("(?i)0x[0-9a-f]{1,4}")) {
            // AMD's runtime prints the PCI device id ("0x1586"): with it the tables name an iGPU its generic
            // board name ("AMD Radeon Graphics") does not.
            b.pciDeviceId(HexId.id16(pcieId.strip()));
        }
        if (vendor == Vendor.NVIDIA && fields.get(UUID) != null && fields.get(UUID).matches("[0-9a-fA-F-]{36}")) {
            // NVIDIA's OpenCL UUID is the driver's GPU UUID, which lets this card merge with nvidia-smi's view.
            b.uuid("GPU-" + fields.get(UUID).toLowerCase(Locale.ROOT));
        }
        b.driverVersion(driverNumber(fields.get(DRIVER)));
        b.computeUnits(HexId.leadingInt(fields.get(COMPUTE_UNITS)));
        String memory = fields.get(GLOBAL_MEMORY);
        if (memory != null) {
            Matcher m = LEADING_NUMBER.matcher(memory.strip());
            if (m.find() && MemorySize.isPlausibleMiB(Long.parseLong(m.group(1)) / (1024 * 1024))) {
                b.memoryMiB(Long.parseLong(m.group(1)) / (1024 * 1024));
            } else {
                diagnostics.add(Diagnostic.warning(probe, file, line,
                        "device '" + name + "': " + GLOBAL_MEMORY + " '" + memory + "' is not a plausible number of bytes"));
            }
        }
        String unified = fields.get(UNIFIED_MEMORY);
        if (unified == null && vendor == Vendor.INTEL && name != null && INTEL_IGPU_NAME.matcher(name).find()
                && !INTEL_DISCRETE_NAME.matcher(name).find()) {
            // 'clinfo -l' prints names only. Intel names its iGPUs by family (UHD, Iris Xe, and since Meteor Lake
            // "Arc Graphics" or "Arc 140V GPU") and its cards by number (Arc A770, B580, Pro B60, Iris Xe MAX):
            // an "Arc Graphics" without a number is the integrated GPU of a Core Ultra, not a discrete Arc.
            b.sharedMemory(true);
        }
        if (unified != null) {
            String u = unified.strip().toLowerCase(Locale.ROOT);
            if (u.equals("yes") || u.equals("cl_true")) {
                b.sharedMemory(true);
            } else if (u.equals("no") || u.equals("cl_false")) {
                b.sharedMemory(null);
            }
        }
        return b.build();
    }

    private Optional<PciAddress> address() {
        for (String key : List.of(PCI_BUS_KHR, TOPOLOGY_NV, TOPOLOGY_AMD)) {
            String v = fields.get(key);
            if (v != null) {
                Matcher m = PCI_E.matcher(v);
                if (m.find()) {
                    Optional<PciAddress> a = PciAddress.parse(m.group(1));
                    if (a.isPresent()) {
                        return a;
                    }
                }
            }
        }
        return Optional.empty();
    }

    /** The driver version without an OpenCL runtime's kind in parentheses; as printed otherwise. */
    static String driverNumber(String printed) {
        String v = blankToNull(printed);
        if (v == null) {
            return null;
        }
        Matcher m = RUNTIME_SUFFIX.matcher(v);
        return m.matches() ? m.group(1) : v;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
