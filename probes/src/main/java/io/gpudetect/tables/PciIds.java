package io.gpudetect.tables;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PCI ID list ({@code pci.ids}): names for vendor, device and subsystem ids. The project ships a
 * copy filtered to display vendors; {@link #newer} picks the host's own copy when its version is later.
 */
public final class PciIds {

    private static final Pattern VERSION = Pattern.compile("^#\\s*Version:\\s*(\\S+)", Pattern.MULTILINE);

    private final String version;
    /**
     * The table. The shipped copy is held as its UTF-8 bytes, one char each (read as ISO-8859-1): ids and layout
     * are ASCII, so it is searched as it is, and only the sections asked for are decoded as UTF-8 (see
     * {@link #shipped}).
     */
    private final String text;
    private final boolean utf8Bytes;
    private final Map<String, String> vendors = new HashMap<>();
    /** Devices and subsystems, parsed a vendor at a time on first use. */
    private final Map<String, String> devices = new HashMap<>();
    private final Map<String, String> subsystems = new HashMap<>();
    private final java.util.Set<String> parsedVendors = new java.util.HashSet<>();

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
     * The pci.ids format; malformed lines are skipped, as lspci does. Nothing but the version is read here: a
     * vendor's section is found and parsed when that vendor is first asked for, since a pass asks about one or
     * two vendors and parsing all 18,000 lines was a third of a replayed command's run time (docs/performance.md,
     * "Start-up and footprint tricks", row "pci.ids parsed a vendor at a time").
     */
    public static PciIds parse(String text) {
        return new PciIds(version(text), text, false);
    }

    private static String version(String text) {
        Matcher m = VERSION.matcher(text.substring(0, Math.min(text.length(), 4096)));
        return m.find() ? m.group(1) : "unknown";
    }

    /** Parses one vendor's line, device and subsystem lines, once: its section runs to the next unindented line. */
    private synchronized void parseVendor(String vendor) {
        if (!parsedVendors.add(vendor)) {
            return;
        }
        int start = vendorLine(vendor);
        if (start < 0) {
            return;
        }
        String section = text.substring(start, sectionEnd(start));
        if (utf8Bytes) {
            section = new String(section.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
        }
        int end = section.indexOf('\n');
        Fields name = Fields.of(section.substring(0, end < 0 ? section.length() : end), 0, 2);
        if (name != null) {
            vendors.put(vendor, name.rest());
        }
        String device = null;
        while (end >= 0) {
            int at = end + 1;
            end = section.indexOf('\n', at);
            String line = section.substring(at, end < 0 ? section.length() : end);
            if (line.isEmpty() || line.charAt(0) == '#') {
                continue;
            }
            if (line.startsWith("\t\t")) {
                Fields f = Fields.of(line, 2, 3);
                if (device != null && f != null && isHex4(f.first()) && isHex4(f.second())) {
                    subsystems.put(vendor + device + f.first().toLowerCase(Locale.ROOT)
                            + f.second().toLowerCase(Locale.ROOT), f.rest());
                }
            } else {
                Fields f = Fields.of(line, 1, 2);
                if (f != null && isHex4(f.first())) {
                    device = f.first().toLowerCase(Locale.ROOT);
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
        for (String id : new String[] {vendor, vendor.toUpperCase(Locale.ROOT)}) {
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
        parseVendor(vendorId);
        return Optional.ofNullable(vendors.get(vendorId));
    }

    /** The device's name as listed, {@code AD102 [GeForce RTX 4090]}. */
    public synchronized Optional<String> device(String vendorId, String deviceId) {
        if (vendorId == null || deviceId == null) {
            return Optional.empty();
        }
        parseVendor(vendorId);
        return Optional.ofNullable(devices.get(vendorId + deviceId));
    }

    public Optional<String> subsystem(String vendorId, String deviceId, String subVendorId, String subDeviceId) {
        if (vendorId == null || deviceId == null || subVendorId == null || subDeviceId == null) {
            return Optional.empty();
        }
        synchronized (this) {
            parseVendor(vendorId);
            return Optional.ofNullable(subsystems.get(vendorId + deviceId + subVendorId + subDeviceId));
        }
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
