package io.gpudetect.probe.pci;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.HexId;
import io.gpudetect.probe.ParsedOutput;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code lspci} as people paste it: one line per function ({@code -nn} adds {@code [0300]} class and
 * {@code [10de:2684]} ids, {@code -D} the domain), with {@code -v}/{@code -vv} detail lines indented by a
 * tab, or {@code -vmm} records ({@code Slot:}, {@code Class:}, ...) separated by blank lines. Without
 * {@code -D}, lspci leaves out the domain only when it is 0000.
 *
 * <p>Display functions (VGA, 3D, display controllers; processing accelerators of GPU vendors) become GPUs
 * with whatever ids, name, revision and bound driver the listing shows. A region size is a BAR, never VRAM.
 */
public final class LspciParser {

    public static final String PROBE = "lspci";

    private static final Pattern DEVICE_LINE = Pattern.compile(
            "^((?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7])\\s+(.+?)(?:\\s+\\[([0-9a-fA-F]{4})])?:\\s+(.*)$");
    private static final Pattern IDS = Pattern.compile("\\[([0-9a-fA-F]{4}):([0-9a-fA-F]{4})]");
    private static final Pattern REV = Pattern.compile("\\(rev ([0-9a-fA-F]{2})\\)");
    private static final Pattern TRAILER = Pattern.compile("\\s*\\((rev [0-9a-fA-F]{2}|prog-if [^)]*\\]?)\\)");
    private static final Pattern VMM_FIELD = Pattern.compile("^(\\w+):\\s*(.*?)\\s*$");
    private static final Pattern TRAILING_ID = Pattern.compile("^(.*?)\\s*\\[([0-9a-fA-F]{4})]$");
    /**
     * What {@code lspci -nn} prints for a device its pci.ids does not know: {@code Device [10de:26b9]}, the ids
     * already taken off. Not a name: the tables name it from the ids. (Without {@code -nn} it is
     * {@code Device 26b9}, which the normaliser already reads as a placeholder that carries the id.)
     */
    private static final Pattern UNNAMED = Pattern.compile("(?i)^Device$");

    private LspciParser() {
    }

    public static ParsedOutput parse(String text, String file) {
        String[] lines = text.split("\r?\n", -1);
        List<Function> functions = new ArrayList<>();
        boolean vmm = false;
        for (String line : lines) {
            if (line.startsWith("Slot:")) {
                vmm = true;
                break;
            }
        }
        if (vmm) {
            readVmm(lines, functions);
        } else {
            readListing(lines, functions);
        }
        List<Diagnostic> diagnostics = new ArrayList<>();
        if (functions.isEmpty()) {
            diagnostics.add(Diagnostic.error(PROBE, file, null,
                    "no PCI function lines ('01:00.0 VGA compatible controller: ...' or '-vmm' records); expected lspci output"));
            return new ParsedOutput(List.of(), diagnostics);
        }
        List<Gpu> gpus = new ArrayList<>();
        for (Function f : functions) {
            // Without -nn the vendor is known only by name, which decides whether an accelerator is a GPU.
            String vendorId = f.vendorId != null ? f.vendorId
                    : PciClass.vendorIdFromName(f.vendorName != null ? f.vendorName : f.description);
            if (!PciClass.isGpuCandidate(f.classCode, f.className, vendorId)) {
                continue;
            }
            gpus.add(toGpu(f, functions));
        }
        return new ParsedOutput(gpus, diagnostics);
    }

    private static void readListing(String[] lines, List<Function> functions) {
        Function current = null;
        boolean indentedListing = everyFunctionLineIndented(lines);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (indentedListing) {
                // Pasted with every line indented ("lspci | grep VGA" quoted in a post with a tab before each line):
                // one level comes off, so function lines start the line again and -v details keep their tab.
                line = outdentOnce(line);
            }
            Matcher m = DEVICE_LINE.matcher(line);
            if (m.matches()) {
                Optional<PciAddress> address = PciAddress.parse(m.group(1));
                if (address.isEmpty()) {
                    current = null;
                    continue;
                }
                current = new Function(address.get(), i + 1);
                current.className = m.group(2).strip();
                current.classCode = m.group(3) == null ? null : m.group(3).toLowerCase(Locale.ROOT);
                String rest = m.group(4);
                Matcher rev = REV.matcher(rest);
                if (rev.find()) {
                    current.revision = rev.group(1).toLowerCase(Locale.ROOT);
                }
                rest = TRAILER.matcher(rest).replaceAll("").strip();
                Matcher ids = IDS.matcher(rest);
                String lastIds = null;
                int lastAt = -1;
                while (ids.find()) {
                    lastIds = ids.group();
                    lastAt = ids.start();
                    current.vendorId = ids.group(1).toLowerCase(Locale.ROOT);
                    current.deviceId = ids.group(2).toLowerCase(Locale.ROOT);
                }
                if (lastIds != null && lastAt + lastIds.length() == rest.length()) {
                    rest = rest.substring(0, lastAt).strip();
                }
                current.description = rest;
                functions.add(current);
            } else if (current != null && line.startsWith("\t") && !line.startsWith("\t\t")) {
                String detail = line.strip();
                if (detail.startsWith("Subsystem:")) {
                    Matcher ids = IDS.matcher(detail);
                    String sv = null;
                    String sd = null;
                    while (ids.find()) {
                        sv = ids.group(1).toLowerCase(Locale.ROOT);
                        sd = ids.group(2).toLowerCase(Locale.ROOT);
                    }
                    current.subsystemVendorId = sv;
                    current.subsystemDeviceId = sd;
                } else if (detail.startsWith("Kernel driver in use:")) {
                    current.driver = detail.substring("Kernel driver in use:".length()).strip();
                }
            } else if (!line.isBlank() && !line.startsWith("\t") && !line.startsWith(" ")) {
                current = null;
            }
        }
    }

    /**
     * Whether the listing was pasted indented: at least one line is an indented function line
     * ({@code \t01:00.0 VGA ...}) and no function line starts at the margin. lspci itself never indents one.
     */
    private static boolean everyFunctionLineIndented(String[] lines) {
        boolean indented = false;
        for (String line : lines) {
            if (line.isBlank()) {
                continue;
            }
            boolean function = DEVICE_LINE.matcher(line.stripLeading()).matches();
            if (function && !Character.isWhitespace(line.charAt(0))) {
                return false;
            }
            indented |= function;
        }
        return indented;
    }

    /** One tab, or the spaces before the text, off an indented function line; one tab off a detail line. */
    private static String outdentOnce(String line) {
        if (line.startsWith("\t")) {
            return line.substring(1);
        }
        String stripped = line.stripLeading();
        return DEVICE_LINE.matcher(stripped).matches() ? stripped : line;
    }

    private static void readVmm(String[] lines, List<Function> functions) {
        Map<String, String> record = new LinkedHashMap<>();
        int start = 0;
        for (int i = 0; i <= lines.length; i++) {
            String line = i < lines.length ? lines[i] : "";
            if (line.isBlank()) {
                if (!record.isEmpty()) {
                    Function f = fromVmm(record, start);
                    if (f != null) {
                        functions.add(f);
                    }
                    record.clear();
                }
                continue;
            }
            Matcher m = VMM_FIELD.matcher(line);
            if (m.matches()) {
                if (record.isEmpty()) {
                    start = i + 1;
                }
                record.putIfAbsent(m.group(1), m.group(2));
            }
        }
    }

    private static Function fromVmm(Map<String, String> r, int line) {
        Optional<PciAddress> address = PciAddress.parse(r.get("Slot"));
        if (address.isEmpty()) {
            return null;
        }
        Function f = new Function(address.get(), line);
        String[] cls = splitId(r.get("Class"));
        f.className = cls[0];
        f.classCode = cls[1];
        String[] vendor = splitId(r.get("Vendor"));
        f.vendorName = vendor[0];
        f.vendorId = vendor[1];
        String[] device = splitId(r.get("Device"));
        f.description = device[0];
        f.deviceId = device[1];
        f.subsystemVendorId = splitId(r.get("SVendor"))[1];
        f.subsystemDeviceId = splitId(r.get("SDevice"))[1];
        f.revision = r.get("Rev") == null ? null : HexId.revision(r.get("Rev"));
        f.driver = r.get("Driver");
        return f;
    }

    /** {@code NVIDIA Corporation [10de]} as name and id; the id is null where {@code -nn} was not given. */
    private static String[] splitId(String value) {
        if (value == null) {
            return new String[] {null, null};
        }
        Matcher m = TRAILING_ID.matcher(value.strip());
        return m.matches() ? new String[] {m.group(1), m.group(2).toLowerCase(Locale.ROOT)} : new String[] {value.strip(), null};
    }

    private static Gpu toGpu(Function f, List<Function> all) {
        String vendorId = f.vendorId != null ? f.vendorId : PciClass.vendorIdFromName(f.vendorName != null ? f.vendorName : f.description);
        String product = f.vendorName == null ? PciClass.withoutVendor(f.description) : f.description;
        Gpu.Builder b = Gpu.builder(PROBE)
                .pciAddress(f.address)
                .pciVendorId(vendorId)
                .pciDeviceId(f.deviceId != null ? f.deviceId : PciClass.unnamedDeviceId(product))
                .pciSubsystemVendorId(f.subsystemVendorId)
                .pciSubsystemDeviceId(f.subsystemDeviceId)
                .pciRevision(f.revision)
                .pciClass(f.classCode)
                .kernelDriver(f.driver);
        Vendor vendor = vendorId != null ? Vendor.fromPciVendorId(vendorId) : Vendor.fromName(f.description);
        b.vendor(vendor);
        // A host whose pci.ids predates the card (an L40S on an older cloud image) prints "Device [10de:26b9]":
        // leaving the name out lets the normaliser name it from the ids, where "Device" would become the model.
        b.name(product != null && UNNAMED.matcher(product.strip()).matches() ? null : PciClass.productName(product));
        List<String> siblingVendors = all.stream()
                .filter(o -> o != f && o.address.domain() == f.address.domain() && o.address.bus() == f.address.bus()
                        && o.address.device() == f.address.device())
                .map(o -> o.vendorId != null ? o.vendorId : PciClass.vendorIdFromName(o.vendorName != null ? o.vendorName : o.description))
                .toList();
        if (PciClass.isIntegrated(vendorId, f.address, siblingVendors)) {
            b.sharedMemory(true);
        }
        return b.build();
    }

    private static final class Function {
        final PciAddress address;
        final int line;
        String className;
        String classCode;
        String vendorName;
        String vendorId;
        String deviceId;
        String subsystemVendorId;
        String subsystemDeviceId;
        String revision;
        String description;
        String driver;

        Function(PciAddress address, int line) {
            this.address = address;
            this.line = line;
        }
    }
}
