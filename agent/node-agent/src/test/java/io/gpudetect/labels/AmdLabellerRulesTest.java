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
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Holds the {@code amd} profile to AMD's node labeller on every recorded AMD host (rocminfo, rocm-smi, lspci) and
 * every hand-made case with an AMD card in its {@code sys/} tree: the labels the labeller (ROCm/k8s-device-plugin
 * {@code cmd/k8s-node-labeller/main.go} and {@code internal/pkg/amdgpu/amdgpu.go} at {@code ed764684}) would write
 * are worked out here from the raw files and the labeller's rules, not from our code, and compared key by key:
 * both prefixes, every generator but {@code firmware} and {@code driver-src-version} (docs/labels.md says why
 * those two are not written). Only what the recording holds is expected: a value the labeller reads from a source
 * the recording lacks (rocm-smi prints no compute units; older rocm-smi no gfx id) must be missing from ours too,
 * since we have nothing to derive it from.
 *
 * <p>The labeller's rules. It takes the cards amdgpu drives ({@code /sys/module/amdgpu/drivers/pci:amdgpu/*}) and
 * counts every value per card; a card without the value counts for none.
 * <ul>
 * <li>{@code createLabels}: one distinct value gives {@code amd.com/gpu.K=V}, several give
 * {@code amd.com/gpu.K.V=count}; under {@code beta.amd.com} every value gives {@code beta.amd.com/gpu.K.V=count},
 * and one distinct value also {@code beta.amd.com/gpu.K=V}. This holds for family, device-id, product-name,
 * vram, simd-count and cu-count.</li>
 * <li>device-id: sysfs {@code device} without {@code 0x}. vram: bytes, divided by 2^20 (integer), then
 * {@code math.Round(MiB/1024)} and {@code G}; the labeller took the bytes from {@code mem_info_vram_total} up to
 * v1.31.0.6 and from the card's kfd memory bank since, the same number on a card that is not partitioned;
 * rocminfo prints the bank, rocm-smi the sysfs file. simd-count: kfd's {@code simd_count}; cu-count: that over
 * {@code simd_per_cu} (rocminfo prints both as Compute Unit and SIMDs per CU). family: libdrm's family id, named as
 * the kernel's {@code AMDGPU_FAMILY_*}: the table below is read from the kernel (amdgpu_discovery.c) by a
 * person.</li>
 * <li>product-name: sysfs {@code product_name} (the board's FRU), or where that is missing or empty libdrm's
 * marketing name, which libdrm looks up in amdgpu.ids by device id and revision (and rocminfo prints as Marketing
 * Name); spaces to {@code _}, parentheses dropped.</li>
 * <li>driver-version ({@code amd.com} only): the amdgpu module's {@code version} file, or an empty value without
 * it. We write no empty value, so the key is compared only where the recording holds the file.</li>
 * <li>compute-memory-partition ({@code amd.com} only): {@code current_compute_partition} and
 * {@code current_memory_partition}, lower case, joined by {@code _}, counted over the cards that have both;
 * written when there is exactly one pair. compute- and memory-partitioning-supported: {@code true} when the first
 * card (in address order) has {@code available_compute_partition} / {@code available_memory_partition}, else
 * {@code false}, also where the recording holds no sysfs at all: the labeller reads a missing file as
 * {@code false}.</li>
 * </ul>
 */
class AmdLabellerRulesTest {

    /** The kernel's family for the graphics ids these recordings hold. */
    private static final Map<String, String> KERNEL_FAMILY = Map.of("gfx900", "AI", "gfx906", "AI", "gfx908", "AI",
            "gfx90a", "AI", "gfx942", "AI", "gfx1030", "NV", "gfx1031", "NV");
    private static final List<String> COUNTED = List.of("family", "device-id", "product-name", "vram", "simd-count",
            "cu-count");

    /** One card as the labeller sees it: each generator's value, and the partition files it reads. */
    private record Card(String address, Map<String, String> values, String computePartition, String memoryPartition,
                        boolean computeSwitchable, boolean memorySwitchable) {
        Card(String address, Map<String, String> values) {
            this(address, values, null, null, false, false);
        }
    }

    /** What a recording holds, and which keys it can tell nothing of. */
    private record Recording(List<Card> cards, String moduleVersion, boolean productNames) {
    }

    static Stream<Path> amdRecordings() throws IOException {
        List<Path> all = new ArrayList<>();
        Fixtures.hosts().stream().filter(p -> Files.isRegularFile(p.resolve("rocminfo.txt"))
                        || Files.isRegularFile(p.resolve("rocm-smi.json"))
                        || Files.isRegularFile(p.resolve("lspci.txt")) && AMD_LSPCI.matcher(read(p.resolve("lspci.txt"))).find())
                .forEach(all::add);
        try (Stream<Path> s = Files.list(Fixtures.root().resolve("cases"))) {
            s.filter(p -> !sysfsCards(p).isEmpty()).map(p -> Fixtures.testCase(p.getFileName().toString()))
                    .forEach(all::add);
        }
        return all.stream().sorted();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("amdRecordings")
    void theAmdProfileWritesWhatTheLabellerWrites(Path host) throws Exception {
        Recording recording = recording(host);
        assertFalse(recording.cards().isEmpty(), host + ": no AMD GPU in the recording");
        SortedMap<String, String> expected = new TreeMap<>();
        for (String kind : COUNTED) {
            createLabels(expected, kind, recording.cards());
        }
        partitionLabels(expected, recording.cards());
        if (recording.moduleVersion() != null) {
            expected.put("amd.com/gpu.driver-version", recording.moduleVersion());
        }

        Inventory inventory = Fixtures.detect(host);
        SortedMap<String, String> ours = new TreeMap<>(new AmdProfile().labels(inventory));
        if (recording.moduleVersion() == null) {
            // The labeller writes an empty value here; ours is the tools' version, or nothing (docs/labels.md).
            ours.keySet().removeIf(k -> k.startsWith("amd.com/gpu.driver-version"));
        }
        if (!recording.productNames()) {
            // rocm-smi and lspci print pci.ids' name, not libdrm's marketing name: nothing here to work it out from.
            ours.keySet().removeIf(k -> k.startsWith("amd.com/gpu.product-name") || k.startsWith("beta.amd.com/gpu.product-name"));
        }
        assertEquals(expected, ours, host.getFileName().toString());
    }

    private static Recording recording(Path host) throws IOException {
        if (Files.isDirectory(host.resolve("sys"))) {
            Optional<String> version = readSys(host, "module/amdgpu/version");
            return new Recording(sysfsCards(host), version.map(String::strip).orElse(null), true);
        }
        if (Files.isRegularFile(host.resolve("rocminfo.txt"))) {
            return new Recording(fromRocminfo(read(host.resolve("rocminfo.txt"))), null, true);
        }
        if (Files.isRegularFile(host.resolve("rocm-smi.json"))) {
            return new Recording(fromRocmSmi(new ObjectMapper().readTree(host.resolve("rocm-smi.json").toFile())), null, false);
        }
        return new Recording(fromLspci(read(host.resolve("lspci.txt"))), null, false);
    }

    /** {@code createLabels}, both prefixes. */
    private static void createLabels(SortedMap<String, String> out, String kind, List<Card> cards) {
        TreeMap<String, Integer> counts = new TreeMap<>();
        for (Card card : cards) {
            String v = card.values().get(kind);
            if (v != null) {
                counts.merge(v, 1, Integer::sum);
            }
        }
        counts.forEach((v, n) -> out.put("beta.amd.com/gpu." + kind + "." + v, String.valueOf(n)));
        if (counts.size() == 1) {
            out.put("amd.com/gpu." + kind, counts.firstKey());
            out.put("beta.amd.com/gpu." + kind, counts.firstKey());
        } else {
            counts.forEach((v, n) -> out.put("amd.com/gpu." + kind + "." + v, String.valueOf(n)));
        }
    }

    private static void partitionLabels(SortedMap<String, String> out, List<Card> cards) {
        TreeMap<String, Integer> pairs = new TreeMap<>();
        for (Card card : cards) {
            if (card.computePartition() != null && card.memoryPartition() != null) {
                pairs.merge(card.computePartition() + "_" + card.memoryPartition(), 1, Integer::sum);
            }
        }
        if (pairs.size() == 1) {
            out.put("amd.com/gpu.compute-memory-partition", pairs.firstKey());
        }
        Card first = cards.stream().filter(c -> c.address() != null).min((a, b) -> a.address().compareTo(b.address()))
                .orElse(null);
        out.put("amd.com/gpu.compute-partitioning-supported", String.valueOf(first != null && first.computeSwitchable()));
        out.put("amd.com/gpu.memory-partitioning-supported", String.valueOf(first != null && first.memorySwitchable()));
    }

    private static String vram(long bytes) {
        long mib = bytes / (1024 * 1024);
        return Math.round(mib / 1024.0) + "G";
    }

    private static String productName(String name) {
        return name.strip().replace(" ", "_").replace("(", "").replace(")", "");
    }

    // ---- sysfs, as the labeller reads it

    /** Each PCI function of vendor 0x1002 whose {@code driver} link names amdgpu, with the files the labeller reads. */
    private static List<Card> sysfsCards(Path host) {
        Path devices = host.resolve("sys/bus/pci/devices");
        List<Card> cards = new ArrayList<>();
        if (!Files.isDirectory(devices)) {
            return cards;
        }
        try (Stream<Path> s = Files.list(devices)) {
            for (Path dev : s.sorted().toList()) {
                String address = dev.getFileName().toString();
                Path driver = dev.resolve("driver");
                if (!readOptional(dev.resolve("vendor")).map(String::strip).orElse("").equals("0x1002") || !Files.isSymbolicLink(driver)
                        || !Files.readSymbolicLink(driver).getFileName().toString().equals("amdgpu")) {
                    continue;
                }
                Map<String, String> values = new TreeMap<>();
                String device = read(dev.resolve("device")).strip().replaceFirst("^0x", "");
                values.put("device-id", device);
                String name = readOptional(dev.resolve("product_name")).map(String::strip).orElse("");
                if (name.isEmpty()) {
                    name = marketingName(device, read(dev.resolve("revision")).strip().replaceFirst("^0x", ""));
                }
                if (name != null && !name.isEmpty()) {
                    values.put("product-name", productName(name));
                }
                readOptional(dev.resolve("mem_info_vram_total")).ifPresent(b -> values.put("vram", vram(Long.parseLong(b.strip()))));
                Map<String, String> kfd = kfdNode(host, address);
                if (kfd != null) {
                    long simds = Long.parseLong(kfd.get("simd_count"));
                    long perCu = Long.parseLong(kfd.get("simd_per_cu"));
                    values.put("simd-count", String.valueOf(simds));
                    values.put("cu-count", String.valueOf(simds / perCu));
                    String gfx = gfxName(Long.parseLong(kfd.get("gfx_target_version")));
                    if (KERNEL_FAMILY.containsKey(gfx)) {
                        values.put("family", KERNEL_FAMILY.get(gfx));
                    }
                }
                String compute = readOptional(dev.resolve("current_compute_partition")).map(p -> p.strip().toLowerCase(Locale.ROOT))
                        .orElse(null);
                String memory = readOptional(dev.resolve("current_memory_partition")).map(p -> p.strip().toLowerCase(Locale.ROOT))
                        .orElse(null);
                cards.add(new Card(address, values, compute, memory, Files.exists(dev.resolve("available_compute_partition")),
                        Files.exists(dev.resolve("available_memory_partition"))));
            }
        } catch (IOException e) {
            throw new IllegalStateException(host + ": " + e.getMessage(), e);
        }
        return cards;
    }

    /** The kfd node whose {@code domain} and {@code location_id} (bus << 8 | device << 3 | function) are the card's. */
    private static Map<String, String> kfdNode(Path host, String address) throws IOException {
        Path nodes = host.resolve("sys/class/kfd/kfd/topology/nodes");
        if (!Files.isDirectory(nodes)) {
            return null;
        }
        String[] parts = address.split("[:.]");
        long domain = Long.parseLong(parts[0], 16);
        long location = Long.parseLong(parts[1], 16) << 8 | Long.parseLong(parts[2], 16) << 3 | Long.parseLong(parts[3], 16);
        try (Stream<Path> s = Files.list(nodes)) {
            for (Path node : s.toList()) {
                Map<String, String> properties = new TreeMap<>();
                for (String line : read(node.resolve("properties")).split("\n")) {
                    String[] kv = line.strip().split("\\s+");
                    if (kv.length == 2) {
                        properties.put(kv[0], kv[1]);
                    }
                }
                if (!"0".equals(properties.get("simd_count")) && String.valueOf(location).equals(properties.get("location_id"))
                        && String.valueOf(domain).equals(properties.get("domain"))) {
                    return properties;
                }
            }
        }
        return null;
    }

    /** KFD's gfx_target_version (major * 10000 + minor * 100 + stepping) as the gfx id: 90010 is gfx90a. */
    private static String gfxName(long version) {
        return "gfx" + version / 10000 + Long.toHexString(version / 100 % 100) + Long.toHexString(version % 100);
    }

    /**
     * libdrm's {@code amdgpu_get_marketing_name}: the amdgpu.ids line with this device id and revision, in the copy
     * the build took from Debian's libdrm-common (the jar's resource); skipped where the build could fetch none.
     */
    private static String marketingName(String device, String revision) throws IOException {
        List<String> lines;
        try (java.io.InputStream in = AmdLabellerRulesTest.class.getResourceAsStream("/io/gpudetect/tables/amdgpu.ids")) {
            org.junit.jupiter.api.Assumptions.assumeTrue(in != null,
                    "skipped: this build has no amdgpu.ids (tables/debian-amdgpu-ids.sh could not fetch Debian's libdrm-common)");
            lines = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines().toList();
        }
        for (String line : lines) {
            String[] f = line.split(",", 3);
            if (!line.startsWith("#") && f.length == 3 && f[0].strip().equalsIgnoreCase(device)
                    && f[1].strip().equalsIgnoreCase(revision)) {
                return f[2].strip();
            }
        }
        return null;
    }

    private static Optional<String> readSys(Path host, String path) throws IOException {
        return readOptional(host.resolve("sys").resolve(path));
    }

    private static Optional<String> readOptional(Path file) throws IOException {
        return Files.isRegularFile(file) ? Optional.of(Files.readString(file)) : Optional.empty();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new IllegalStateException(file + ": " + e.getMessage(), e);
        }
    }

    // ---- tool outputs

    private static final Pattern AGENT = Pattern.compile("(?m)^\\*{7}\\s*\\nAgent \\d+\\s*\\n\\*{7}\\s*$");

    /** Each GPU agent of rocminfo: Name (gfx id), Marketing Name, Chip ID, Compute Unit, SIMDs per CU, first GLOBAL pool. */
    private static List<Card> fromRocminfo(String text) {
        List<Card> cards = new ArrayList<>();
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
                card.put("device-id", chip.group(1).toLowerCase(Locale.ROOT));
            }
            card.put("product-name", productName(field(a, "Marketing Name")));
            int cus = Integer.parseInt(field(a, "Compute Unit"));
            int simdPerCu = Integer.parseInt(field(a, "SIMDs per CU"));
            card.put("simd-count", String.valueOf(cus * simdPerCu));
            card.put("cu-count", String.valueOf(cus));
            Matcher pool = Pattern.compile("Segment:\\s+GLOBAL[^\\n]*\\n(?:[^\\n]*\\n)*?\\s*Size:\\s+(\\d+)\\(0x[0-9a-f]+\\) KB")
                    .matcher(a);
            if (pool.find()) {
                card.put("vram", vram(Long.parseLong(pool.group(1)) * 1024));
            }
            cards.add(new Card(null, card));
        }
        return cards;
    }

    private static String field(String agent, String name) {
        Matcher m = Pattern.compile("(?m)^\\s{2}" + Pattern.quote(name) + ":\\s+(.*?)\\s*$").matcher(agent);
        return m.find() ? m.group(1) : "";
    }

    /** Each card of rocm-smi --showallinfo --json: Device ID (GPU ID), VRAM Total Memory (B), GFX Version where printed. */
    private static List<Card> fromRocmSmi(JsonNode root) {
        List<Card> cards = new ArrayList<>();
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
                card.put("device-id", id.replaceFirst("^0x", "").toLowerCase(Locale.ROOT));
            }
            String vram = c.has("VRAM Total Memory (B)") ? c.get("VRAM Total Memory (B)").asText()
                    : c.path("vram Total Memory (B)").asText(null);
            if (vram != null) {
                card.put("vram", vram(Long.parseLong(vram)));
            }
            if (c.has("GFX Version") && KERNEL_FAMILY.containsKey(c.get("GFX Version").asText())) {
                card.put("family", KERNEL_FAMILY.get(c.get("GFX Version").asText()));
            }
            cards.add(new Card(null, card));
        }
        return cards;
    }

    /** A display controller (class 03xx) of vendor 1002 in {@code lspci -nn}: {@code [0300]: ... [1002:164c]}. */
    private static final Pattern AMD_LSPCI = Pattern.compile("(?m)^(\\S+) [^\\[\\n]*\\[03[0-9a-f]{2}\\]: .*\\[1002:([0-9a-f]{4})\\]");

    /** Each AMD display controller of {@code lspci -nn}: only its device id; lspci shows none of the other values. */
    private static List<Card> fromLspci(String text) {
        List<Card> cards = new ArrayList<>();
        Matcher m = AMD_LSPCI.matcher(text);
        while (m.find()) {
            cards.add(new Card(null, new TreeMap<>(Map.of("device-id", m.group(2)))));
        }
        return cards;
    }
}
