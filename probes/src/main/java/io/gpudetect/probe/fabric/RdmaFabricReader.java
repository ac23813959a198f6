package io.gpudetect.probe.fabric;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Fabric;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.probe.pci.SysfsPciProbe;
import io.gpudetect.source.Source;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The node's RDMA fabric from {@code /sys/class/infiniband}, for every vendor: each device's ports (link layer,
 * state, rate), the PCI function it belongs to with its NUMA node and PCIe root, whether GPUDirect RDMA can work
 * ({@link GpuDirectRdmaCheck}), and each GPU's nearest device ({@link PcieAffinity}).
 *
 * <p>Each class entry is a link into {@code /sys/devices} ({@code ../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/
 * infiniband/mlx5_0}); the files are read at the folder it leads to, so that a recording keeps them where a replay
 * finds them, and the PCI function is the folder above {@code infiniband} (what the device's {@code device} link
 * names). A software device (rxe, siw) leads to {@code devices/virtual} and has no function.
 *
 * <p>Paths go through the {@link Source}, so {@code --host-root} and a replayed bundle read the same files. A bundle
 * without {@code sys/class/infiniband} cannot tell "no RDMA device" from "recorded before gpu-detect read the
 * fabric": its fabric is not known (null), where a live host without the folder has none.
 */
public final class RdmaFabricReader {

    public static final String NAME = "sysfs-rdma";
    public static final String CLASS_INFINIBAND = "/sys/class/infiniband";
    /** {@code 400 Gb/sec (4X NDR)}, {@code 2.5 Gb/sec (1X SDR)}, {@code 100 Gb/sec}. */
    private static final Pattern RATE = Pattern.compile("(\\d{1,5}(?:\\.\\d{1,3})?) Gb/sec(?: \\(([0-9A-Za-z ]{1,24})\\))?");
    /** {@code 4: ACTIVE}, {@code 5: LinkUp}: a number, a colon, a word. */
    private static final Pattern STATE = Pattern.compile("\\d{1,2}: ?([A-Za-z_]{1,24})");
    private static final Pattern DEVICE_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
    private static final Pattern PORT = Pattern.compile("\\d{1,3}");

    private RdmaFabricReader() {
    }

    /**
     * The fabric seen through {@code source}, with each GPU of {@code gpus} given its nearest device; null when a
     * replayed bundle does not record it. Never throws: what cannot be read is a diagnostic.
     */
    public static Fabric read(Source source, List<Gpu> gpus, List<Diagnostic> diagnostics) {
        List<String> names;
        try {
            if (!source.exists(CLASS_INFINIBAND)) {
                if (source.isRecorded()) {
                    // Said by the fabric's absence from the output; a note would change every older bundle's replay.
                    return null;
                }
                names = List.of();
            } else {
                names = source.list(CLASS_INFINIBAND);
            }
        } catch (IOException e) {
            diagnostics.add(Diagnostic.warning(NAME, CLASS_INFINIBAND, null, "cannot list: " + e.getMessage()
                    + "; the fabric is not known"));
            return null;
        }
        List<Fabric.RdmaDevice> devices = new ArrayList<>();
        List<List<String>> places = new ArrayList<>();
        int virtualFunctions = 0;
        for (String name : names) {
            if (!DEVICE_NAME.matcher(name).matches()) {
                diagnostics.add(Diagnostic.warning(NAME, CLASS_INFINIBAND + "/" + name, null,
                        "not an RDMA device name (expected mlx5_0); skipped"));
                continue;
            }
            try {
                String[] place = new String[1];
                Fabric.RdmaDevice d = device(source, name, place, diagnostics);
                if (d == null) {
                    virtualFunctions++;
                } else {
                    devices.add(d);
                    places.add(place[0] == null ? List.of() : PcieAffinity.place(place[0]));
                }
            } catch (IOException e) {
                diagnostics.add(Diagnostic.warning(NAME, CLASS_INFINIBAND + "/" + name, null, "cannot read: " + e.getMessage()));
            }
        }
        if (virtualFunctions > 0) {
            diagnostics.add(Diagnostic.info(NAME, CLASS_INFINIBAND, virtualFunctions + " RDMA device"
                    + (virtualFunctions == 1 ? " of an SR-IOV virtual function is" : "s of SR-IOV virtual functions are")
                    + " left out: their physical functions describe the fabric"));
        }
        Fabric.GpuDirectRdma gpuDirect = GpuDirectRdmaCheck.judge(source, gpus, devices, diagnostics);
        List<Fabric.NearestNic> nearest = new ArrayList<>();
        for (Gpu g : gpus) {
            if (g.pciAddress() == null || devices.isEmpty()) {
                continue;
            }
            try {
                Optional<String> link = source.readLink(SysfsPciProbe.PCI_DEVICES + "/" + g.pciAddress());
                if (link.isEmpty()) {
                    continue;
                }
                Fabric.NearestNic n = PcieAffinity.nearest(g.pciAddress().toString(), PcieAffinity.place(link.get()),
                        g.numaNode(), devices, places);
                if (n != null) {
                    nearest.add(n);
                }
            } catch (IOException e) {
                diagnostics.add(Diagnostic.warning(NAME, SysfsPciProbe.PCI_DEVICES + "/" + g.pciAddress(), null,
                        "cannot read where the GPU sits: " + e.getMessage()));
            }
        }
        return new Fabric(devices, gpuDirect, nearest);
    }

    /**
     * One device; {@code place[0]} gets the path of its PCI function under {@code /sys/devices}. Null for the device of
     * an SR-IOV virtual function on a host that has its physical function ({@code physfn} link): a node with 16 VFs a
     * NIC would list each, and the PF's ports say the link layer and rate they share.
     */
    private static Fabric.RdmaDevice device(Source source, String name, String[] place, List<Diagnostic> diagnostics)
            throws IOException {
        String classEntry = CLASS_INFINIBAND + "/" + name;
        Optional<String> link = source.readLink(classEntry);
        // Older kernels made class entries folders; the files are then read there.
        String dir = link.map(l -> resolve(CLASS_INFINIBAND, l)).orElse(classEntry);
        String function = functionFolder(dir);
        PciAddress address = function == null ? null
                : PciAddress.parse(function.substring(function.lastIndexOf('/') + 1)).orElse(null);
        if (address == null && link.isEmpty()) {
            // No link to follow: the device link names the function.
            Optional<String> device = source.readLink(classEntry + "/device");
            if (device.isPresent()) {
                address = PciAddress.parse(device.get().substring(device.get().lastIndexOf('/') + 1)).orElse(null);
                if (address != null) {
                    function = source.readLink(SysfsPciProbe.PCI_DEVICES + "/" + address)
                            .map(l -> resolve(SysfsPciProbe.PCI_DEVICES, l)).orElse(null);
                }
            }
        }
        String kernelDriver = null;
        Integer numa = null;
        String root = null;
        if (address != null && function != null) {
            if (source.readLink(function + "/physfn").isPresent()) {
                return null;
            }
            place[0] = function;
            root = PcieAffinity.place(function).isEmpty() ? null : PcieAffinity.place(function).get(0);
            numa = numaNode(source, function + "/numa_node", diagnostics);
            kernelDriver = source.readLink(function + "/driver").map(t -> t.substring(t.lastIndexOf('/') + 1)).orElse(null);
        }
        List<Fabric.RdmaPort> ports = new ArrayList<>();
        boolean ethernet = false;
        for (String port : source.list(dir + "/ports")) {
            if (!PORT.matcher(port).matches()) {
                continue;
            }
            Fabric.RdmaPort p = port(source, dir + "/ports/" + port, Integer.parseInt(port), diagnostics);
            ethernet |= p.kind() == Fabric.Kind.ROCE;
            ports.add(p);
        }
        // Only an Ethernet port needs the node type (RoCE on a channel adapter, iWARP on an RNIC): one read saved a device.
        if (ethernet && source.readFile(dir + "/node_type").map(t -> t.strip().startsWith("4")).orElse(false)) {
            ports.replaceAll(p -> p.kind() != Fabric.Kind.ROCE ? p : new Fabric.RdmaPort(p.port(), Fabric.Kind.IWARP,
                    p.linkLayer(), p.state(), p.physState(), p.rateGbps(), p.rate()));
        }
        return new Fabric.RdmaDevice(name, address == null ? null : address.toString(), kernelDriver, numa, root, ports);
    }

    /** One port; an Ethernet one is RoCE until the device's node type says iWARP. */
    private static Fabric.RdmaPort port(Source source, String dir, int number, List<Diagnostic> diagnostics) {
        String linkLayer = text(source, dir + "/link_layer", diagnostics);
        String state = state(source, dir + "/state", diagnostics);
        String physState = state(source, dir + "/phys_state", diagnostics);
        Double gbps = null;
        String rate = null;
        String rateText = text(source, dir + "/rate", diagnostics);
        if (rateText != null) {
            Matcher m = RATE.matcher(rateText);
            if (m.matches()) {
                gbps = Double.parseDouble(m.group(1));
                rate = m.group(2);
            } else {
                diagnostics.add(Diagnostic.warning(NAME, dir + "/rate", 1, "expected a rate such as '400 Gb/sec (4X NDR)', found '"
                        + abbreviate(rateText) + "'"));
            }
        }
        return new Fabric.RdmaPort(number, kind(linkLayer, false), linkLayer, state, physState, gbps, rate);
    }

    /** InfiniBand, RoCE (Ethernet on a channel adapter), iWARP (Ethernet on an RNIC), or other; null when not said. */
    static Fabric.Kind kind(String linkLayer, boolean rnic) {
        if (linkLayer == null) {
            return null;
        }
        return switch (linkLayer.toLowerCase(Locale.ROOT)) {
            case "infiniband" -> Fabric.Kind.INFINIBAND;
            case "ethernet" -> rnic ? Fabric.Kind.IWARP : Fabric.Kind.ROCE;
            default -> Fabric.Kind.OTHER;
        };
    }

    /** A state file ({@code 4: ACTIVE}) as its word, lower-case; null when absent or unreadable. */
    private static String state(Source source, String path, List<Diagnostic> diagnostics) {
        String text = text(source, path, diagnostics);
        if (text == null) {
            return null;
        }
        Matcher m = STATE.matcher(text);
        if (!m.matches()) {
            diagnostics.add(Diagnostic.warning(NAME, path, 1, "expected a port state such as '4: ACTIVE', found '"
                    + abbreviate(text) + "'"));
            return null;
        }
        return m.group(1).toLowerCase(Locale.ROOT);
    }

    /**
     * A small file's text, stripped; null when absent, blank or unreadable (a port's {@code rate} read while its
     * link is down can fail with EINVAL: a note, not a fault).
     */
    private static String text(Source source, String path, List<Diagnostic> diagnostics) {
        try {
            String v = source.readFile(path).map(String::strip).orElse(null);
            return v == null || v.isEmpty() || v.length() > 64 ? null : v;
        } catch (IOException e) {
            diagnostics.add(Diagnostic.info(NAME, path, null, "cannot read: " + e.getMessage()));
            return null;
        }
    }

    private static Integer numaNode(Source source, String path, List<Diagnostic> diagnostics) {
        String v = text(source, path, diagnostics);
        if (v == null) {
            return null;
        }
        if (!v.matches("-?\\d{1,4}")) {
            diagnostics.add(Diagnostic.warning(NAME, path, 1, "expected a NUMA node (0 to 4095, or -1 for none), found '"
                    + abbreviate(v) + "'"));
            return null;
        }
        int node = Integer.parseInt(v);
        return node < 0 ? null : node;
    }

    /**
     * The PCI function folder above {@code infiniband/<name>} in a resolved device folder, past one auxiliary
     * device folder where a driver puts one between ({@code 0000:01:00.0/bnxt_en.rdma.0/infiniband/bnxt_re0});
     * null when there is none (a software device under {@code devices/virtual}).
     */
    static String functionFolder(String deviceDir) {
        int at = deviceDir.lastIndexOf("/infiniband/");
        if (at < 0) {
            return null;
        }
        String folder = deviceDir.substring(0, at);
        for (int i = 0; i < 2 && folder.lastIndexOf('/') > 0; i++) {
            if (PciAddress.parse(folder.substring(folder.lastIndexOf('/') + 1)).isPresent()) {
                return folder;
            }
            folder = folder.substring(0, folder.lastIndexOf('/'));
        }
        return null;
    }

    /** A link's target, relative to the folder holding the link, as an absolute path, {@code ..} resolved. */
    static String resolve(String folder, String target) {
        if (target.startsWith("/")) {
            return java.nio.file.Path.of(target).normalize().toString();
        }
        return java.nio.file.Path.of(folder).resolve(target).normalize().toString();
    }

    static String abbreviate(String s) {
        String t = s.strip().replaceAll("\\p{Cntrl}", "?");
        return t.length() > 40 ? t.substring(0, 40) + "..." : t;
    }
}
