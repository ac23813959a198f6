package io.gpudetect.probe.pci;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.PcieLink;
import io.gpudetect.model.PowerLimits;
import io.gpudetect.source.Source;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the kernel writes in a PCI function's folder for every vendor, driver bound or not: the PCIe link
 * ({@code current_link_speed}, {@code max_link_speed}, {@code current_link_width}, {@code max_link_width}), the
 * NUMA node ({@code numa_node}) and, from where the bus's link for the function points, its PCIe root; and what
 * a kernel GPU driver (amdgpu, i915, xe) adds under {@code hwmon/hwmonN}: the power cap, its range and default.
 * Each reader returns null for a file that is absent or says "unknown", with a diagnostic only for text that is
 * neither a value nor a known way of saying none.
 */
final class PciFunctionFacts {

    /** {@code 16.0 GT/s PCIe} (kernels since 5.x), {@code 8 GT/s} or {@code 8.0 GT/s} (older ones). */
    private static final Pattern SPEED = Pattern.compile("(\\d{1,3}(?:\\.\\d{1,2})?) ?GT/s(?: PCIe)?");
    /** The first folder under {@code /sys/devices} that names a PCI root: {@code pci0000:00}, {@code pci10000:00}. */
    private static final Pattern ROOT = Pattern.compile("pci[0-9a-f]{4,8}:[0-9a-f]{2}");
    private static final Pattern INTEGER = Pattern.compile("-?\\d{1,10}");
    /** Widths a PCIe link can have (x12 and x32 exist in the specification, rarely in silicon). */
    private static final List<Integer> WIDTHS = List.of(1, 2, 4, 8, 12, 16, 32);

    private PciFunctionFacts() {
    }

    /**
     * The PCIe link from the four sysfs files; null when the function has none of them (no PCIe capability: a
     * conventional PCI device, some emulated functions in VMs). A speed of {@code Unknown} and a width of
     * {@code 0} (link down) or one no link has ({@code 255}, what some virtual functions show) are unknown.
     */
    static PcieLink link(Source source, String dir, String probe, List<Diagnostic> diagnostics) throws IOException {
        Integer currentGen = generation(source, dir + "/current_link_speed", probe, diagnostics);
        Integer maxGen = generation(source, dir + "/max_link_speed", probe, diagnostics);
        Integer currentWidth = width(source, dir + "/current_link_width", probe, diagnostics);
        Integer maxWidth = width(source, dir + "/max_link_width", probe, diagnostics);
        PcieLink link = new PcieLink(currentGen, maxGen, currentWidth, maxWidth);
        return link.isEmpty() ? null : link;
    }

    /** A {@code *_link_speed} file as a PCIe generation. */
    static Integer generation(Source source, String path, String probe, List<Diagnostic> diagnostics) throws IOException {
        Optional<String> text = source.readFile(path);
        if (text.isEmpty()) {
            return null;
        }
        return generationOf(text.get(), path, probe, diagnostics);
    }

    static Integer generationOf(String text, String path, String probe, List<Diagnostic> diagnostics) {
        String v = text.strip();
        if (v.isEmpty() || v.regionMatches(true, 0, "Unknown", 0, 7)) {
            return null;
        }
        Matcher m = SPEED.matcher(v);
        Integer gen = m.matches() ? PcieLink.generationOf(Double.parseDouble(m.group(1))) : null;
        if (gen == null) {
            diagnostics.add(Diagnostic.warning(probe, path, 1, "expected a PCIe link speed (2.5 GT/s to 128.0 GT/s PCIe"
                    + " or Unknown), found '" + abbreviate(text) + "'"));
        }
        return gen;
    }

    /** A {@code *_link_width} file as a lane count. */
    static Integer width(Source source, String path, String probe, List<Diagnostic> diagnostics) throws IOException {
        Optional<String> text = source.readFile(path);
        if (text.isEmpty()) {
            return null;
        }
        String v = text.get().strip();
        if (!INTEGER.matcher(v).matches()) {
            diagnostics.add(Diagnostic.warning(probe, path, 1, "expected a PCIe link width (1 to 32 lanes), found '"
                    + abbreviate(text.get()) + "'"));
            return null;
        }
        int lanes = Integer.parseInt(v);
        // 0: the link is down or the kernel could not read it; 255 and other values: no real link (a virtual function).
        return WIDTHS.contains(lanes) ? lanes : null;
    }

    /** {@code numa_node}: the node, or null for {@code -1} (no NUMA, or the firmware does not say). */
    static Integer numaNode(Source source, String dir, String probe, List<Diagnostic> diagnostics) throws IOException {
        String path = dir + "/numa_node";
        Optional<String> text = source.readFile(path);
        if (text.isEmpty()) {
            return null;
        }
        String v = text.get().strip();
        if (!INTEGER.matcher(v).matches() || Long.parseLong(v) < -1 || Long.parseLong(v) > 4095) {
            diagnostics.add(Diagnostic.warning(probe, path, 1, "expected a NUMA node (0 to 4095, or -1 for none), found '"
                    + abbreviate(text.get()) + "'"));
            return null;
        }
        int node = Integer.parseInt(v);
        return node < 0 ? null : node;
    }

    /**
     * The PCIe root as Kubernetes' {@code deviceattribute} package computes {@code resource.kubernetes.io/pcieRoot}:
     * the first folder under {@code /sys/devices} of the path the function's link in {@code /sys/bus/pci/devices}
     * leads to ({@code ../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0} gives {@code pci0000:00}). Where that
     * first folder is no PCI root (a Hyper-V guest: {@code devices/LNXSYSTM:00/.../VMBUS:00/<guid>/pci7870:00/...}),
     * the first folder that is one; Kubernetes' helper would give the ACPI folder there, which names no root.
     */
    static String pcieRoot(String linkTarget) {
        String[] parts = linkTarget.split("/");
        for (int i = 0; i < parts.length - 1; i++) {
            if (parts[i].equals("devices")) {
                for (int j = i + 1; j < parts.length; j++) {
                    if (ROOT.matcher(parts[j]).matches()) {
                        return parts[j];
                    }
                }
                return null;
            }
        }
        return null;
    }

    /**
     * Where an AMD card's PCIe link is read. Radeon cards since Navi 10 (and Instinct cards built the same way) hold
     * their own PCIe switch: the GPU function sits below the switch's downstream port, below its upstream port, and
     * only the upstream port's link files describe the slot; the GPU's own say what the internal link can do
     * (16.0 GT/s x16 on a card that runs at 8.0 GT/s x8: amdgpu-sysfs-rs #6, nokyan/resources #512). So when the
     * function's parent and grandparent are AMD PCI bridges (class 0604, vendor 1002), the grandparent's folder;
     * otherwise the function's own.
     */
    static String amdLinkFolder(Source source, String function, String linkTarget) throws IOException {
        if (linkTarget == null) {
            return function;
        }
        String[] parts = linkTarget.split("/");
        if (parts.length < 3) {
            return function;
        }
        String downstream = parts[parts.length - 2];
        String upstream = parts[parts.length - 3];
        if (isAmdBridge(source, downstream) && isAmdBridge(source, upstream)) {
            return SysfsPciProbe.PCI_DEVICES + "/" + upstream;
        }
        return function;
    }

    private static boolean isAmdBridge(Source source, String name) throws IOException {
        if (!name.matches("[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]")) {
            return false;
        }
        String dir = SysfsPciProbe.PCI_DEVICES + "/" + name;
        return source.readFile(dir + "/vendor").map(v -> v.strip().equalsIgnoreCase("0x1002")).orElse(false)
                && source.readFile(dir + "/class").map(c -> c.strip().toLowerCase(java.util.Locale.ROOT).startsWith("0x0604"))
                        .orElse(false);
    }

    /**
     * The power cap and its range from the first {@code hwmon/hwmonN} folder that has one. amdgpu writes
     * {@code power1_cap} with {@code power1_cap_min}, {@code power1_cap_max} and (kernels since 6.6)
     * {@code power1_cap_default}; i915 and xe write the cap as {@code power1_max} and the card's default as
     * {@code power1_rated_max}. All are microwatts. The cap in force goes into {@code capWatts[0]}; null when no hwmon folder
     * has one.
     */
    static PowerLimits hwmonPower(Source source, String dir, String probe, Double[] capWatts, List<Diagnostic> diagnostics)
            throws IOException {
        for (String hwmon : source.list(dir + "/hwmon")) {
            String h = dir + "/hwmon/" + hwmon;
            Double cap = microwatts(source, h + "/power1_cap", probe, diagnostics);
            Double intelCap = cap == null ? microwatts(source, h + "/power1_max", probe, diagnostics) : null;
            Double min = microwatts(source, h + "/power1_cap_min", probe, diagnostics);
            Double max = microwatts(source, h + "/power1_cap_max", probe, diagnostics);
            Double dflt = microwatts(source, h + "/power1_cap_default", probe, diagnostics);
            if (dflt == null && cap == null) {
                dflt = microwatts(source, h + "/power1_rated_max", probe, diagnostics);
            }
            Double inForce = cap != null ? cap : intelCap;
            if (inForce == null && min == null && max == null && dflt == null) {
                continue;
            }
            capWatts[0] = inForce;
            return new PowerLimits(min, max, dflt);
        }
        return null;
    }

    /**
     * A hwmon power file in microwatts, as watts; null when absent or 0 (i915 writes 0 for "no limit" in
     * {@code power1_max} and amdgpu 0 where the firmware gives no range).
     */
    private static Double microwatts(Source source, String path, String probe, List<Diagnostic> diagnostics) throws IOException {
        Optional<String> text = source.readFile(path);
        if (text.isEmpty()) {
            return null;
        }
        String v = text.get().strip();
        if (!v.matches("\\d{1,15}")) {
            diagnostics.add(Diagnostic.warning(probe, path, 1, "expected a power in microwatts, found '"
                    + abbreviate(text.get()) + "'"));
            return null;
        }
        long uw = Long.parseLong(v);
        return uw == 0 ? null : uw / 1_000_000.0;
    }

    /** amdgpu's {@code vbios_version}: the board's firmware image ({@code 113-D67301-063}); null when absent or blank. */
    static String vbiosVersion(Source source, String dir) throws IOException {
        return source.readFile(dir + "/vbios_version").map(String::strip)
                .filter(v -> !v.isEmpty() && v.length() <= 64 && v.chars().noneMatch(Character::isISOControl)).orElse(null);
    }

    static String abbreviate(String s) {
        String t = s.strip().replaceAll("\\p{Cntrl}", "?");
        return t.length() > 40 ? t.substring(0, 40) + "..." : t;
    }
}
