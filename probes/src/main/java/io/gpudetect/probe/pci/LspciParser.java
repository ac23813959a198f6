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
    /**
     * {@code lspci -m}/{@code -mm} (machine-readable, one line a function, what scripts pipe through grep and awk):
     * the slot, then quoted fields, {@code 01:00.0 "VGA compatible controller" "NVIDIA Corporation" "Device 2684"
     * -ra1 -p00 "Gigabyte Technology Co., Ltd" "Device 40bf"}, each with its {@code [id]} under {@code -nn}.
     */
    private static final Pattern MACHINE_LINE = Pattern.compile(
            "^((?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7])\\s+(\"[^\"]*\"(?:\\s.*)?)$");
    private static final Pattern MACHINE_TOKEN = Pattern.compile("\"([^\"]*)\"|-r([0-9a-fA-F]{2})\\b|(\\S+)");
    /**
     * A function line whose slot a pipeline cut off ({@code lspci | cut -d' ' -f2-}): the class, a colon, the
     * description. Only display classes, which a pipeline that looks for GPUs keeps; such a card has no address.
     */
    private static final Pattern SLOTLESS_LINE = Pattern.compile(
            "(?i)^((?:VGA compatible|3D|Display) controller)(?:\\s+\\[([0-9a-fA-F]{4})])?:\\s+(.*)$");
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
        String currentIndent = "";
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            // A function line may be indented: pasted under the command that made it ("$ lspci | grep VGA", then each
            // line with a tab before it) or quoted in a post. lspci itself never indents one, and no detail line starts
            // with a slot, so a line that does is a function whatever its indentation; its -v details are one tab deeper.
            String text = line.stripLeading();
            String indent = line.substring(0, line.length() - text.length());
            text = withoutStrayQuotes(text.stripTrailing());
            Function machine = machineReadable(text, i + 1);
            if (machine != null) {
                functions.add(machine);
                current = null;
                continue;
            }
            Matcher m = DEVICE_LINE.matcher(text);
            Matcher slotless = m.matches() ? null : SLOTLESS_LINE.matcher(text);
            if (m.matches() || slotless.matches()) {
                PciAddress address = null;
                if (m.matches()) {
                    Optional<PciAddress> parsed = PciAddress.parse(m.group(1));
                    if (parsed.isEmpty()) {
                        current = null;
                        continue;
                    }
                    address = parsed.get();
                }
                current = new Function(address, i + 1);
                currentIndent = indent;
                current.className = (m.matches() ? m.group(2) : slotless.group(1)).strip();
                String code = m.matches() ? m.group(3) : slotless.group(2);
                current.classCode = code == null ? null : code.toLowerCase(Locale.ROOT);
                String rest = m.matches() ? m.group(4) : slotless.group(3);
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
            } else if (current != null && isDetail(line, currentIndent)) {
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
     * A {@code -v} detail of the function above: one tab deeper than the function line, or (a listing pasted with
     * its function lines indented by spaces) one tab from the margin.
     */
    private static boolean isDetail(String line, String functionIndent) {
        return (line.startsWith(functionIndent + "\t") && !line.startsWith(functionIndent + "\t\t"))
                || (line.startsWith("\t") && !line.startsWith("\t\t"));
    }

    /**
     * The line without quotes a pipeline put around it or its fields ({@code awk '{print "\""$0"\""}'}, a listing
     * pasted as a quoted string): quote marks are never part of a slot, class or pci.ids name. Left alone where it is
     * {@code -m}'s quoted fields, which {@link #machineReadable} reads.
     */
    private static String withoutStrayQuotes(String text) {
        if (text.indexOf('"') < 0 && text.indexOf('\'') < 0) {
            return text;
        }
        String t = text;
        if (t.length() > 1 && (t.charAt(0) == '"' || t.charAt(0) == '\'')) {
            t = t.substring(1).strip();
        }
        if (MACHINE_LINE.matcher(t).matches()) {
            return t;
        }
        return t.replace("\"", " ").replace("'", " ").replaceAll("\\s{2,}", " ").strip();
    }

    /** One {@code lspci -m} line as a function, or null where the line is not one. */
    private static Function machineReadable(String text, int line) {
        Matcher m = MACHINE_LINE.matcher(text);
        if (!m.matches()) {
            return null;
        }
        Optional<PciAddress> address = PciAddress.parse(m.group(1));
        if (address.isEmpty()) {
            return null;
        }
        List<String> quoted = new ArrayList<>();
        String revision = null;
        Matcher t = MACHINE_TOKEN.matcher(m.group(2));
        while (t.find()) {
            if (t.group(1) != null) {
                quoted.add(t.group(1).strip());
            } else if (t.group(2) != null) {
                revision = t.group(2).toLowerCase(Locale.ROOT);
            }
        }
        if (quoted.size() < 3) {
            return null;
        }
        Function f = new Function(address.get(), line);
        String[] cls = splitId(quoted.get(0));
        f.className = cls[0];
        f.classCode = cls[1];
        String[] vendor = splitId(quoted.get(1));
        f.vendorName = vendor[0];
        f.vendorId = vendor[1];
        String[] device = splitId(quoted.get(2));
        f.description = device[0];
        f.deviceId = device[1];
        if (quoted.size() >= 5) {
            f.subsystemVendorId = splitId(quoted.get(3))[1];
            f.subsystemDeviceId = splitId(quoted.get(4))[1];
        }
        f.revision = revision;
        return f;
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
        if (f.address == null) {
            // A slot a pipeline cut off: nothing tells an integrated GPU by its place on the bus.
            return b.build();
        }
        List<String> siblingVendors = all.stream()
                .filter(o -> o != f && o.address != null && o.address.domain() == f.address.domain() && o.address.bus() == f.address.bus()
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
