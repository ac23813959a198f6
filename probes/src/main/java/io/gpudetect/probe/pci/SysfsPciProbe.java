package io.gpudetect.probe.pci;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuLinks;
import io.gpudetect.model.Partitioning;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.model.Vgpu;
import io.gpudetect.probe.HexId;
import io.gpudetect.probe.Probe;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.probe.ProbeRole;
import io.gpudetect.source.Source;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The PCI bus as the kernel shows it: every display function under {@code /sys/bus/pci/devices}, whether
 * or not a driver is bound, with its ids, revision and driver; what amdgpu adds in the same folder (the one
 * {@code /sys/class/drm/cardN/device} links to): the exact VRAM ({@code mem_info_vram_total}), the board's
 * name from its FRU ({@code product_name}), the compute and memory partition modes; the amdgpu module's
 * version; and AMD's kfd topology (gfx target, compute units, unique id). This is the probe that still works
 * with no vendor tool and no driver. For NVIDIA functions, whether each is a vGPU (the vendor-specific
 * capability in its config space, read as GPU Feature Discovery reads it). For every function, its PCIe link,
 * NUMA node and PCIe root, and the power cap where amdgpu, i915 or xe write one ({@link PciFunctionFacts}); for the
 * others, whether the function still answers and amdgpu's RAS error counts ({@link PciHealth}). BAR sizes ({@code resource}) are apertures, not memory, and are never read.
 */
public final class SysfsPciProbe implements Probe {

    public static final String NAME = "sysfs-pci";
    public static final String PCI_DEVICES = "/sys/bus/pci/devices";
    static final String KFD = "/sys/class/kfd";
    static final String AMDGPU = "amdgpu";
    static final String KFD_NODES = "/sys/class/kfd/kfd/topology/nodes";
    /**
     * The amdgpu module's version: only an out-of-tree (DKMS) build has the file, and it is what rocm-smi and AMD's
     * node labeller report as the driver version ({@code /sys/class/drm/cardN/device/driver/module/version}).
     */
    public static final String AMDGPU_VERSION = "/sys/module/amdgpu/version";
    /** The kernel GPU drivers that write the power cap under the function's {@code hwmon} folder (NVIDIA's does not). */
    private static final java.util.Set<String> HWMON_DRIVERS = java.util.Set.of(AMDGPU, "i915", "xe");
    private static final Pattern MODE = Pattern.compile("[A-Za-z0-9]{1,16}");
    private static final Pattern VERSION = Pattern.compile("[0-9A-Za-z][-0-9A-Za-z._+~]{0,63}");

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
            // A replay speaks of the recording, not of the machine replaying it.
            return ProbeResult.absent(NAME, Diagnostic.info(NAME, PCI_DEVICES, source.isRecorded()
                    ? "the bundle has no sys/bus/pci/devices" : "no PCI devices listed (not Linux, or sysfs not mounted)"));
        }
        Map<PciAddress, Gpu.Builder> gpus = new LinkedHashMap<>();
        List<Gpu.Builder> amdgpuCards = new ArrayList<>();
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
                Gpu.Builder gpu = function(source, e.getKey(), e.getValue(), names, amdgpuCards, diagnostics);
                if (gpu != null) {
                    gpus.put(e.getKey(), gpu);
                }
            } catch (IOException ex) {
                diagnostics.add(Diagnostic.warning(NAME, PCI_DEVICES + "/" + e.getValue(), null,
                        "cannot read: " + ex.getMessage()));
            }
        }
        readKfd(source, gpus, diagnostics);
        readAmdgpuVersion(source, amdgpuCards, diagnostics);
        xgmi(source, gpus, amdgpuCards, names, diagnostics);
        return ProbeResult.of(NAME, gpus.values().stream().map(Gpu.Builder::build).toList(), diagnostics);
    }

    private Gpu.Builder function(Source source, PciAddress address, String name, Map<PciAddress, String> all,
                                 List<Gpu.Builder> amdgpuCards, List<Diagnostic> diagnostics) throws IOException {
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
        if ("10de".equals(vendorId)) {
            vgpu(source, dir, address, b, diagnostics);
        } else {
            b.health(PciHealth.read(source, dir, diagnostics));
        }
        String linkTarget = source.readLink(dir).orElse(null);
        b.pcieRoot(linkTarget == null ? null : PciFunctionFacts.pcieRoot(linkTarget));
        String linkFolder = "1002".equals(vendorId) ? PciFunctionFacts.amdLinkFolder(source, dir, linkTarget) : dir;
        b.pcieLink(PciFunctionFacts.link(source, linkFolder, NAME, diagnostics))
                .numaNode(PciFunctionFacts.numaNode(source, dir, NAME, diagnostics));
        Optional<String> driver = source.readLink(dir + "/driver");
        if (driver.isPresent()) {
            String target = driver.get();
            String kernelDriver = target.substring(target.lastIndexOf('/') + 1);
            b.kernelDriver(kernelDriver);
            if (AMDGPU.equals(kernelDriver)) {
                amdgpuCards.add(b);
                amdgpuFacts(source, dir, b, diagnostics);
            }
            if (HWMON_DRIVERS.contains(kernelDriver)) {
                Double[] cap = new Double[1];
                b.powerLimits(PciFunctionFacts.hwmonPower(source, dir, NAME, cap, diagnostics)).powerLimitWatts(cap[0]);
            }
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

    /**
     * Whether an NVIDIA function is a vGPU, from the vendor-specific capability in its first 256 bytes of config
     * space (only those are read, and recorded). Nothing when there is no {@code config} file (a bundle recorded
     * without it); a diagnostic when the kernel shows only the first 64 bytes, as it does to a user without
     * {@code CAP_SYS_ADMIN}.
     */
    private static void vgpu(Source source, String dir, PciAddress address, Gpu.Builder b, List<Diagnostic> diagnostics)
            throws IOException {
        Optional<byte[]> config = source.readBytes(dir + "/config", NvidiaVgpuCapability.CONFIG_BYTES);
        if (config.isEmpty()) {
            return;
        }
        Vgpu vgpu = NvidiaVgpuCapability.read(config.get());
        if (vgpu == null) {
            diagnostics.add(Diagnostic.info(NAME, dir + "/config", null, "only " + config.get().length
                    + " bytes of " + address + "'s PCI config space are readable (the kernel shows "
                    + NvidiaVgpuCapability.CONFIG_BYTES + " to root); whether it is a vGPU is not known"));
            return;
        }
        b.vgpu(vgpu);
    }

    /**
     * What amdgpu writes in the device's folder. {@code product_name} is the board's name from its FRU EEPROM;
     * on a card without one the file is missing (newer kernels) or empty. The partition files exist on cards that
     * can be split (MI300 and later): {@code current_compute_partition} holds {@code SPX}, {@code DPX},
     * {@code TPX}, {@code QPX} or {@code CPX}, {@code current_memory_partition} {@code NPS1} to {@code NPS8}, and
     * the {@code available_*} files the modes it may be switched to, comma separated, present only where a
     * switch is possible (the kernel's amdgpu_gfx.c and amdgpu_gmc.c).
     */
    private static void amdgpuFacts(Source source, String dir, Gpu.Builder b, List<Diagnostic> diagnostics) throws IOException {
        source.readFile(dir + "/product_name").map(String::strip).filter(n -> !n.isEmpty()).ifPresent(b::boardName);
        b.vbiosVersion(PciFunctionFacts.vbiosVersion(source, dir));
        Optional<String> compute = source.readFile(dir + "/current_compute_partition");
        Optional<String> memory = source.readFile(dir + "/current_memory_partition");
        if (compute.isEmpty() && memory.isEmpty()) {
            return;
        }
        String kind = compute.map(c -> mode(c, dir + "/current_compute_partition", diagnostics)).orElse(null);
        String memoryMode = memory.map(m -> mode(m, dir + "/current_memory_partition", diagnostics)).orElse(null);
        List<String> modes = compute.isPresent() ? modes(source, dir + "/available_compute_partition", diagnostics) : null;
        List<String> memoryModes = memory.isPresent() ? modes(source, dir + "/available_memory_partition", diagnostics) : null;
        b.partitioning(new Partitioning(kind, kind == null ? null : !kind.equals("spx"), null, List.of(),
                memoryMode, modes, memoryModes));
    }

    /** One partition mode, lower-case ({@code cpx}); null with a diagnostic when the file holds something else. */
    private static String mode(String text, String path, List<Diagnostic> diagnostics) {
        String v = text.strip();
        if (!MODE.matcher(v).matches()) {
            diagnostics.add(Diagnostic.warning(NAME, path, 1, "expected a partition mode (SPX, CPX, NPS1, ...), found '"
                    + abbreviate(text) + "'"));
            return null;
        }
        return v.toLowerCase(Locale.ROOT);
    }

    /**
     * The modes an {@code available_*} file lists ({@code SPX, DPX, QPX, CPX}); empty when there is no file or the
     * kernel writes {@code Not supported} in it.
     */
    private static List<String> modes(Source source, String path, List<Diagnostic> diagnostics) throws IOException {
        Optional<String> text = source.readFile(path);
        if (text.isEmpty() || text.get().strip().equalsIgnoreCase("Not supported")) {
            return List.of();
        }
        List<String> modes = new ArrayList<>();
        for (String part : text.get().split(",")) {
            String v = part.strip();
            if (v.isEmpty()) {
                continue;
            }
            if (!MODE.matcher(v).matches() || modes.size() == 16) {
                diagnostics.add(Diagnostic.warning(NAME, path, 1, "expected partition modes separated by commas (SPX, DPX, CPX), found '"
                        + abbreviate(text.get()) + "'"));
                return List.of();
            }
            modes.add(v.toLowerCase(Locale.ROOT));
        }
        return modes;
    }

    /** The amdgpu module's version, for every card amdgpu drives; nothing when the module has no version file. */
    private static void readAmdgpuVersion(Source source, List<Gpu.Builder> amdgpu, List<Diagnostic> diagnostics) {
        if (amdgpu.isEmpty()) {
            return;
        }
        try {
            Optional<String> text = source.readFile(AMDGPU_VERSION);
            if (text.isEmpty()) {
                return;
            }
            String version = text.get().strip();
            if (!VERSION.matcher(version).matches()) {
                diagnostics.add(Diagnostic.warning(NAME, AMDGPU_VERSION, 1, "expected a version (6.10.5), found '"
                        + abbreviate(text.get()) + "'"));
                return;
            }
            for (Gpu.Builder b : amdgpu) {
                b.driverVersion(version);
            }
        } catch (IOException e) {
            diagnostics.add(Diagnostic.warning(NAME, AMDGPU_VERSION, null, "cannot read: " + e.getMessage()));
        }
    }

    /**
     * Each kfd GPU node joins the display function at its address. A card split into compute partitions (MI300 in
     * CPX mode) has one node per partition, all with the card's unique id, the first at the card's own address
     * and the others at functions 1 to 7 of the same slot, where no PCI function exists; those count towards the
     * card at function 0, whose compute units are the sum over its nodes.
     */
    private void readKfd(Source source, Map<PciAddress, Gpu.Builder> gpus, List<Diagnostic> diagnostics) {
        Map<PciAddress, List<KfdTopology>> nodesByCard = new LinkedHashMap<>();
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
                PciAddress card = address;
                if (address != null && !gpus.containsKey(address) && address.function() != 0) {
                    card = new PciAddress(address.domain(), address.bus(), address.device(), 0);
                }
                if (card == null || !gpus.containsKey(card)) {
                    diagnostics.add(Diagnostic.warning(NAME, path, null, "kfd GPU node " + node + " at "
                            + (address == null ? "no PCI address" : address) + " matches no display function on the PCI bus"));
                    continue;
                }
                nodesByCard.computeIfAbsent(card, k -> new ArrayList<>()).add(topology);
            }
        } catch (IOException e) {
            diagnostics.add(Diagnostic.warning(NAME, KFD_NODES, null, "cannot read the kfd topology: " + e.getMessage()));
        }
        for (Map.Entry<PciAddress, List<KfdTopology>> e : nodesByCard.entrySet()) {
            Gpu.Builder b = gpus.get(e.getKey());
            KfdTopology own = null;
            for (KfdTopology t : e.getValue()) {
                if (e.getKey().equals(t.address())) {
                    own = t;
                }
            }
            if (own == null) {
                diagnostics.add(Diagnostic.warning(NAME, KFD_NODES, null, "kfd GPU nodes at other functions of "
                        + e.getKey() + " but none at the card itself; read as its compute partitions"));
                own = e.getValue().get(0);
            }
            Integer computeUnits = 0;
            boolean apu = false;
            for (KfdTopology t : e.getValue()) {
                if (t != own && t.uniqueId() != own.uniqueId()) {
                    diagnostics.add(Diagnostic.warning(NAME, KFD_NODES + "/" + t.node(), null, "kfd GPU node " + t.node()
                            + " at " + t.address() + " matches no display function on the PCI bus"));
                    continue;
                }
                computeUnits = computeUnits == null || t.computeUnits() == null ? null : computeUnits + t.computeUnits();
                apu |= t.isApu();
            }
            b.architecture(own.architecture()).computeUnits(computeUnits).uuid(own.uuid());
            if (apu) {
                b.sharedMemory(true);
            }
        }
    }

    /**
     * AMD's XGMI hives: amdgpu gives each card of a hive a {@code xgmi_hive_info} folder (the first card's own, a link
     * from the others) whose {@code xgmi_hive_id} is the hive's 64-bit id, in decimal; cards with the same non-zero id
     * are joined over XGMI (amdgpu_xgmi.c). The files say nothing of how many links join two cards, nor of their
     * state: each peer is one group of {@code count} 1, up. A card whose folder has a zero id is in no hive ({@code
     * links: []}); one without the folder (no XGMI, or a kernel before it) has its links not read.
     */
    private static void xgmi(Source source, Map<PciAddress, Gpu.Builder> gpus, List<Gpu.Builder> amdgpuCards,
                             Map<PciAddress, String> names, List<Diagnostic> diagnostics) {
        Map<PciAddress, Long> hiveOf = new LinkedHashMap<>();
        for (Map.Entry<PciAddress, Gpu.Builder> e : gpus.entrySet()) {
            if (!amdgpuCards.contains(e.getValue())) {
                continue;
            }
            String hive = PCI_DEVICES + "/" + names.get(e.getKey()) + "/xgmi_hive_info";
            String path = hive + "/xgmi_hive_id";
            try {
                // Asked so that a recording keeps the link from the hive's other cards to the first card's folder.
                source.readLink(hive);
                Optional<String> text = source.readFile(path);
                if (text.isEmpty()) {
                    continue;
                }
                try {
                    hiveOf.put(e.getKey(), Long.parseUnsignedLong(text.get().strip()));
                } catch (NumberFormatException ex) {
                    diagnostics.add(Diagnostic.warning(NAME, path, 1, "expected the hive's id as a decimal number, found '"
                            + abbreviate(text.get()) + "'; the card's XGMI links were not read"));
                }
            } catch (IOException ex) {
                diagnostics.add(Diagnostic.warning(NAME, path, null, "cannot read: " + ex.getMessage()));
            }
        }
        for (Map.Entry<PciAddress, Long> card : hiveOf.entrySet()) {
            List<GpuLinks.Link> links = new ArrayList<>();
            for (Map.Entry<PciAddress, Long> peer : hiveOf.entrySet()) {
                if (card.getValue() != 0 && !peer.getKey().equals(card.getKey()) && peer.getValue().equals(card.getValue())) {
                    links.add(new GpuLinks.Link(GpuLinks.Kind.XGMI, true, null, GpuLinks.Remote.GPU,
                            peer.getKey().toString(), 1));
                }
            }
            gpus.get(card.getKey()).links(new GpuLinks(links, null));
        }
    }

    /** A sysfs hex attribute ({@code 0x030000}) as {@code digits} lower-case hex digits, or null with a diagnostic. */
    private static String hex(Source source, String path, int digits, List<Diagnostic> diagnostics) throws IOException {
        Optional<String> text = source.readFile(path);
        if (text.isEmpty()) {
            return null;
        }
        String v = text.get().strip().toLowerCase(Locale.ROOT);
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
