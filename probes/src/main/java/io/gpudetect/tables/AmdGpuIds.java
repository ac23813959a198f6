package io.gpudetect.tables;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
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

    private final Map<String, String> byDeviceAndRevision;
    /** Every name each device id is sold under, gathered once rather than by a scan of the table per lookup. */
    private final Map<String, java.util.Set<String>> namesByDevice = new HashMap<>();

    private AmdGpuIds(Map<String, String> byDeviceAndRevision) {
        this.byDeviceAndRevision = byDeviceAndRevision;
        for (Map.Entry<String, String> e : byDeviceAndRevision.entrySet()) {
            String device = e.getKey().substring(0, e.getKey().indexOf(':'));
            namesByDevice.computeIfAbsent(device, d -> new java.util.TreeSet<>()).add(e.getValue());
        }
    }

    public static AmdGpuIds shipped() {
        try {
            return parse(new BufferedReader(new StringReader(ShippedTableText.AMDGPU_IDS)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static AmdGpuIds parse(BufferedReader in) throws IOException {
        Map<String, String> map = new HashMap<>();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            // "73BF,<tab>C1,<tab>AMD Radeon RX 6900 XT", split by hand: a regex split per line was most of the load time
            // (docs/performance.md, "Start-up and footprint tricks", row "lines split without a regex").
            int first = line.indexOf(',');
            int second = first < 0 ? -1 : line.indexOf(',', first + 1);
            if (second < 0) {
                continue;
            }
            String device = line.substring(0, first);
            String revision = line.substring(first + 1, second).stripLeading();
            if (device.length() == 4 && revision.length() == 2) {
                map.put(device.toLowerCase(Locale.ROOT) + ":" + revision.toLowerCase(Locale.ROOT),
                        line.substring(second + 1).strip());
            }
        }
        return new AmdGpuIds(map);
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
        return deviceId == null ? java.util.Set.of() : namesByDevice.getOrDefault(bareHex(deviceId), java.util.Set.of());
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

    /** "AMD Instinct MI250X / MI250" is two products; the later ones take the words before the first's model. */
    static java.util.List<String> products(String name) {
        String[] parts = name.split("\\s+/\\s+");
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
        return Optional.ofNullable(byDeviceAndRevision.get(bareHex(deviceId) + ":" + rev));
    }

    /** Lower case, without a leading {@code 0x}. */
    private static String bareHex(String id) {
        String lower = id.toLowerCase(Locale.ROOT);
        return lower.startsWith("0x") ? lower.substring(2) : lower;
    }
}
