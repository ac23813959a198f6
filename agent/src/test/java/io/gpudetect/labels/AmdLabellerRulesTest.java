package io.gpudetect.labels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.testing.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Holds the {@code amd} profile to AMD's node labeller on every recorded AMD host (rocminfo, rocm-smi): the
 * {@code amd.com/} labels the labeller (ROCm/k8s-device-plugin {@code cmd/k8s-node-labeller/main.go} at
 * {@code ed764684}, its DaemonSet's generators: family, device-id, product-name, vram, simd-count, cu-count)
 * would write are worked out here from the raw recording and the labeller's rules, not from our code, and
 * compared key by key. Only what the recording holds is expected: a value the labeller reads from a source
 * the recording lacks (rocm-smi prints no compute units; older rocm-smi no gfx id) must be missing from ours
 * too, since we have nothing to derive it from.
 *
 * <p>The labeller's rules: every value is counted per card; one distinct value gives {@code amd.com/gpu.K=V},
 * several give {@code amd.com/gpu.K.V=count} ({@code createLabels}). vram is KFD's bank size in bytes,
 * divided by 2^20 (integer), then {@code math.Round(MiB/1024)} and {@code G}. device-id is sysfs
 * {@code device} without {@code 0x}. simd-count is KFD's {@code simd_count}, cu-count that over
 * {@code simd_per_cu}. product-name is sysfs {@code product_name} or else libdrm's marketing name (what rocminfo
 * prints as Marketing Name), spaces to {@code _}, parentheses dropped. family is libdrm's family id, named as
 * the kernel's {@code AMDGPU_FAMILY_*}: the table below is read from the kernel (amdgpu_discovery.c) by a person.
 */
class AmdLabellerRulesTest {

    /** The kernel's family for the graphics ids these recordings hold. */
    private static final Map<String, String> KERNEL_FAMILY = Map.of(
            "gfx900", "AI", "gfx906", "AI", "gfx908", "AI", "gfx90a", "AI", "gfx942", "AI", "gfx1030", "NV", "gfx1031", "NV");

    static Stream<Path> amdHosts() throws IOException {
        try (Stream<Path> s = Files.list(Fixtures.root().resolve("hosts"))) {
            return new ArrayList<>(s.filter(p -> Files.isRegularFile(p.resolve("rocminfo.txt"))
                    || Files.isRegularFile(p.resolve("rocm-smi.json"))).sorted().toList()).stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("amdHosts")
    void theAmdProfileWritesWhatTheLabellerWrites(Path host) throws Exception {
        List<Map<String, String>> cards = Files.isRegularFile(host.resolve("rocminfo.txt"))
                ? fromRocminfo(Files.readString(host.resolve("rocminfo.txt")))
                : fromRocmSmi(new ObjectMapper().readTree(host.resolve("rocm-smi.json").toFile()));
        assertFalse(cards.isEmpty(), host + ": no AMD GPU in the recording");
        SortedMap<String, String> expected = new TreeMap<>();
        for (String kind : List.of("family", "device-id", "product-name", "vram", "simd-count", "cu-count")) {
            createLabels(expected, kind, cards);
        }

        Inventory inventory = Fixtures.detect(host);
        SortedMap<String, String> ours = new TreeMap<>(new AmdProfile().labels(inventory));
        // Not among the DaemonSet's generators; its value is the kernel module's version file (docs/labels.md).
        ours.keySet().removeIf(k -> k.startsWith("amd.com/gpu.driver-version"));
        if (!Files.isRegularFile(host.resolve("rocminfo.txt"))) {
            // rocm-smi prints pci.ids' name, not libdrm's marketing name: nothing here to work it out from.
            ours.keySet().removeIf(k -> k.startsWith("amd.com/gpu.product-name"));
        }
        assertEquals(expected, ours, host.getFileName().toString());
    }

    /** {@code createLabels}: one value, {@code K=V}; several, {@code K.V=count}. A card without the value counts for none. */
    private static void createLabels(SortedMap<String, String> out, String kind, List<Map<String, String>> cards) {
        TreeMap<String, Integer> counts = new TreeMap<>();
        for (Map<String, String> card : cards) {
            String v = card.get(kind);
            if (v != null) {
                counts.merge(v, 1, Integer::sum);
            }
        }
        if (counts.size() == 1) {
            out.put("amd.com/gpu." + kind, counts.firstKey());
        } else {
            counts.forEach((v, n) -> out.put("amd.com/gpu." + kind + "." + v, String.valueOf(n)));
        }
    }

    private static String vram(long bytes) {
        long mib = bytes / (1024 * 1024);
        return Math.round(mib / 1024.0) + "G";
    }

    private static final Pattern AGENT = Pattern.compile("(?m)^\\*{7}\\s*\\nAgent \\d+\\s*\\n\\*{7}\\s*$");

    /** Each GPU agent of rocminfo: Name (gfx id), Marketing Name, Chip ID, Compute Unit, SIMDs per CU, first GLOBAL pool. */
    private static List<Map<String, String>> fromRocminfo(String text) {
        List<Map<String, String>> cards = new ArrayList<>();
        String[] agents = AGENT.split(text);
        for (int i = 1; i < agents.length; i++) {
            String a = agents[i];
            if (!field(a, "Device Type").equals("GPU")) {
                continue;
            }
            Map<String, String> card = new TreeMap<>();
            String gfx = field(a, "Name");
            if (KERNEL_FAMILY.containsKey(gfx)) {
                card.put("family", KERNEL_FAMILY.get(gfx));
            }
            Matcher chip = Pattern.compile("\\(0x([0-9a-fA-F]+)\\)").matcher(field(a, "Chip ID"));
            if (chip.find()) {
                card.put("device-id", chip.group(1).toLowerCase());
            }
            card.put("product-name", field(a, "Marketing Name").replace(" ", "_").replace("(", "").replace(")", ""));
            int cus = Integer.parseInt(field(a, "Compute Unit"));
            int simdPerCu = Integer.parseInt(field(a, "SIMDs per CU"));
            card.put("simd-count", String.valueOf(cus * simdPerCu));
            card.put("cu-count", String.valueOf(cus));
            Matcher pool = Pattern.compile("Segment:\\s+GLOBAL[^\\n]*\\n(?:[^\\n]*\\n)*?\\s*Size:\\s+(\\d+)\\(0x[0-9a-f]+\\) KB")
                    .matcher(a);
            if (pool.find()) {
                card.put("vram", vram(Long.parseLong(pool.group(1)) * 1024));
            }
            cards.add(card);
        }
        return cards;
    }

    private static String field(String agent, String name) {
        Matcher m = Pattern.compile("(?m)^\\s{2}" + Pattern.quote(name) + ":\\s+(.*?)\\s*$").matcher(agent);
        return m.find() ? m.group(1) : "";
    }

    /** Each card of rocm-smi --showallinfo --json: Device ID (GPU ID), VRAM Total Memory (B), GFX Version where printed. */
    private static List<Map<String, String>> fromRocmSmi(JsonNode root) {
        List<Map<String, String>> cards = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getKey().startsWith("card")) {
                continue;
            }
            JsonNode c = e.getValue();
            Map<String, String> card = new TreeMap<>();
            // rocm-smi before 5.x: "GPU ID" and "vram Total Memory (B)".
            String id = c.has("Device ID") ? c.get("Device ID").asText() : c.path("GPU ID").asText(null);
            if (id != null) {
                card.put("device-id", id.replaceFirst("^0x", "").toLowerCase());
            }
            String vram = c.has("VRAM Total Memory (B)") ? c.get("VRAM Total Memory (B)").asText()
                    : c.path("vram Total Memory (B)").asText(null);
            if (vram != null) {
                card.put("vram", vram(Long.parseLong(vram)));
            }
            if (c.has("GFX Version") && KERNEL_FAMILY.containsKey(c.get("GFX Version").asText())) {
                card.put("family", KERNEL_FAMILY.get(c.get("GFX Version").asText()));
            }
            cards.add(card);
        }
        return cards;
    }
}
