package io.gpudetect.probe.amd;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.HexId;
import io.gpudetect.probe.ParsedOutput;
import io.gpudetect.tables.MemorySize;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code rocm-smi --showallinfo --json} (or any flag set that includes product, bus and memory): an object
 * with one {@code cardN} member per GPU and a {@code system} member. Key names changed over the years
 * ({@code Card series} / {@code Card Series}, {@code GPU ID} / {@code Device ID},
 * {@code vram Total Memory (B)} / {@code VRAM Total Memory (B)}), so keys are matched without case.
 *
 * <p>Before ROCm 6.1 {@code Card model} held the subsystem device id; from 6.1 it repeats the device id
 * and a separate {@code Subsystem ID} holds the subsystem.
 */
public final class RocmSmiJsonParser {

    public static final String PROBE = "rocm-smi-json";

    private static final Pattern CARD = Pattern.compile("^card(\\d+)$");
    private static final Pattern DIGITS = Pattern.compile("^\\s*(\\d{1,18})\\s*$");

    private RocmSmiJsonParser() {
    }

    public static ParsedOutput parse(String text, String file) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(text);
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            return new ParsedOutput(List.of(), List.of(Diagnostic.error(PROBE, file, loc == null ? null : loc.getLineNr(),
                    "not valid JSON (" + e.getOriginalMessage() + "); expected the object 'rocm-smi --json' prints")));
        }
        if (root == null || !root.isObject()) {
            return new ParsedOutput(List.of(), List.of(Diagnostic.error(PROBE, file, null,
                    "expected a JSON object with card0, card1, ... members, found " + (root == null ? "nothing" : root.getNodeType()))));
        }
        String driver = field(root.path("system"), "Driver version").orElse(null);
        List<Gpu> gpus = new ArrayList<>();
        boolean sawCard = false;
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            Matcher m = CARD.matcher(e.getKey());
            if (!m.matches()) {
                if (!e.getKey().equals("system")) {
                    diagnostics.add(Diagnostic.info(PROBE, file, "ignored unknown member '" + e.getKey() + "' (expected cardN or system)"));
                }
                continue;
            }
            sawCard = true;
            if (!e.getValue().isObject()) {
                diagnostics.add(Diagnostic.warning(PROBE, file, null, e.getKey() + " is not an object; skipped"));
                continue;
            }
            gpus.add(card(e.getKey(), e.getValue(), driver, diagnostics, file));
        }
        if (!sawCard) {
            diagnostics.add(Diagnostic.error(PROBE, file, null, "no cardN members; expected one per GPU"));
        }
        // rocm-smi lists cards in a map; the inventory sorts by PCI address anyway, so keep the tool's order.
        return new ParsedOutput(gpus, diagnostics);
    }

    private static Gpu card(String key, JsonNode card, String driver, List<Diagnostic> diagnostics, String file) {
        // rocm-smi lists only AMD cards.
        Gpu.Builder b = Gpu.builder(PROBE).vendor(Vendor.AMD).pciVendorId(Vendor.AMD.pciVendorId()).driverVersion(driver);
        String deviceId = hexField(card, key, "Device ID", diagnostics, file);
        if (deviceId == null) {
            deviceId = hexField(card, key, "GPU ID", diagnostics, file);
        }
        b.pciDeviceId(deviceId);
        field(card, "Device Rev").map(HexId::revision).ifPresent(b::pciRevision);
        String subsystem = hexField(card, key, "Subsystem ID", diagnostics, file);
        if (subsystem == null) {
            String model = field(card, "Card model").map(HexId::id16).orElse(null);
            if (model != null && !model.equals(deviceId)) {
                subsystem = model;
            }
        }
        b.pciSubsystemDeviceId(subsystem);
        b.name(field(card, "Card series").or(() -> field(card, "Device Name")).orElse(null));
        field(card, "GFX Version").filter(v -> v.matches("gfx[0-9a-f]+")).ifPresent(b::architecture);
        b.uuid(field(card, "Unique ID").map(AmdIds::uuidFromHex).orElse(null));
        field(card, "Serial Number").filter(s -> !isNa(s)).ifPresent(b::serial);
        Optional<String> bus = field(card, "PCI Bus");
        if (bus.isPresent()) {
            Optional<PciAddress> address = PciAddress.parse(bus.get());
            if (address.isEmpty()) {
                diagnostics.add(Diagnostic.warning(PROBE, file, null,
                        key + ": PCI Bus '" + bus.get() + "' is not a PCI address (expected 0000:03:00.0)"));
            }
            address.ifPresent(b::pciAddress);
        }
        Optional<String> vram = field(card, "VRAM Total Memory (B)");
        if (vram.isPresent()) {
            Matcher m = DIGITS.matcher(vram.get());
            if (m.matches() && MemorySize.isPlausibleMiB(Long.parseLong(m.group(1)) / (1024 * 1024))) {
                b.memoryMiB(Long.parseLong(m.group(1)) / (1024 * 1024));
            } else {
                diagnostics.add(Diagnostic.warning(PROBE, file, null,
                        key + ": VRAM Total Memory (B) '" + vram.get() + "' is not a plausible number of bytes"));
            }
        }
        field(card, "Max Graphics Package Power (W)").map(RocmSmiJsonParser::number).ifPresent(b::powerLimitWatts);
        return b.build();
    }

    private static String hexField(JsonNode card, String key, String name, List<Diagnostic> diagnostics, String file) {
        Optional<String> raw = field(card, name);
        if (raw.isEmpty()) {
            return null;
        }
        String id = HexId.id16(raw.get());
        if (id == null) {
            diagnostics.add(Diagnostic.warning(PROBE, file, null,
                    key + ": " + name + " '" + raw.get() + "' is not a hex id (expected 0x73df)"));
        }
        return id;
    }

    /** A string member by name, any case, trimmed; empty when missing, blank or N/A. */
    static Optional<String> field(JsonNode node, String name) {
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().strip().equalsIgnoreCase(name) && e.getValue().isValueNode()) {
                String v = e.getValue().asText().strip();
                return v.isEmpty() || isNa(v) ? Optional.empty() : Optional.of(v);
            }
        }
        return Optional.empty();
    }

    private static boolean isNa(String v) {
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
