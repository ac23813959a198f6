package io.gpudetect.probe.amd;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.HexId;
import io.gpudetect.tables.MemorySize;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One card as rocm-smi describes it, whichever form it printed: the members of a {@code cardN} object in
 * {@code --json}, the {@code GPU[N] : key: value} lines of its text output, or a {@code cardN} row of
 * {@code --csv}. All three use the same key names, which changed over the releases ({@code Card series} /
 * {@code Card Series}, {@code GPU ID} / {@code Device ID}, {@code vram Total Memory (B)} /
 * {@code VRAM Total Memory (B)}), so keys are matched without case.
 *
 * <p>Before ROCm 6.1 {@code Card model} held the subsystem device id; from 6.1 it repeats the device id
 * and a separate {@code Subsystem ID} holds the subsystem. Releases before 4.5 print ids where names
 * belong ({@code Card series: 0x740f}); such a value is an id, never a name.
 */
final class RocmSmiCard {

    private static final Pattern DIGITS = Pattern.compile("^\\s*(\\d{1,18})\\s*$");
    private static final Pattern HEX_ONLY = Pattern.compile("(?i)^0x[0-9a-f]{1,4}$");

    private RocmSmiCard() {
    }

    /** A card's fields: keys without case, values trimmed; blank, N/A, unknown and "not supported" are absent. */
    static Map<String, String> fields() {
        return new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    }

    static void put(Map<String, String> fields, String key, String value) {
        String v = value == null ? "" : value.strip();
        if (!v.isEmpty() && !isNa(v)) {
            fields.putIfAbsent(key.strip(), v);
        }
    }

    static Gpu read(String probe, String card, Map<String, String> fields, String driver, List<Diagnostic> diagnostics,
            String file) {
        // rocm-smi lists AMD cards, and on Hygon's DTK the DCUs (AMD's design, Hygon's PCI vendor id 1d94), which
        // say so in "Card Vendor" ("Chengdu Haiguang IC Design Co., Ltd.").
        Vendor vendor = field(fields, "Card vendor").map(Vendor::fromName).filter(v -> v == Vendor.HYGON).orElse(Vendor.AMD);
        Gpu.Builder b = Gpu.builder(probe).vendor(vendor).pciVendorId(vendor.pciVendorId()).driverVersion(driver);
        String deviceId = hexField(probe, fields, card, "Device ID", diagnostics, file);
        if (deviceId == null) {
            deviceId = hexField(probe, fields, card, "GPU ID", diagnostics, file);
        }
        Optional<String> series = field(fields, "Card series");
        if (deviceId == null && series.isPresent() && HEX_ONLY.matcher(series.get()).matches()) {
            deviceId = HexId.id16(series.get());
        }
        if (deviceId == null && field(fields, "Subsystem ID").isPresent()) {
            // ROCm 6.1 and later print the subsystem under its own key, and "Card Model" is then the device id
            // ("Card Model": "0x7408", "Subsystem ID": "0x0b0c"); before, "Card model" was the subsystem.
            String model = field(fields, "Card model").filter(v -> HEX_ONLY.matcher(v).matches()).map(HexId::id16).orElse(null);
            String subsystemId = field(fields, "Subsystem ID").map(HexId::id16).orElse(null);
            if (model != null && !model.equals(subsystemId)) {
                deviceId = model;
            }
        }
        b.pciDeviceId(deviceId);
        field(fields, "Device Rev").map(HexId::revision).ifPresent(b::pciRevision);
        String subsystem = hexField(probe, fields, card, "Subsystem ID", diagnostics, file);
        if (subsystem == null) {
            String model = field(fields, "Card model").map(HexId::id16).orElse(null);
            if (model != null && !model.equals(deviceId)) {
                subsystem = model;
            }
        }
        b.pciSubsystemDeviceId(subsystem);
        b.name(series.filter(s -> !HEX_ONLY.matcher(s).matches())
                .or(() -> field(fields, "Device Name").filter(s -> !HEX_ONLY.matcher(s).matches())).orElse(null));
        field(fields, "GFX Version").filter(v -> v.matches("gfx[0-9a-f]+")).ifPresent(b::architecture);
        b.uuid(field(fields, "Unique ID").map(AmdIds::uuidFromHex).orElse(null));
        field(fields, "Serial Number").ifPresent(b::serial);
        Optional<String> bus = field(fields, "PCI Bus");
        if (bus.isPresent()) {
            Optional<PciAddress> address = PciAddress.parse(bus.get());
            if (address.isEmpty()) {
                diagnostics.add(Diagnostic.warning(probe, file, null,
                        card + ": PCI Bus '" + bus.get() + "' is not a PCI address (expected 0000:03:00.0)"));
            }
            address.ifPresent(b::pciAddress);
        }
        Optional<String> vram = field(fields, "VRAM Total Memory (B)");
        if (vram.isPresent()) {
            Matcher m = DIGITS.matcher(vram.get());
            if (m.matches() && MemorySize.isPlausibleMiB(Long.parseLong(m.group(1)) / (1024 * 1024))) {
                b.memoryMiB(Long.parseLong(m.group(1)) / (1024 * 1024));
            } else {
                diagnostics.add(Diagnostic.warning(probe, file, null,
                        card + ": VRAM Total Memory (B) '" + vram.get() + "' is not a plausible number of bytes"));
            }
        }
        Optional<String> vramMiB = field(fields, "VRAM Total Memory (MiB)");
        if (vram.isEmpty() && vramMiB.isPresent()) {
            // Hygon's rocm-smi gives the size in MiB under a key of its own ("vram Total Memory (MiB)": "65520").
            Matcher m = DIGITS.matcher(vramMiB.get());
            if (m.matches() && MemorySize.isPlausibleMiB(Long.parseLong(m.group(1)))) {
                b.memoryMiB(Long.parseLong(m.group(1)));
            } else {
                diagnostics.add(Diagnostic.warning(probe, file, null,
                        card + ": VRAM Total Memory (MiB) '" + vramMiB.get() + "' is not a plausible number of MiB"));
            }
        }
        field(fields, "Max Graphics Package Power (W)").map(RocmSmiCard::number).ifPresent(b::powerLimitWatts);
        field(fields, "VBIOS version").ifPresent(b::vbiosVersion);
        // "(Topology) Numa Node": the NUMA node, -1 where the host has none.
        field(fields, "(Topology) Numa Node").filter(n -> n.matches("\\d{1,4}")).map(Integer::valueOf).ifPresent(b::numaNode);
        return b.build();
    }

    private static String hexField(String probe, Map<String, String> fields, String card, String name,
            List<Diagnostic> diagnostics, String file) {
        Optional<String> raw = field(fields, name);
        if (raw.isEmpty()) {
            return null;
        }
        String id = HexId.id16(raw.get());
        if (id == null) {
            diagnostics.add(Diagnostic.warning(probe, file, null,
                    card + ": " + name + " '" + raw.get() + "' is not a hex id (expected 0x73df)"));
        }
        return id;
    }

    static Optional<String> field(Map<String, String> fields, String name) {
        return Optional.ofNullable(fields.get(name));
    }

    static boolean isNa(String v) {
        String l = v.toLowerCase(Locale.ROOT);
        return l.equals("n/a") || l.equals("unknown") || l.equals("not supported");
    }

    private static Double number(String text) {
        try {
            return Double.valueOf(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
