package io.gpudetect.probe.pci;

import io.gpudetect.model.PciAddress;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the PCI bus says about a function, shared by the sysfs and lspci probes: whether it is a GPU,
 * who made it when only a vendor name is printed, and whether it is an integrated GPU.
 */
final class PciClass {

    /** VGA, 3D and other display controllers. */
    private static final Set<String> DISPLAY_CLASSES = Set.of("0300", "0302", "0380");
    /** Processing accelerators (0x1200) are GPUs only from GPU vendors; Intel's and others' are NPUs. */
    private static final String ACCELERATOR_CLASS = "1200";
    private static final Set<String> ACCELERATOR_GPU_VENDORS = Set.of("10de", "1002");
    private static final String AMD_CPU_VENDOR = "1022";

    /** Vendor names lspci prints, longest first where one is a prefix of another, with their PCI ids. */
    private static final Map<String, String> VENDOR_NAMES = Map.ofEntries(
            Map.entry("nvidia corporation", "10de"),
            Map.entry("advanced micro devices, inc. [amd/ati]", "1002"),
            Map.entry("advanced micro devices, inc. [amd]", "1022"),
            Map.entry("ati technologies inc", "1002"),
            Map.entry("intel corporation", "8086"),
            Map.entry("aspeed technology, inc.", "1a03"),
            Map.entry("cirrus logic", "1013"),
            Map.entry("matrox electronics systems ltd.", "102b"),
            Map.entry("vmware", "15ad"),
            Map.entry("innotek systemberatung gmbh", "80ee"),
            Map.entry("microsoft corporation", "1414"));
    private static final Pattern UNNAMED_DEVICE = Pattern.compile("(?i)^device ([0-9a-f]{4}):([0-9a-f]{4})");
    private static final Pattern UNNAMED_DEVICE_ONLY = Pattern.compile("(?i)^Device ([0-9a-f]{4})(?:\\s*\\(rev [0-9a-f]{2}\\))?$");
    private static final Pattern SINGLE_PRODUCT = Pattern.compile("^.*?\\[([^\\[\\]/]+)]$");

    private PciClass() {
    }

    /**
     * @param classCode 4 hex digits of class and subclass ({@code 0300}), or null when not printed
     * @param className lspci's class words, used when there is no code
     */
    static boolean isGpuCandidate(String classCode, String className, String vendorId) {
        String code = classCode;
        if (code == null && className != null) {
            String c = className.toLowerCase(Locale.ROOT);
            if (c.startsWith("vga compatible controller") || c.startsWith("3d controller") || c.startsWith("display controller")) {
                return true;
            }
            code = c.startsWith("processing accelerators") ? ACCELERATOR_CLASS : null;
        }
        if (code == null) {
            return false;
        }
        code = code.toLowerCase(Locale.ROOT).replaceFirst("^0x", "");
        code = code.length() >= 4 ? code.substring(0, 4) : code;
        if (DISPLAY_CLASSES.contains(code)) {
            return true;
        }
        return code.equals(ACCELERATOR_CLASS) && vendorId != null && ACCELERATOR_GPU_VENDORS.contains(vendorId);
    }

    /** The PCI vendor id for the vendor name a description starts with, or null. */
    static String vendorIdFromName(String description) {
        if (description == null) {
            return null;
        }
        String d = description.toLowerCase(Locale.ROOT);
        Matcher unnamed = UNNAMED_DEVICE.matcher(d);
        if (unnamed.find()) {
            return unnamed.group(1);
        }
        String best = null;
        int bestLength = 0;
        for (Map.Entry<String, String> e : VENDOR_NAMES.entrySet()) {
            if (d.startsWith(e.getKey()) && e.getKey().length() > bestLength) {
                best = e.getValue();
                bestLength = e.getKey().length();
            }
        }
        if (best == null && d.startsWith("red hat, inc.")) {
            // Red Hat owns two ids: 1af4 (virtio) and 1b36 (QXL and other QEMU devices); both are emulated.
            return d.contains("virtio") ? "1af4" : "1b36";
        }
        return best;
    }

    /** The description without the vendor name lspci puts in front of it. */
    static String withoutVendor(String description) {
        if (description == null) {
            return null;
        }
        String d = description.toLowerCase(Locale.ROOT);
        int cut = 0;
        for (String name : VENDOR_NAMES.keySet()) {
            if (d.startsWith(name) && name.length() > cut) {
                cut = name.length();
            }
        }
        if (cut == 0 && d.startsWith("red hat, inc.")) {
            cut = "red hat, inc.".length();
        }
        String rest = description.substring(cut).strip();
        return rest.isEmpty() ? description.strip() : rest;
    }

    /**
     * The device id in {@code Device 74a0}, which lspci prints without {@code -nn} for a device its pci.ids does
     * not name (the vendor named before it); null for any other description.
     */
    static String unnamedDeviceId(String descriptionWithoutVendor) {
        if (descriptionWithoutVendor == null) {
            return null;
        }
        Matcher m = UNNAMED_DEVICE_ONLY.matcher(descriptionWithoutVendor.strip());
        return m.matches() ? m.group(1).toLowerCase(Locale.ROOT) : null;
    }

    /**
     * A pci.ids device name as a product name: {@code AD102 [GeForce RTX 4090]} is {@code GeForce RTX 4090};
     * a list of alternatives ({@code Vega 20 [Radeon Pro VII/Radeon Instinct MI50 32GB]}) stays whole.
     */
    static String productName(String deviceName) {
        if (deviceName == null || deviceName.isBlank()) {
            return null;
        }
        Matcher m = SINGLE_PRODUCT.matcher(deviceName.strip());
        return m.matches() ? m.group(1).strip() : deviceName.strip();
    }

    /**
     * Integrated GPUs use system memory: Intel's sit on the root bus (00:02.0), and an AMD APU's GPU shares
     * its PCI device with functions of AMD's CPU-side vendor id 1022 (security processor, USB, audio),
     * which a discrete card never does.
     */
    static boolean isIntegrated(String vendorId, PciAddress address, List<String> siblingVendorIds) {
        if ("8086".equals(vendorId) && address.bus() == 0) {
            return true;
        }
        return "1002".equals(vendorId) && siblingVendorIds.contains(AMD_CPU_VENDOR);
    }
}
