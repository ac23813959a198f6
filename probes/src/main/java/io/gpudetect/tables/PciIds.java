package io.gpudetect.tables;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.StringReader;
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
    private final Map<String, String> vendors = new HashMap<>();
    private final Map<String, String> devices = new HashMap<>();
    private final Map<String, String> subsystems = new HashMap<>();

    private PciIds(String version) {
        this.version = version;
    }

    /** The copy shipped inside the jar. */
    public static PciIds shipped() {
        try (InputStream in = PciIds.class.getResourceAsStream("pci.ids")) {
            if (in == null) {
                throw new IllegalStateException("pci.ids is missing from the jar");
            }
            return parse(new InputStreamReader(in, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static PciIds parse(String text) {
        try {
            return parse(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads the pci.ids format; malformed lines are skipped, as lspci does. */
    private static PciIds parse(Reader reader) throws IOException {
        BufferedReader in = new BufferedReader(reader, 1 << 16);
        PciIds ids = null;
        StringBuilder header = new StringBuilder();
        String vendor = null;
        String device = null;
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty() || line.charAt(0) == '#') {
                if (ids == null) {
                    header.append(line).append('\n');
                }
                continue;
            }
            if (ids == null) {
                Matcher m = VERSION.matcher(header);
                ids = new PciIds(m.find() ? m.group(1) : "unknown");
            }
            if (line.startsWith("C ")) {
                break; // the class list follows the vendors; we do not use it
            }
            if (line.startsWith("\t\t")) {
                Fields f = Fields.of(line, 2, 3);
                if (vendor != null && device != null && f != null && isHex4(f.first()) && isHex4(f.second())) {
                    ids.subsystems.put(vendor + device + f.first().toLowerCase(Locale.ROOT)
                            + f.second().toLowerCase(Locale.ROOT), f.rest());
                }
            } else if (line.startsWith("\t")) {
                Fields f = Fields.of(line, 1, 2);
                if (vendor != null && f != null && isHex4(f.first())) {
                    device = f.first().toLowerCase(Locale.ROOT);
                    ids.devices.put(vendor + device, f.rest());
                }
            } else {
                Fields f = Fields.of(line, 0, 2);
                if (f != null && isHex4(f.first())) {
                    vendor = f.first().toLowerCase(Locale.ROOT);
                    device = null;
                    ids.vendors.put(vendor, f.rest());
                } else {
                    vendor = null;
                }
            }
        }
        return ids == null ? new PciIds("unknown") : ids;
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

    public Optional<String> vendor(String vendorId) {
        return Optional.ofNullable(vendorId == null ? null : vendors.get(vendorId));
    }

    /** The device's name as listed, {@code AD102 [GeForce RTX 4090]}. */
    public Optional<String> device(String vendorId, String deviceId) {
        return Optional.ofNullable(vendorId == null || deviceId == null ? null : devices.get(vendorId + deviceId));
    }

    public Optional<String> subsystem(String vendorId, String deviceId, String subVendorId, String subDeviceId) {
        if (vendorId == null || deviceId == null || subVendorId == null || subDeviceId == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(subsystems.get(vendorId + deviceId + subVendorId + subDeviceId));
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
        return devices.entrySet().stream()
                .filter(e -> e.getKey().startsWith(vendorId) && bracketed(e.getValue()).equalsIgnoreCase(productName.strip()))
                .map(Map.Entry::getValue).sorted().toList();
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
