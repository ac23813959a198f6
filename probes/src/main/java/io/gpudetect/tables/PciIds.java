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
                String[] parts = line.substring(2).split("\\s+", 3);
                if (vendor != null && device != null && parts.length == 3 && isHex4(parts[0]) && isHex4(parts[1])) {
                    ids.subsystems.put(vendor + device + parts[0].toLowerCase(Locale.ROOT)
                            + parts[1].toLowerCase(Locale.ROOT), parts[2].strip());
                }
            } else if (line.startsWith("\t")) {
                String[] parts = line.substring(1).split("\\s+", 2);
                if (vendor != null && parts.length == 2 && isHex4(parts[0])) {
                    device = parts[0].toLowerCase(Locale.ROOT);
                    ids.devices.put(vendor + device, parts[1].strip());
                }
            } else {
                String[] parts = line.split("\\s+", 2);
                if (parts.length == 2 && isHex4(parts[0])) {
                    vendor = parts[0].toLowerCase(Locale.ROOT);
                    device = null;
                    ids.vendors.put(vendor, parts[1].strip());
                } else {
                    vendor = null;
                }
            }
        }
        return ids == null ? new PciIds("unknown") : ids;
    }

    private static boolean isHex4(String s) {
        return s.length() == 4 && s.chars().allMatch(c -> Character.digit(c, 16) >= 0);
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

    static String bracketed(String entry) {
        int open = entry.indexOf('[');
        int close = entry.lastIndexOf(']');
        if (open >= 0 && close > open + 1) {
            return entry.substring(open + 1, close).strip();
        }
        return entry;
    }
}
