package io.gpudetect.tables;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The PCI ID list ({@code pci.ids}): names for vendor, device and subsystem ids. The project ships a
 * copy filtered to display vendors; {@link #newer} picks the host's own copy when its version is later.
 */
public final class PciIds {

    private static final int[] NONE = {-1, -1};

    private final String version;
    /**
     * The table. The shipped copy is held as its UTF-8 bytes, one char each (read as ISO-8859-1): ids and layout
     * are ASCII, so it is searched as it is, and only the sections asked for are decoded as UTF-8 (see
     * {@link #shipped}).
     */
    private final String text;
    private final boolean utf8Bytes;
    /** Device entries by vendor and device id, parsed a vendor at a time for the scans by name. */
    private final Map<String, String> devices = new HashMap<>();
    private final java.util.Set<String> parsedVendors = new java.util.HashSet<>();
    /** Where each vendor's section starts and ends in {@link #text}, found on first use; {@link #NONE} when absent. */
    private final Map<String, int[]> sections = new HashMap<>();

    private PciIds(String version, String text, boolean utf8Bytes) {
        this.version = version;
        this.text = text;
        this.utf8Bytes = utf8Bytes;
    }

    /** The copy shipped inside the jar. */
    public static PciIds shipped() {
        try (InputStream in = PciIds.class.getResourceAsStream("pci.ids")) {
            if (in == null) {
                throw new IllegalStateException("pci.ids is missing from the jar");
            }
            // Not decoded as a whole: the table has a few names outside Latin-1, which would make all of its
            // 740 kB two bytes a char, decoded and held by every pass's tables, where a pass reads one or two
            // vendors (docs/performance.md, "Start-up and footprint tricks", row "pci.ids decoded a vendor at a time").
            String bytes = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            return new PciIds(version(bytes), bytes, true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The shipped copy's version, from its header alone: {@code --version} prints it, and read through
     * {@link #shipped} the whole 740 kB table was half of what that command allocated (docs/performance.md, row
     * "--version reads the tables' first lines only"). {@link #version} looks no further than the first 4 kB, a
     * char a byte as {@code shipped} decodes it, so the answer is the same.
     */
    public static String shippedVersion() {
        try (InputStream in = PciIds.class.getResourceAsStream("pci.ids")) {
            if (in == null) {
                throw new IllegalStateException("pci.ids is missing from the jar");
            }
            return version(new String(in.readNBytes(4096), StandardCharsets.ISO_8859_1));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The pci.ids format; malformed lines are skipped, as lspci does. Nothing but the version is read here: a
     * vendor's section is found and parsed when that vendor is first asked for, since a pass asks about one or
     * two vendors and parsing all 18,000 lines was a third of a replayed command's run time (docs/performance.md,
     * "Start-up and footprint tricks", row "pci.ids parsed a vendor at a time").
     */
    public static PciIds parse(String text) {
        return new PciIds(version(text), text, false);
    }

    /** The header's {@code #\tVersion: 2025.06.09}, within the first 4 kB; found by hand, as every live run reads it. */
    private static String version(String text) {
        int limit = Math.min(text.length(), 4096);
        for (int at = 0; at < limit; ) {
            int end = text.indexOf('\n', at);
            String line = text.substring(at, end < 0 || end > limit ? limit : end);
            int colon = line.indexOf(':');
            if (line.startsWith("#") && colon > 0 && line.substring(1, colon).strip().equals("Version")) {
                String rest = line.substring(colon + 1).strip();
                int space = 0;
                while (space < rest.length() && !Character.isWhitespace(rest.charAt(space))) {
                    space++;
                }
                if (space > 0) {
                    return rest.substring(0, space);
                }
            }
            if (end < 0) {
                break;
            }
            at = end + 1;
        }
        return "unknown";
    }

    private int[] section(String vendor) {
        String key = vendor.toLowerCase(Locale.ROOT);
        int[] section = sections.get(key);
        if (section == null) {
            int start = vendorLine(key);
            section = start < 0 ? NONE : new int[] {start, sectionEnd(start)};
            sections.put(key, section);
        }
        return section;
    }

    /**
     * The start of the line in {@code [from, to)} that is {@code indent} then {@code id} (either case) then
     * whitespace; -1 when there is none. A search, not a parse: a pass asks for one or two devices of a vendor
     * whose section runs to thousands of lines (docs/performance.md, "Start-up and footprint tricks", row
     * "pci.ids decoded a vendor at a time").
     */
    private int entryLine(int from, int to, String indent, String id) {
        for (String form : new String[] {id.toLowerCase(Locale.ROOT), id.toUpperCase(Locale.ROOT)}) {
            String wanted = "\n" + indent + form;
            for (int at = text.indexOf(wanted, from); at >= 0 && at < to; at = text.indexOf(wanted, at + 1)) {
                int after = at + wanted.length();
                if (after < text.length() && Character.isWhitespace(text.charAt(after))) {
                    return at + 1;
                }
            }
        }
        return -1;
    }

    /** The line starting at {@code at}, without its line break, decoded. */
    private String lineAt(int at) {
        int end = text.indexOf('\n', at);
        String line = text.substring(at, end < 0 ? text.length() : end);
        return utf8Bytes ? new String(line.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8) : line;
    }

    /**
     * Parses one vendor's device lines into {@link #devices}, once, for the scans by name
     * ({@link #devicesNamed}, {@link #devicesNamedFrom}); lookups by id search the text instead.
     */
    private synchronized void parseVendor(String vendor) {
        if (!parsedVendors.add(vendor)) {
            return;
        }
        int[] bounds = section(vendor);
        if (bounds == NONE) {
            return;
        }
        String section = text.substring(bounds[0], bounds[1]);
        if (utf8Bytes) {
            section = new String(section.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
        }
        for (int end = section.indexOf('\n'); end >= 0; ) {
            int at = end + 1;
            end = section.indexOf('\n', at);
            String line = section.substring(at, end < 0 ? section.length() : end);
            if (line.startsWith("\t") && !line.startsWith("\t\t")) {
                Fields f = Fields.of(line, 1, 2);
                if (f != null && isHex4(f.first())) {
                    String device = f.first().toLowerCase(Locale.ROOT);
                    devices.put(vendor + device, f.rest());
                }
            }
        }
    }

    /** Where the section of the vendor line at {@code start} ends: at the next unindented line (the next vendor, or the class list). */
    private int sectionEnd(int start) {
        int end = text.indexOf('\n', start);
        while (end >= 0 && end + 1 < text.length()) {
            char first = text.charAt(end + 1);
            if (first != '\t' && first != '#' && first != '\n') {
                return end + 1;
            }
            end = text.indexOf('\n', end + 1);
        }
        return text.length();
    }

    /** Where the unindented line of {@code vendor} starts (its id in either case); -1 when there is none. */
    private int vendorLine(String vendor) {
        for (String id : new String[] {vendor.toLowerCase(Locale.ROOT), vendor.toUpperCase(Locale.ROOT)}) {
            for (int at = text.indexOf(id); at >= 0; at = text.indexOf(id, at + 1)) {
                boolean lineStart = at == 0 || text.charAt(at - 1) == '\n';
                boolean idEnds = at + id.length() < text.length() && Character.isWhitespace(text.charAt(at + id.length()));
                if (lineStart && idEnds) {
                    return at;
                }
            }
        }
        return -1;
    }

    private static boolean isHex4(String s) {
        if (s.length() != 4) {
            return false;
        }
        for (int i = 0; i < 4; i++) {
            if (Character.digit(s.charAt(i), 16) < 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The whitespace-separated fields of one entry: one or two ids, then the name (the rest of the line,
     * stripped). Split by hand rather than with {@code String.split("\\s+")}: a regex per line made
     * parsing the 18,000-line table a quarter of a replayed command's run time (docs/performance.md,
     * "Start-up and footprint tricks", row "pci.ids split without a regex").
     */
    private record Fields(String first, String second, String rest) {

        /** {@code count} fields (2 or 3, the last one the rest) from {@code start}; null when fewer are there. */
        static Fields of(String line, int start, int count) {
            int firstEnd = nextSpace(line, start);
            int secondStart = skipSpace(line, firstEnd);
            if (firstEnd == start || secondStart >= line.length()) {
                return null;
            }
            String first = line.substring(start, firstEnd);
            if (count == 2) {
                return new Fields(first, null, line.substring(secondStart).strip());
            }
            int secondEnd = nextSpace(line, secondStart);
            int restStart = skipSpace(line, secondEnd);
            if (restStart >= line.length()) {
                return null;
            }
            return new Fields(first, line.substring(secondStart, secondEnd), line.substring(restStart).strip());
        }

        private static int nextSpace(String s, int i) {
            while (i < s.length() && !Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            return i;
        }

        private static int skipSpace(String s, int i) {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            return i;
        }
    }

    /** Version string from the header, {@code 2023.04.10}; dates compare as text. */
    public String version() {
        return version;
    }

    /** This table, or {@code other} when other is a later version. */
    public PciIds newer(PciIds other) {
        return other != null && other.version.compareTo(version) > 0 ? other : this;
    }

    public synchronized Optional<String> vendor(String vendorId) {
        if (vendorId == null) {
            return Optional.empty();
        }
        int[] bounds = section(vendorId);
        Fields name = bounds == NONE ? null : Fields.of(lineAt(bounds[0]), 0, 2);
        return name == null ? Optional.empty() : Optional.of(name.rest());
    }

    /** The device's name as listed, {@code AD102 [GeForce RTX 4090]}. */
    public synchronized Optional<String> device(String vendorId, String deviceId) {
        int at = deviceLine(vendorId, deviceId);
        Fields f = at < 0 ? null : Fields.of(lineAt(at), 1, 2);
        return f == null ? Optional.empty() : Optional.of(f.rest());
    }

    /** Where the device's line starts; -1 when the vendor or the device is not listed. */
    private int deviceLine(String vendorId, String deviceId) {
        if (vendorId == null || deviceId == null || !isHex4(deviceId)) {
            return -1;
        }
        int[] bounds = section(vendorId);
        return bounds == NONE ? -1 : entryLine(bounds[0], bounds[1], "\t", deviceId);
    }

    public synchronized Optional<String> subsystem(String vendorId, String deviceId, String subVendorId,
                                                   String subDeviceId) {
        int at = deviceLine(vendorId, deviceId);
        if (at < 0 || subVendorId == null || subDeviceId == null) {
            return Optional.empty();
        }
        // The device's subsystem lines follow its line, each indented twice, up to the next device or vendor.
        for (int end = text.indexOf('\n', at); end >= 0 && end + 1 < text.length(); end = text.indexOf('\n', end + 1)) {
            char first = text.charAt(end + 1);
            if (first == '#' || first == '\n') {
                continue;
            }
            if (!text.startsWith("\t\t", end + 1)) {
                break;
            }
            Fields f = Fields.of(lineAt(end + 1), 2, 3);
            if (f != null && f.first().equalsIgnoreCase(subVendorId) && f.second().equalsIgnoreCase(subDeviceId)) {
                return Optional.of(f.rest());
            }
        }
        return Optional.empty();
    }

    /**
     * The marketing name in a device entry: the bracketed part of {@code AD102 [GeForce RTX 4090]},
     * or the whole entry when it has no brackets.
     */
    public Optional<String> productName(String vendorId, String deviceId) {
        return device(vendorId, deviceId).map(PciIds::bracketed);
    }

    /**
     * Every device entry of {@code vendorId} whose marketing name is {@code productName} (case ignored), for a
     * card whose tool printed a name but no usable device id. A scan: called only when the id lookup failed.
     */
    public java.util.List<String> devicesNamed(String vendorId, String productName) {
        if (vendorId == null || productName == null) {
            return java.util.List.of();
        }
        synchronized (this) {
            parseVendor(vendorId);
        }
        return devices.entrySet().stream()
                .filter(e -> e.getKey().startsWith(vendorId) && bracketed(e.getValue()).equalsIgnoreCase(productName.strip()))
                .map(Map.Entry::getValue).sorted().toList();
    }

    /**
     * The devices of {@code vendorId} whose marketing name starts with {@code prefix} (case ignored), by device
     * id, for a name a tool cut short. pci.ids writes products that share an id as {@code RTX 2000 / 2000E Ada
     * Generation}; each is tried ({@code RTX 2000 Ada Generation}, {@code RTX 2000E Ada Generation}). A scan:
     * called only for cut names.
     */
    public java.util.SortedMap<String, String> devicesNamedFrom(String vendorId, String prefix) {
        java.util.SortedMap<String, String> found = new java.util.TreeMap<>();
        if (vendorId == null || prefix == null || prefix.isBlank()) {
            return found;
        }
        synchronized (this) {
            parseVendor(vendorId);
        }
        String p = comparable(prefix);
        for (Map.Entry<String, String> e : devices.entrySet()) {
            if (!e.getKey().startsWith(vendorId)) {
                continue;
            }
            for (String name : alternatives(bracketed(e.getValue()))) {
                if (comparable(name).startsWith(p)) {
                    found.put(e.getKey().substring(vendorId.length()), name);
                    break;
                }
            }
        }
        return found;
    }

    /** Lower case, hyphens and underscores as spaces: nvidia-smi prints "A100-SXM4-40GB" where pci.ids has "A100 SXM4 40GB". */
    private static String comparable(String name) {
        return name.toLowerCase(java.util.Locale.ROOT).replace('-', ' ').replace('_', ' ').replaceAll("\\s+", " ").strip();
    }

    /** {@code A 2000 / 2000E B} is {@code A 2000 B} and {@code A 2000E B}; a name without " / " is itself. */
    static java.util.List<String> alternatives(String name) {
        int slash = name.indexOf(" / ");
        if (slash < 0) {
            return java.util.List.of(name);
        }
        int before = name.lastIndexOf(' ', slash - 1);
        int after = name.indexOf(' ', slash + 3);
        String head = name.substring(0, before + 1);
        String tail = after < 0 ? "" : name.substring(after);
        String first = name.substring(before + 1, slash);
        String second = name.substring(slash + 3, after < 0 ? name.length() : after);
        return java.util.List.of(head + first + tail, head + second + tail);
    }

    static String bracketed(String entry) {
        int open = entry.indexOf('[');
        int close = entry.lastIndexOf(']');
        if (open >= 0 && close > open + 1) {
            return entry.substring(open + 1, close).strip();
        }
        return entry;
    }
}
