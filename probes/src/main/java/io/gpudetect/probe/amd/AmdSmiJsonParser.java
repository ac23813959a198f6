package io.gpudetect.probe.amd;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuInterface;
import io.gpudetect.model.Partitioning;
import io.gpudetect.model.PcieLink;
import io.gpudetect.model.PowerLimits;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.HexId;
import io.gpudetect.probe.JsonOutput;
import io.gpudetect.probe.ParsedOutput;
import io.gpudetect.tables.MemorySize;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code amd-smi static --json}: a list of per-GPU objects ({@code gpu}, {@code asic}, {@code bus},
 * {@code vram}, {@code driver}, {@code board}, {@code partition}, ...), bare before ROCm 6.4 and wrapped
 * in {@code {"gpu_data": [...]}} since. Sizes are {@code {"value": 196592, "unit": "MB"}} in newer
 * releases and {@code "196592 MB"} strings in older ones; both are read. amd-smi's "MB" is MiB.
 */
public final class AmdSmiJsonParser {

    public static final String PROBE = "amd-smi";

    private static final Pattern WATTS = Pattern.compile("(?i)^\\s*(\\d{1,6}(?:\\.\\d+)?)\\s*W?\\s*$");
    private static final Pattern SPEED = Pattern.compile("(?i)^(\\d{1,3}(?:\\.\\d+)?)\\s*GT/s$");
    private static final Pattern SIZE = Pattern.compile("(?i)^\\s*(\\d+(?:\\.\\d+)?)\\s*(B|KB|MB|GB|KiB|MiB|GiB)?\\s*$");

    private AmdSmiJsonParser() {
    }

    public static ParsedOutput parse(String text, String file) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        JsonOutput json = JsonOutput.parse(text, PROBE, file, "'amd-smi static --json' output");
        if (json.error() != null) {
            return new ParsedOutput(List.of(), List.of(json.error()));
        }
        JsonNode root = json.root();
        JsonNode list = root != null && root.isObject() && root.has("gpu_data") ? root.get("gpu_data") : root;
        if (list == null || !list.isArray()) {
            return new ParsedOutput(List.of(), List.of(Diagnostic.error(PROBE, file, null,
                    "expected a JSON list of GPUs or an object with a 'gpu_data' list, found "
                            + (list == null ? "nothing" : list.getNodeType()))));
        }
        List<Gpu> gpus = new ArrayList<>();
        int index = 0;
        for (JsonNode gpu : list) {
            String where = "gpu_data[" + index++ + "]";
            if (!gpu.isObject()) {
                diagnostics.add(Diagnostic.warning(PROBE, file, null, where + " is not an object; skipped"));
                continue;
            }
            gpus.add(gpu(PROBE, where, gpu, diagnostics, file));
        }
        return new ParsedOutput(gpus, diagnostics);
    }

    /** One GPU's object, as {@code --json} prints it or as {@link AmdSmiTextParser} rebuilds it from the text. */
    static Gpu gpu(String probe, String where, JsonNode gpu, List<Diagnostic> diagnostics, String file) {
        Gpu.Builder b = Gpu.builder(probe);
        JsonNode asic = gpu.path("asic");
        String vendorId = id(probe, asic, "vendor_id", where, diagnostics, file);
        b.pciVendorId(vendorId);
        b.vendor(vendorId == null ? Vendor.AMD : Vendor.fromPciVendorId(vendorId));
        b.name(text(asic, "market_name").orElse(null));
        b.pciDeviceId(id(probe, asic, "device_id", where, diagnostics, file));
        b.pciSubsystemVendorId(id(probe, asic, "subvendor_id", where, diagnostics, file));
        b.pciSubsystemDeviceId(id(probe, asic, "subsystem_id", where, diagnostics, file));
        text(asic, "rev_id").map(HexId::revision).ifPresent(b::pciRevision);
        text(asic, "target_graphics_version").filter(v -> v.matches("gfx[0-9a-f]+")).ifPresent(b::architecture);
        JsonNode cu = asic.path("num_compute_units");
        Integer units = cu.canConvertToInt() ? Integer.valueOf(cu.asInt()) : HexId.leadingInt(cu.asText(null));
        if (units != null && units > 0) {
            b.computeUnits(units);
        }
        text(asic, "asic_serial").map(AmdIds::uuidFromHex).ifPresent(b::uuid);
        Optional<String> bdf = text(gpu.path("bus"), "bdf").or(() -> text(gpu, "bdf"));
        if (bdf.isPresent()) {
            Optional<PciAddress> address = PciAddress.parse(bdf.get());
            if (address.isEmpty()) {
                diagnostics.add(Diagnostic.warning(probe, file, null,
                        where + ".bus.bdf '" + bdf.get() + "' is not a PCI address (expected 0000:03:00.0)"));
            }
            address.ifPresent(b::pciAddress);
        }
        text(gpu.path("bus"), "slot_type").map(AmdSmiJsonParser::slotType).ifPresent(b::interfaceType);
        JsonNode driver = gpu.path("driver");
        b.driverVersion(text(driver, "version").or(() -> text(driver, "driver_version")).orElse(null));
        JsonNode board = gpu.path("board");
        text(board, "product_serial").ifPresent(b::serial);
        text(board, "model_number").ifPresent(b::boardPartNumber);
        text(board, "product_name").ifPresent(b::boardName);
        JsonNode vram = gpu.path("vram");
        // static's vram.size (vram_size before ROCm 6.1); metric's mem_usage.total_vram where static was not run.
        JsonNode size = vram.has("size") ? vram.get("size") : vram.has("vram_size") ? vram.get("vram_size")
                : gpu.path("mem_usage").path("total_vram");
        // "N/A" is amd-smi saying it cannot tell: no size, nothing wrong with the output.
        if (!size.isMissingNode() && !(size.isTextual() && size.asText().strip().equalsIgnoreCase("n/a"))) {
            Long mib = mib(size);
            if (mib == null) {
                diagnostics.add(Diagnostic.warning(probe, file, null,
                        where + ".vram.size '" + size + "' is not a size (expected {\"value\": N, \"unit\": \"MB\"} or \"N MB\")"));
            }
            b.memoryMiB(mib);
        }
        text(gpu.path("vbios"), "version").or(() -> text(gpu.path("vbios"), "vbios_version")).ifPresent(b::vbiosVersion);
        JsonNode numa = gpu.path("numa").path("node");
        if (numa.canConvertToInt() || numa.isTextual() && numa.asText().strip().matches("\\d{1,4}")) {
            int node = numa.isTextual() ? Integer.parseInt(numa.asText().strip()) : numa.asInt();
            b.numaNode(node >= 0 ? node : null);
        }
        power(probe, where, gpu.path("limit"), b, diagnostics, file);
        link(gpu, b);
        Optional<String> compute = text(gpu.path("partition"), "compute_partition");
        Optional<String> memory = text(gpu.path("partition"), "memory_partition");
        if (compute.isPresent() || memory.isPresent()) {
            String kind = compute.map(p -> p.toLowerCase(Locale.ROOT)).orElse(null);
            b.partitioning(new Partitioning(kind, kind == null ? null : !kind.equals("spx"), null, List.of(),
                    memory.map(m -> m.toLowerCase(Locale.ROOT)).orElse(null), null, null));
        }
        return b.build();
    }

    /**
     * The power cap ({@code socket_power}) and the range it may be set in ({@code min_power}, {@code max_power}) from
     * static's {@code limit}; ROCm 7's amd-smi nests them as {@code limit.ppt0.socket_power_limit},
     * {@code min_power_limit}, {@code max_power_limit}. A minimum of 0 W (MI300A) means none is enforced.
     */
    private static void power(String probe, String where, JsonNode limit, Gpu.Builder b, List<Diagnostic> diagnostics,
                              String file) {
        JsonNode ppt = limit.path("ppt0");
        JsonNode at = ppt.isObject() ? ppt : limit;
        String suffix = ppt.isObject() ? "_limit" : "";
        Double cap = watts(probe, where, at, "socket_power" + suffix, diagnostics, file);
        Double min = watts(probe, where, at, "min_power" + suffix, diagnostics, file);
        Double max = watts(probe, where, at, "max_power" + suffix, diagnostics, file);
        b.powerLimitWatts(cap);
        b.powerLimits(new PowerLimits(min, max, null));
    }

    private static Double watts(String probe, String where, JsonNode node, String name, List<Diagnostic> diagnostics,
                                String file) {
        JsonNode v = node.path(name);
        if (v.isMissingNode() || v.isNull() || v.isValueNode() && text(node, name).isEmpty()) {
            return null;
        }
        String number = v.isObject() ? v.path("value").asText("") : v.asText("").strip();
        Matcher m = WATTS.matcher(number);
        if (!m.matches()) {
            diagnostics.add(Diagnostic.warning(probe, file, null, where + ".limit." + name + " '" + v
                    + "' is not a power (expected {\"value\": N, \"unit\": \"W\"} or \"N W\")"));
            return null;
        }
        double watts = Double.parseDouble(m.group(1));
        return watts > 0 && watts <= 100_000 ? watts : null;
    }

    /** static's {@code bus.max_pcie_width} and {@code bus.max_pcie_speed} ({@code 32 GT/s}): the link's maximum only. */
    private static void link(JsonNode gpu, Gpu.Builder b) {
        JsonNode bus = gpu.path("bus");
        Integer width = text(bus, "max_pcie_width").filter(w -> w.matches("\\d{1,2}")).map(Integer::valueOf)
                .filter(w -> w >= 1 && w <= 32).orElse(null);
        Integer gen = text(bus, "max_pcie_speed").map(SPEED::matcher).filter(Matcher::matches)
                .map(m -> PcieLink.generationOf(Double.parseDouble(m.group(1)))).orElse(null);
        b.pcieLink(new PcieLink(null, gen, null, width));
    }

    private static GpuInterface slotType(String slot) {
        String s = slot.toLowerCase(Locale.ROOT);
        if (s.contains("oam")) {
            return GpuInterface.OAM;
        }
        if (s.contains("pcie") || s.contains("cem")) {
            return GpuInterface.PCIE;
        }
        return null;
    }

    private static Long mib(JsonNode size) {
        String number;
        String unit;
        if (size.isObject()) {
            number = size.path("value").asText("");
            unit = size.path("unit").asText("MB");
        } else {
            Matcher m = SIZE.matcher(size.asText(""));
            if (!m.matches()) {
                return null;
            }
            number = m.group(1);
            unit = m.group(2) == null ? "MB" : m.group(2);
        }
        double value;
        try {
            value = Double.parseDouble(number);
        } catch (NumberFormatException e) {
            return null;
        }
        double factor = switch (unit.toUpperCase(Locale.ROOT)) {
            case "B" -> 1.0 / (1024 * 1024);
            case "KB", "KIB" -> 1.0 / 1024;
            case "MB", "MIB" -> 1;
            case "GB", "GIB" -> 1024;
            default -> -1;
        };
        double mib = value * factor;
        // Math.round saturates at Long.MAX_VALUE: a garbage number would become exabytes of VRAM.
        return factor < 0 || !(value > 0) || !(mib <= MemorySize.MAX_PLAUSIBLE_MIB) ? null : Math.round(mib);
    }

    private static String id(String probe, JsonNode node, String name, String where, List<Diagnostic> diagnostics, String file) {
        Optional<String> raw = text(node, name);
        if (raw.isEmpty()) {
            return null;
        }
        String id = HexId.id16(raw.get());
        if (id == null) {
            diagnostics.add(Diagnostic.warning(probe, file, null,
                    where + ".asic." + name + " '" + raw.get() + "' is not a hex id (expected 0x74a1)"));
        }
        return id;
    }

    private static Optional<String> text(JsonNode node, String name) {
        JsonNode v = node.path(name);
        if (!v.isValueNode()) {
            return Optional.empty();
        }
        String s = v.asText().strip();
        String l = s.toLowerCase(Locale.ROOT);
        return s.isEmpty() || l.equals("n/a") || l.equals("unknown") ? Optional.empty() : Optional.of(s);
    }
}
