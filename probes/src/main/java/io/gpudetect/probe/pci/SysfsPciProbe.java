package io.gpudetect.probe.pci;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.HexId;
import io.gpudetect.probe.Probe;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.probe.ProbeRole;
import io.gpudetect.source.Source;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The PCI bus as the kernel shows it: every display function under {@code /sys/bus/pci/devices}, whether
 * or not a driver is bound, with its ids, revision and driver; amdgpu's exact VRAM
 * ({@code mem_info_vram_total}, the same file {@code /sys/class/drm/cardN/device/} links to); and AMD's kfd
 * topology (gfx target, compute units, unique id). This is the probe that still works with no vendor
 * tool and no driver. BAR sizes ({@code resource}) are apertures, not memory, and are never read.
 */
public final class SysfsPciProbe implements Probe {

    public static final String NAME = "sysfs-pci";
    static final String PCI_DEVICES = "/sys/bus/pci/devices";
    static final String KFD = "/sys/class/kfd";
    static final String KFD_NODES = "/sys/class/kfd/kfd/topology/nodes";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ProbeRole role() {
        return ProbeRole.BUS;
    }

    @Override
    public ProbeResult probe(Source source) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        List<String> functions;
        try {
            functions = source.list(PCI_DEVICES);
        } catch (IOException e) {
            return ProbeResult.failed(NAME, Diagnostic.error(NAME, PCI_DEVICES, null, "cannot list: " + e.getMessage()));
        }
        if (functions.isEmpty()) {
            return ProbeResult.absent(NAME, Diagnostic.info(NAME, PCI_DEVICES,
                    "no PCI devices listed (not Linux, sysfs not mounted, or not in the bundle)"));
        }
        Map<PciAddress, Gpu.Builder> gpus = new LinkedHashMap<>();
        Map<PciAddress, String> names = new LinkedHashMap<>();
        for (String function : functions) {
            Optional<PciAddress> address = PciAddress.parse(function);
            if (address.isEmpty()) {
                diagnostics.add(Diagnostic.warning(NAME, PCI_DEVICES + "/" + function, null,
                        "not a PCI address (expected 0000:01:00.0); skipped"));
                continue;
            }
            names.put(address.get(), function);
        }
        for (Map.Entry<PciAddress, String> e : names.entrySet()) {
            try {
                Gpu.Builder gpu = function(source, e.getKey(), e.getValue(), names, diagnostics);
                if (gpu != null) {
                    gpus.put(e.getKey(), gpu);
                }
            } catch (IOException ex) {
                diagnostics.add(Diagnostic.warning(NAME, PCI_DEVICES + "/" + e.getValue(), null,
                        "cannot read: " + ex.getMessage()));
            }
        }
        readKfd(source, gpus, diagnostics);
        return ProbeResult.of(NAME, gpus.values().stream().map(Gpu.Builder::build).toList(), diagnostics);
    }

    private Gpu.Builder function(Source source, PciAddress address, String name, Map<PciAddress, String> all,
                                 List<Diagnostic> diagnostics) throws IOException {
        String dir = PCI_DEVICES + "/" + name;
        String classCode = hex(source, dir + "/class", 6, diagnostics);
        if (classCode == null) {
            return null;
        }
        String shortClass = classCode.substring(0, 4);
        boolean maybeAccelerator = shortClass.equals("1200");
        String vendorId = null;
        if (maybeAccelerator || PciClass.isGpuCandidate(shortClass, null, null)) {
            vendorId = id16(source, dir + "/vendor", diagnostics);
        }
        if (!PciClass.isGpuCandidate(shortClass, null, vendorId)) {
            return null;
        }
        Gpu.Builder b = Gpu.builder(NAME).pciAddress(address).pciVendorId(vendorId)
                .vendor(vendorId == null ? null : Vendor.fromPciVendorId(vendorId))
                .pciDeviceId(id16(source, dir + "/device", diagnostics))
                .pciSubsystemVendorId(id16(source, dir + "/subsystem_vendor", diagnostics))
                .pciSubsystemDeviceId(id16(source, dir + "/subsystem_device", diagnostics))
                .pciRevision(hex(source, dir + "/revision", 2, diagnostics))
                .pciClass(shortClass);
        Optional<String> driver = source.readLink(dir + "/driver");
        if (driver.isPresent()) {
            String target = driver.get();
            b.kernelDriver(target.substring(target.lastIndexOf('/') + 1));
        } else {
            diagnostics.add(Diagnostic.info(NAME, dir + "/driver", null,
                    "no kernel driver is bound to " + address + "; ids come from the bus alone"));
        }
        List<String> siblings = new ArrayList<>();
        for (Map.Entry<PciAddress, String> other : all.entrySet()) {
            PciAddress o = other.getKey();
            if (!o.equals(address) && o.domain() == address.domain() && o.bus() == address.bus() && o.device() == address.device()
                    && "1002".equals(vendorId)) {
                siblings.add(id16(source, PCI_DEVICES + "/" + other.getValue() + "/vendor", diagnostics));
            }
        }
        boolean integrated = PciClass.isIntegrated(vendorId, address, siblings);
        if (integrated) {
            b.sharedMemory(true);
        } else if ("1002".equals(vendorId)) {
            Optional<String> vram = source.readFile(dir + "/mem_info_vram_total");
            if (vram.isPresent()) {
                Long bytes = HexId.parseLong(vram.get());
                if (bytes == null || bytes <= 0) {
                    diagnostics.add(Diagnostic.warning(NAME, dir + "/mem_info_vram_total", 1,
                            "expected a number of bytes, found '" + abbreviate(vram.get()) + "'"));
                } else {
                    b.memoryMiB(bytes / (1024 * 1024));
                }
            }
        }
        return b;
    }

    private void readKfd(Source source, Map<PciAddress, Gpu.Builder> gpus, List<Diagnostic> diagnostics) {
        try {
            // Listing /sys/class/kfd first makes a recording keep the kfd -> devices/virtual/kfd/kfd link.
            if (source.list(KFD).isEmpty()) {
                return;
            }
            for (String node : source.list(KFD_NODES)) {
                String path = KFD_NODES + "/" + node + "/properties";
                Optional<String> text = source.readFile(path);
                if (text.isEmpty()) {
                    continue;
                }
                KfdTopology topology = KfdTopology.parse(node, text.get(), path, NAME, diagnostics);
                if (!topology.isGpu()) {
                    continue;
                }
                PciAddress address = topology.address();
                Gpu.Builder b = address == null ? null : gpus.get(address);
                if (b == null) {
                    diagnostics.add(Diagnostic.warning(NAME, path, null, "kfd GPU node " + node + " at "
                            + (address == null ? "no PCI address" : address) + " matches no display function on the PCI bus"));
                    continue;
                }
                b.architecture(topology.architecture()).computeUnits(topology.computeUnits()).uuid(topology.uuid());
                if (topology.isApu()) {
                    b.sharedMemory(true);
                }
            }
        } catch (IOException e) {
            diagnostics.add(Diagnostic.warning(NAME, KFD_NODES, null, "cannot read the kfd topology: " + e.getMessage()));
        }
    }

    /** A sysfs hex attribute ({@code 0x030000}) as {@code digits} lower-case hex digits, or null with a diagnostic. */
    private static String hex(Source source, String path, int digits, List<Diagnostic> diagnostics) throws IOException {
        Optional<String> text = source.readFile(path);
        if (text.isEmpty()) {
            return null;
        }
        String v = text.get().strip().toLowerCase(java.util.Locale.ROOT);
        if (!v.matches("0x[0-9a-f]{1," + digits + "}")) {
            diagnostics.add(Diagnostic.warning(NAME, path, 1,
                    "expected 0x and up to " + digits + " hex digits, found '" + abbreviate(text.get()) + "'"));
            return null;
        }
        String hex = v.substring(2);
        return "0".repeat(digits - hex.length()) + hex;
    }

    private static String id16(Source source, String path, List<Diagnostic> diagnostics) throws IOException {
        return hex(source, path, 4, diagnostics);
    }

    private static String abbreviate(String s) {
        String t = s.strip().replaceAll("\\p{Cntrl}", "?");
        return t.length() > 40 ? t.substring(0, 40) + "..." : t;
    }
}
