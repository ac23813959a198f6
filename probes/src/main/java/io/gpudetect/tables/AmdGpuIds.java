package io.gpudetect.tables;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * libdrm's {@code amdgpu.ids}: AMD marketing names by device id and revision
 * ({@code 73BF, C1, AMD Radeon RX 6900 XT}). One device id covers several products, told apart by the
 * revision; that is why pci.ids alone names AMD cards poorly.
 */
public final class AmdGpuIds {

    /** Between two products of one entry: "AMD Instinct MI60 / MI50". */
    private static final java.util.regex.Pattern SLASH = java.util.regex.Pattern.compile("\\s+/\\s+");

    /** The resource the build writes from Debian's libdrm-common (probes/pom.xml, tables/debian-amdgpu-ids.sh). */
    static final String RESOURCE = "amdgpu.ids";
    /** The first line the build adds to the resource, naming the package it came from. */
    private static final String ORIGIN_LINE = "# gpu-detect: ";
    private static final String NONE_SHIPPED = "none: this build could not fetch Debian's libdrm-common (tables/debian-amdgpu-ids.sh)";

    private final String text;
    private final String origin;
    /** Names by device id and revision ({@code 66a1:02}), read a device id at a time on first use. */
    private final Map<String, String> byDeviceAndRevision = new HashMap<>();
    /** Every name each device id is sold under, for the device ids read so far. */
    private final Map<String, java.util.Set<String>> namesByDevice = new HashMap<>();

    private AmdGpuIds(String text, String origin) {
        this.text = text;
        this.origin = origin;
    }

    /**
     * The copy in the jar, from the newest Debian libdrm-common the build could fetch; a build that could fetch none
     * (offline, no apt) has none, and then this table names nothing and {@link #origin} says so. A pass asks about
     * one or two device ids, so only their lines are read, when first asked for (docs/performance.md, "Start-up and
     * footprint tricks", row "amdgpu.ids read a device id at a time").
     */
    public static AmdGpuIds shipped() {
        try (InputStream in = AmdGpuIds.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return new AmdGpuIds("", NONE_SHIPPED);
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return new AmdGpuIds(text, shippedOrigin(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@link #origin} of the shipped copy, from its first line alone: {@code --version} prints it and needs nothing
     * else of the table (docs/performance.md, row "--version reads the tables' first lines only").
     */
    public static String shippedOrigin() {
        try (InputStream in = AmdGpuIds.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return NONE_SHIPPED;
            }
            // Up to the first line's end: a newline byte is never part of a longer UTF-8 sequence.
            ByteArrayOutputStream first = new ByteArrayOutputStream();
            while (true) {
                byte[] chunk = in.readNBytes(256);
                int newline = 0;
                while (newline < chunk.length && chunk[newline] != '\n') {
                    newline++;
                }
                first.write(chunk, 0, newline);
                if (newline < chunk.length || chunk.length < 256) {
                    break;
                }
            }
            return shippedOrigin(first.toString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String shippedOrigin(String text) {
        String origin = text.startsWith(ORIGIN_LINE) ? text.substring(ORIGIN_LINE.length(), lineEnd(text, 0)).strip()
                : "shipped copy";
        return origin + " (shipped)";
    }

    /** A host's own table (libdrm-common's /usr/share/libdrm/amdgpu.ids), {@code path} naming it in {@link #origin}. */
    public static AmdGpuIds of(String text, String path) {
        return new AmdGpuIds(text, path);
    }

    /** Which copy this is: the Debian package the build took it from, a host's file, or none and why. */
    public String origin() {
        return origin;
    }

    /**
     * This table, or {@code other} when it lists more products. amdgpu.ids carries no version (its {@code 1.0.0}
     * line is the format's), and libdrm only ever adds and corrects lines, so the copy with more entries is the
     * later one: a host with a newer libdrm names cards this build's copy predates.
     */
    public AmdGpuIds newer(AmdGpuIds other) {
        return other != null && other.entries() > entries() ? other : this;
    }

    /** Lines of the form {@code 73BF,<tab>C1,<tab>name}. */
    private int entries() {
        int n = 0;
        for (int at = 0; at < text.length(); ) {
            int end = lineEnd(text, at);
            if (end - at > 5 && text.charAt(at + 4) == ',' && text.charAt(at) != '#') {
                n++;
            }
            at = end + 1;
        }
        return n;
    }

    private static int lineEnd(String text, int from) {
        int end = text.indexOf('\n', from);
        return end < 0 ? text.length() : end;
    }

    static AmdGpuIds parse(BufferedReader in) throws IOException {
        StringBuilder text = new StringBuilder();
        for (String line; (line = in.readLine()) != null; ) {
            text.append(line).append('\n');
        }
        return new AmdGpuIds(text.toString(), "given text");
    }

    /** The names of {@code device} (4 lower-case hex digits), its lines read on first use. */
    private synchronized java.util.Set<String> load(String device) {
        java.util.Set<String> names = namesByDevice.get(device);
        if (names != null) {
            return names;
        }
        names = new java.util.TreeSet<>();
        namesByDevice.put(device, names);
        if (device.length() != 4) {
            return names;
        }
        for (String id : new String[] {device.toUpperCase(Locale.ROOT), device}) {
            for (int at = text.indexOf(id); at >= 0; at = text.indexOf(id, at + 1)) {
                if ((at > 0 && text.charAt(at - 1) != '\n') || at + 4 >= text.length() || text.charAt(at + 4) != ',') {
                    continue;
                }
                int end = text.indexOf('\n', at);
                String line = text.substring(at, end < 0 ? text.length() : end);
                // "73BF,<tab>C1,<tab>AMD Radeon RX 6900 XT", split by hand: a regex split per line was most of the
                // load time (docs/performance.md, "Start-up and footprint tricks", row "lines split without a regex").
                int second = line.indexOf(',', 5);
                if (second < 0) {
                    continue;
                }
                String revision = line.substring(5, second).strip();
                if (revision.length() == 2) {
                    String name = line.substring(second + 1).strip();
                    byDeviceAndRevision.put(device + ":" + revision.toLowerCase(Locale.ROOT), name);
                    names.add(name);
                }
            }
            if (id.equals(device)) {
                break;
            }
        }
        return names;
    }

    /**
     * The one marketing name every revision of a device id shares ({@code 66AF}: Radeon VII), for when no
     * revision is known; empty when the id names several products ({@code 66A1}: MI50, MI60, Radeon Pro VII).
     */
    public Optional<String> onlyName(String deviceId) {
        java.util.Set<String> names = names(deviceId);
        return names.size() == 1 ? Optional.of(names.iterator().next()) : Optional.empty();
    }

    /** True when one device id is sold as several products, told apart only by the revision. */
    public boolean namesSeveralProducts(String deviceId) {
        return names(deviceId).size() > 1;
    }

    private java.util.Set<String> names(String deviceId) {
        return deviceId == null ? java.util.Set.of() : load(bareHex(deviceId));
    }

    /**
     * Every product a device id (and revision, when known) may be, one name each: a table entry naming
     * several ({@code AMD Instinct MI60 / MI50}) counts as each of them ({@code AMD Instinct MI60},
     * {@code AMD Instinct MI50}). Empty when the table does not know the id.
     */
    public java.util.List<String> candidates(String deviceId, String revision) {
        java.util.Set<String> names = new java.util.TreeSet<>();
        Optional<String> exact = name(deviceId, revision);
        if (exact.isPresent()) {
            names.add(exact.get());
        } else {
            names.addAll(names(deviceId));
        }
        java.util.Set<String> products = new java.util.LinkedHashSet<>();
        for (String n : names) {
            products.addAll(products(n));
        }
        return java.util.List.copyOf(products);
    }

    /**
     * True when some entry of the table, any device id, is a product that {@code matches} (given each product's
     * name): whether a board's name ("AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2") names a product AMD sells or
     * only a series. A scan of the whole table, for the rare card whose board name and device id disagree.
     */
    public boolean sellsProduct(java.util.function.Predicate<String> matches) {
        for (int at = 0; at < text.length(); ) {
            int end = text.indexOf('\n', at);
            String line = text.substring(at, end < 0 ? text.length() : end);
            at = end < 0 ? text.length() : end + 1;
            int second = line.length() > 5 && line.charAt(4) == ',' ? line.indexOf(',', 5) : -1;
            if (second < 0) {
                continue;
            }
            for (String product : products(line.substring(second + 1).strip())) {
                if (matches.test(product)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** "AMD Instinct MI250X / MI250" is two products; the later ones take the words before the first's model. */
    static java.util.List<String> products(String name) {
        String[] parts = SLASH.split(name);
        if (parts.length == 1) {
            return java.util.List.of(name);
        }
        java.util.List<String> out = new java.util.ArrayList<>();
        out.add(parts[0].strip());
        int lastSpace = parts[0].strip().lastIndexOf(' ');
        String prefix = lastSpace < 0 ? "" : parts[0].strip().substring(0, lastSpace + 1);
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].strip();
            out.add(p.regionMatches(true, 0, prefix, 0, Math.min(3, prefix.length())) ? p : prefix + p);
        }
        return out;
    }

    /** The marketing name for a device id and revision (both hex, any case, {@code 0x} allowed). */
    public Optional<String> name(String deviceId, String revision) {
        if (deviceId == null || revision == null) {
            return Optional.empty();
        }
        String rev = bareHex(revision);
        if (rev.length() == 1) {
            rev = "0" + rev;
        }
        String device = bareHex(deviceId);
        load(device);
        synchronized (this) {
            return Optional.ofNullable(byDeviceAndRevision.get(device + ":" + rev));
        }
    }

    /** Lower case, without a leading {@code 0x}. */
    private static String bareHex(String id) {
        String lower = id.toLowerCase(Locale.ROOT);
        return lower.startsWith("0x") ? lower.substring(2) : lower;
    }
}
