package io.gpudetect.probe.pci;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.PciAddress;
import io.gpudetect.probe.HexId;
import io.gpudetect.probe.amd.AmdIds;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One node of AMD's kernel fusion driver topology ({@code /sys/class/kfd/kfd/topology/nodes/N/properties},
 * {@code key value} lines). A node with SIMDs is a GPU; one with CPU cores as well is an APU; one with
 * CPU cores only is a CPU. {@code location_id} packs bus, device and function like rocminfo's BDFID,
 * and {@code domain} gives the PCI domain.
 */
record KfdTopology(String node, Map<String, Long> properties) {

    /** Parses a properties file; lines that are not {@code key number} are reported, not fatal. */
    static KfdTopology parse(String node, String text, String path, String probe, List<Diagnostic> diagnostics) {
        Map<String, Long> properties = new LinkedHashMap<>();
        String[] lines = text.split("\r?\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] parts = line.split("\\s+");
            Long value = parts.length == 2 ? unsigned(parts[1]) : null;
            if (value == null) {
                diagnostics.add(Diagnostic.warning(probe, path, i + 1,
                        "expected 'name number', found '" + (line.length() > 80 ? line.substring(0, 80) + "..." : line) + "'"));
                continue;
            }
            properties.put(parts[0], value);
        }
        return new KfdTopology(node, properties);
    }

    /**
     * A property's value: the kernel prints them as unsigned 64-bit decimals ({@code %llu}), and a card's
     * {@code unique_id} is often above {@link Long#MAX_VALUE}; kept as the same 64 bits.
     */
    private static Long unsigned(String text) {
        try {
            return Long.parseUnsignedLong(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    boolean isGpu() {
        return get("simd_count") > 0;
    }

    boolean isApu() {
        return isGpu() && get("cpu_cores_count") > 0;
    }

    PciAddress address() {
        long location = get("location_id");
        long domain = get("domain");
        if (location <= 0 || location > 0xffff || domain < 0) {
            return null;
        }
        return new PciAddress((int) domain, (int) (location >> 8), (int) ((location >> 3) & 0x1f), (int) (location & 7));
    }

    String architecture() {
        return AmdIds.gfxTarget(get("gfx_target_version"));
    }

    Integer computeUnits() {
        long simds = get("simd_count");
        long perCu = get("simd_per_cu");
        return simds > 0 && perCu > 0 ? (int) (simds / perCu) : null;
    }

    /** The card's unique id (0 when the kernel gives none); a card's compute partitions share it. */
    long uniqueId() {
        return get("unique_id");
    }

    String uuid() {
        long id = get("unique_id");
        return id == 0 ? null : AmdIds.uuidFromDecimal(Long.toUnsignedString(id));
    }

    String deviceId() {
        long id = get("device_id");
        return id <= 0 ? null : HexId.id16FromDecimal(Long.toString(id));
    }

    private long get(String key) {
        Long v = properties.get(key);
        return v == null ? 0 : v;
    }
}
