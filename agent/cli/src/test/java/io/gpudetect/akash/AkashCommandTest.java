package io.gpudetect.akash;

import io.gpudetect.testing.CommandRun;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.SharedData;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpu-detect akash} against Akash's own table ({@code ../shared/data/akash-gpus.json}, provider-configs as published, given as --akash-table gives it)
 * and real recordings. Every expected label set is worked out here by hand from the operator's rules
 * ({@code generateLabels}: one count per card on the model key, its {@code .ram.<memory_size>} and its
 * {@code .interface.<interface>} with {@code SXM*} as {@code sxm}; {@code nvidia.com/gpu.present} for vendor nvidia)
 * and the table's entry for the card's PCI id, which the comment above each expectation quotes.
 */
class AkashCommandTest {

    @TempDir
    Path dir;

    static CommandRun run(String... args) {
        return CommandRun.of(args);
    }

    static JsonNode json(CommandRun r) throws IOException {
        return new ObjectMapper().readTree(r.out());
    }

    static Map<String, String> labels(JsonNode node) {
        Map<String, String> out = new TreeMap<>();
        node.get("labels").fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
        return out;
    }

    static List<String> reasons(JsonNode card) {
        List<String> out = new ArrayList<>();
        card.get("reasons").forEach(r -> out.add(r.asText()));
        return out;
    }

    /** Akash's table (provider-configs as published) from ../shared; the test is skipped without it. */
    static Path akashTable() {
        Optional<Path> file = SharedData.akashTableFile();
        Assumptions.assumeTrue(file.isPresent(), "skipped: no shared/data/akash-gpus.json above the module");
        return file.get();
    }

    private static final String KEY = "akash.network/capabilities.gpu.vendor.";

    @Test
    void twoCardsTheTableHasAreCountedUnderTheTablesModelRamAndInterface() throws IOException {
        // gpus.json: "10de": {"name": "nvidia", "devices": {"2231": {"name": "a5000", "interface": "PCIe", "memory_size": "24Gi"}}}
        CommandRun r = run("akash", "--replay", Fixtures.host("2x-rtx-a5000_590.44.01_v13").toString(), "-o", "json");
        assertEquals(0, r.exit(), r.err() + r.out());
        JsonNode node = json(r).get("nodes").get(0);
        assertEquals(Map.of("akash.network", "true", "nvidia.com/gpu.present", "true",
                KEY + "nvidia.model.a5000", "2", KEY + "nvidia.model.a5000.ram.24Gi", "2",
                KEY + "nvidia.model.a5000.interface.pcie", "2"), labels(node));
        for (JsonNode card : node.get("cards")) {
            assertEquals("bid", card.get("verdict").asText());
            assertEquals("10de:2231", card.get("pciId").asText());
        }
        assertTrue(r.out().contains("\"verdict\" : \"every-card-bid-on\""), r.out());
    }

    @Test
    void anSxm5CardIsFoldedToSxm() throws IOException {
        // gpus.json: "2330": {"name": "h100", "interface": "SXM5", "memory_size": "80Gi"}
        CommandRun r = run("akash", "--replay", Fixtures.host("h100-80gb-hbm3_590.48.01_text-formats").toString(), "-o", "json");
        assertEquals(0, r.exit());
        assertEquals(Map.of("akash.network", "true", "nvidia.com/gpu.present", "true",
                KEY + "nvidia.model.h100", "1", KEY + "nvidia.model.h100.ram.80Gi", "1",
                KEY + "nvidia.model.h100.interface.sxm", "1"), labels(json(r).get("nodes").get(0)));
    }

    @Test
    void aCardMissingFromTheTableIsDroppedWithTheEntryToAdd() throws IOException {
        // The table has no 10de:26b9 (L40S): the operator writes only akash.network=true.
        CommandRun r = run("akash", "--replay", Fixtures.host("l40s_595.80_text-formats").toString(), "-o", "json");
        assertEquals(1, r.exit());
        JsonNode node = json(r).get("nodes").get(0);
        assertEquals(Map.of("akash.network", "true"), labels(node));
        JsonNode card = node.get("cards").get(0);
        assertEquals("dropped", card.get("verdict").asText());
        assertEquals(List.of("10de:26b9 is not in Akash's GPU table: the operator skips the card without a message; "
                + "add it to gpus.json"), reasons(card));
        assertEquals("\"26b9\": {\"name\": \"l40s\", \"interface\": \"PCIe\", \"memory_size\": \"48Gi\"}",
                card.get("tableEntry").asText());
        CommandRun table = run("akash", "--replay", Fixtures.host("l40s_595.80_text-formats").toString());
        assertTrue(table.out().contains("  card 0000:01:00.0  10de:26b9  NVIDIA L40S: NOT bid on\n"), table.out());
        assertTrue(table.out().endsWith("Some cards will not be bid on (1 card dropped)\n"), table.out());
    }

    @Test
    void aSubsystemVendorVariantGoesUnderTheChipVendorsBlock() throws IOException {
        // A Gigabyte RTX 4090 (10de:2684, subsystem 1458:40bf) against the table without 2684.
        ObjectNode table = (ObjectNode) new ObjectMapper().readTree(Files.readString(akashTable()));
        ((ObjectNode) table.get("10de").get("devices")).remove("2684");
        Path file = dir.resolve("gpus.json");
        Files.writeString(file, table.toString());
        CommandRun r = run("akash", "--replay", Fixtures.host("geforce-rtx-4090_535.86.05_v12").toString(),
                "--akash-table", file.toString(), "-o", "json");
        assertEquals(1, r.exit(), r.err());
        JsonNode card = json(r).get("nodes").get(0).get("cards").get(0);
        assertEquals(List.of("10de:2684 is not in Akash's GPU table: the operator skips the card without a message; "
                        + "add it to gpus.json",
                "subsystem 1458:40bf (another board maker): the operator reads only 10de:2684, so the entry goes "
                        + "under vendor 10de, never under 1458"), reasons(card));
        assertEquals("\"10de\": {\"name\": \"nvidia\", \"devices\": {\"2684\": {\"name\": \"rtx4090\", "
                + "\"interface\": \"PCIe\", \"memory_size\": \"24Gi\"}}}", card.get("tableEntry").asText());
        assertTrue(json(r).get("table").asText().equals(file.toString()));

        // With Akash's own table the same card is counted: the operator never reads the subsystem id.
        CommandRun shipped = run("akash", "--replay", Fixtures.host("geforce-rtx-4090_535.86.05_v12").toString(), "-o", "json");
        assertEquals(0, shipped.exit());
        assertEquals(Map.of("akash.network", "true", "nvidia.com/gpu.present", "true",
                KEY + "nvidia.model.rtx4090", "1", KEY + "nvidia.model.rtx4090.ram.24Gi", "1",
                KEY + "nvidia.model.rtx4090.interface.pcie", "1"), labels(json(shipped).get("nodes").get(0)));
    }

    @Test
    void oneDeviceIdSoldAsTwoProductsIsMislabelledButBidOn() throws IOException {
        // gpus.json: "1002": {"name": "amd", "devices": {"66a1": {"name": "mi60", ...}}}; rocm-smi names the card MI50.
        CommandRun r = run("akash", "--replay", Fixtures.host("rocm-smi_radeon-instinct-mi50-32gb_vega20_showallinfo").toString(), "-o", "json");
        assertEquals(0, r.exit());
        JsonNode node = json(r).get("nodes").get(0);
        assertEquals(Map.of("akash.network", "true", KEY + "amd.model.mi60", "1", KEY + "amd.model.mi60.ram.32Gi", "1",
                KEY + "amd.model.mi60.interface.pcie", "1"), labels(node));
        JsonNode card = node.get("cards").get(0);
        assertEquals("mislabelled", card.get("verdict").asText());
        assertEquals(List.of("model differs: Akash's table names 1002:66a1 mi60, the card is mi50; the operator labels "
                + "model.mi60, so a deployment asking for mi50 is not bid on here"), reasons(card));
    }

    @Test
    void aRecordingWithoutPciIdsCannotTell() throws IOException {
        CommandRun r = run("akash", "--replay", Fixtures.host("geforce-rtx-3090_525.147.05_v12").toString(), "-o", "json");
        assertEquals(3, r.exit(), "neither bid on (0) nor not bid on (1): cannot tell");
        JsonNode card = json(r).get("nodes").get(0).get("cards").get(0);
        assertEquals("unknown", card.get("verdict").asText());
        assertEquals(List.of("PCI vendor or device id not known from bundle " + Fixtures.host("geforce-rtx-3090_525.147.05_v12")
                + ": the operator's table is keyed by them; the table lists rtx3090 as 10de:2204"), reasons(card));
    }

    /** The hand-made sysfs case (Intel UHD 770 at 00:02.0 beside an RTX 3090 at 01:00.0) with DRM links added. */
    private Path withDrm(String... cards) throws IOException {
        return Fixtures.sysfsWithDrm(dir.resolve("bundle"), cards);
    }

    @Test
    void aCardWithoutADrmNodeIsDroppedAndTheIntelIGpuIsNotOffered() throws IOException {
        // i915 has card0 (and its connector card0-HDMI-A-1, which ghw skips); nvidia_drm is not loaded.
        Path bundle = withDrm("card0=0000:00:02.0", "card0-HDMI-A-1=0000:00:02.0");
        CommandRun r = run("akash", "--replay", bundle.toString(), "-o", "json");
        assertEquals(1, r.exit(), r.err());
        JsonNode node = json(r).get("nodes").get(0);
        assertEquals(Map.of("akash.network", "true"), labels(node));
        JsonNode intel = node.get("cards").get(0);
        JsonNode nvidia = node.get("cards").get(1);
        assertEquals("skipped", intel.get("verdict").asText());
        assertEquals(List.of("integrated GPU (it uses the host's memory): Akash bids on nvidia.com/gpu and "
                + "amd.com/gpu cards and its table does not list it; the operator skips it"), reasons(intel));
        assertFalse(intel.has("tableEntry"));
        assertEquals(List.of("no DRM card in /sys/class/drm for 0000:01:00.0 (driver module not loaded: nvidia_drm for "
                + "NVIDIA): the operator skips it without a message"), reasons(nvidia));
        assertEquals("dropped", nvidia.get("verdict").asText());
    }

    @Test
    void withNvidiaDrmLoadedTheRtx3090IsCounted() throws IOException {
        // gpus.json: "2204": {"name": "rtx3090", "interface": "PCIe", "memory_size": "24Gi"}
        Path bundle = withDrm("card0=0000:00:02.0", "card1=0000:00:01.0/0000:01:00.0");
        CommandRun r = run("akash", "--replay", bundle.toString(), "-o", "json");
        assertEquals(0, r.exit(), "every card is bid on: the Intel iGPU is not one to offer");
        JsonNode node = json(r).get("nodes").get(0);
        assertEquals(Map.of("akash.network", "true", "nvidia.com/gpu.present", "true",
                KEY + "nvidia.model.rtx3090", "1", KEY + "nvidia.model.rtx3090.ram.24Gi", "1",
                KEY + "nvidia.model.rtx3090.interface.pcie", "1"), labels(node));
        assertEquals("bid", node.get("cards").get(1).get("verdict").asText());
        assertFalse(r.out().contains("DRM nodes:"), "the DRM check was made");
    }

    @Test
    void recordsJudgeAllocatableUnits() throws IOException {
        Path records = dir.resolve("records.yaml");
        Files.writeString(records, """
                apiVersion: v1
                kind: List
                items:
                - kind: GpuCapacity
                  metadata: {name: short-node}
                  spec:
                    gpus:
                    - {vendor: nvidia, model: rtx4090, memoryGi: 24, interface: pcie, pciAddress: "0000:01:00.0", pciVendorId: 10de, pciDeviceId: "2684"}
                    - {vendor: nvidia, model: rtx4090, memoryGi: 24, interface: pcie, pciAddress: "0000:02:00.0", pciVendorId: 10de, pciDeviceId: "2684"}
                    - {vendor: nvidia, model: rtx4090, memoryGi: 24, interface: pcie, pciAddress: "0000:03:00.0", pciVendorId: 10de, pciDeviceId: "2684"}
                    allocatable: {nvidia.com/gpu: 2}
                - kind: GpuCapacity
                  metadata: {name: no-plugin}
                  spec:
                    gpus:
                    - {vendor: nvidia, model: t4, memoryGi: 16, interface: pcie, pciAddress: "0000:00:1e.0", pciVendorId: 10de, pciDeviceId: 1eb8}
                    allocatable: {}
                - kind: GpuCapacity
                  metadata: {name: full-node}
                  spec:
                    gpus:
                    - {vendor: amd, model: mi100, memoryGi: 32, pciAddress: "0000:83:00.0", pciVendorId: "1002", pciDeviceId: 738c}
                    allocatable: {amd.com/gpu: 1}
                """);
        CommandRun r = run("akash", "--records", records.toString(), "-o", "json");
        assertEquals(1, r.exit(), r.err());
        JsonNode nodes = json(r).get("nodes");
        JsonNode full = nodes.get(0);
        JsonNode noPlugin = nodes.get(1);
        JsonNode shortNode = nodes.get(2);
        assertEquals("full-node", full.get("node").asText());
        // gpus.json: "738c": {"name": "mi100", "interface": "PCIe", "memory_size": "32Gi"}
        assertEquals(Map.of("akash.network", "true", KEY + "amd.model.mi100", "1", KEY + "amd.model.mi100.ram.32Gi", "1",
                KEY + "amd.model.mi100.interface.pcie", "1"), labels(full));
        assertEquals(0, full.get("problems").size());
        assertEquals(List.of("no nvidia.com/gpu allocatable (device plugin missing?)"),
                reasons(noPlugin.get("cards").get(0)));
        assertEquals("dropped", noPlugin.get("cards").get(0).get("verdict").asText());
        assertEquals("fewer allocatable units than cards: 2 nvidia.com/gpu allocatable for 3 nvidia cards the operator "
                + "counts; at most 2 are bid on", shortNode.get("problems").get(0).asText());
        assertEquals("3", labels(shortNode).get(KEY + "nvidia.model.rtx4090"), "the labels count cards, not units");
        assertTrue(r.out().contains("the GpuCapacity record does not say which cards have a DRM node"));
    }

    /**
     * {@code generateLabels} (provider {@code operator/inventory/node-discovery.go}): a node whose first Ready condition
     * is not True (or that has none), that is cordoned, or that a rule of {@code exclude.nodes} matches anywhere in its
     * name gets no label at all, and the provider bids with none of its cards. One T4 per node, read from a kubectl
     * list of records and Nodes.
     */
    @Test
    void aNodeTheOperatorLeavesOutGetsNoLabelAndNoBid() throws IOException {
        StringBuilder list = new StringBuilder("apiVersion: v1\nkind: List\nitems:\n");
        for (String node : List.of("ready", "cordoned", "not-ready", "no-condition", "old-gpu-3", "no-node-object")) {
            list.append("""
                    - kind: GpuCapacity
                      metadata: {name: %s}
                      spec:
                        gpus:
                        - {vendor: nvidia, model: t4, memoryGi: 16, interface: pcie, pciAddress: "0000:00:1e.0", pciVendorId: 10de, pciDeviceId: 1eb8}
                        allocatable: {nvidia.com/gpu: 1}
                    """.formatted(node));
        }
        list.append("""
                - {kind: Node, metadata: {name: ready}, status: {conditions: [{type: MemoryPressure, status: "False"}, {type: Ready, status: "True"}]}}
                - {kind: Node, metadata: {name: cordoned}, spec: {unschedulable: true}, status: {conditions: [{type: Ready, status: "True"}]}}
                - {kind: Node, metadata: {name: not-ready}, status: {conditions: [{type: Ready, status: "False", reason: KubeletNotReady}]}}
                - {kind: Node, metadata: {name: no-condition}, status: {}}
                - {kind: Node, metadata: {name: old-gpu-3}, status: {conditions: [{type: Ready, status: "True"}]}}
                """);
        Path records = dir.resolve("records.yaml");
        Files.writeString(records, list.toString());
        Path config = dir.resolve("config.yaml");
        Files.writeString(config, "version: v1\ncluster_storage: [default]\nexclude:\n  nodes: [\"gpu-\\\\d$\"]\n"
                + "  node_storage: []\n");

        CommandRun r = run("akash", "--records", records.toString(), "--akash-inventory-config", config.toString(), "-o", "json");

        assertEquals(1, r.exit(), r.err());
        Map<String, JsonNode> nodes = new TreeMap<>();
        json(r).get("nodes").forEach(n -> nodes.put(n.get("node").asText(), n));
        String leftOut = ": the operator writes no key on it and leaves it out of the inventory, so the provider bids "
                + "with none of its cards";
        Map<String, String> expected = Map.of(
                "cordoned", "node cordoned (spec.unschedulable)" + leftOut,
                "not-ready", "node not Ready (Ready is False: KubeletNotReady)" + leftOut,
                "no-condition", "node not Ready (no Ready condition)" + leftOut,
                "old-gpu-3", "node excluded by the Akash inventory operator's exclude.nodes rule 'gpu-\\d$'" + leftOut);
        expected.forEach((name, why) -> {
            JsonNode n = nodes.get(name);
            assertEquals(why, n.get("excluded").asText(), name);
            assertEquals(Map.of(), labels(n), name);
            assertEquals("dropped", n.get("cards").get(0).get("verdict").asText(), name);
            assertEquals(why, reasons(n.get("cards").get(0)).get(0), name);
        });
        // gpus.json: "1eb8": {"name": "t4", "interface": "PCIe", "memory_size": "16Gi"}
        for (String name : List.of("ready", "no-node-object")) {
            assertFalse(nodes.get(name).has("excluded"), name);
            assertEquals(Map.of("akash.network", "true", "nvidia.com/gpu.present", "true", KEY + "nvidia.model.t4", "1",
                    KEY + "nvidia.model.t4.ram.16Gi", "1", KEY + "nvidia.model.t4.interface.pcie", "1"),
                    labels(nodes.get(name)), name);
        }
        List<String> notChecked = new ArrayList<>();
        nodes.get("no-node-object").get("notChecked").forEach(c -> notChecked.add(c.asText()));
        assertTrue(notChecked.contains("node state: no Node object named no-node-object was read beside the records "
                + "(kubectl get gpucapacities,nodes -o yaml lists both); the operator writes no key at all on a node "
                + "that is not Ready or is cordoned"), notChecked.toString());
        assertFalse(r.out().contains("node exclusion:"), "the exclusion rules were given");

        CommandRun table = run("akash", "--records", records.toString(), "--akash-inventory-config", config.toString());
        assertTrue(table.out().contains("node cordoned: 1 card: 1 dropped\n  left out: node cordoned "
                + "(spec.unschedulable)" + leftOut + "\n  labels the operator writes: none\n"), table.out());

        CommandRun withoutRules = run("akash", "--records", records.toString(), "-o", "json");
        JsonNode excludedByName = null;
        for (JsonNode n : json(withoutRules).get("nodes")) {
            if (n.get("node").asText().equals("old-gpu-3")) {
                excludedByName = n;
            }
        }
        assertFalse(excludedByName.has("excluded"), "no rule was given");
        assertTrue(excludedByName.get("notChecked").toString().contains("node exclusion: the inventory operator's "
                + "exclude.nodes rules were not given (--akash-inventory-config FILE)"), excludedByName.toString());
    }

    @Test
    void aBrokenTableIsInvalidInputNamingFileAndLine() throws IOException {
        Path file = dir.resolve("gpus.json");
        Files.writeString(file, "{\n  \"10de\": {\n    \"name\": \"nvidia\",\n    \"devices\": {\"2684\": {\"name\": 7}}\n  }\n}\n");
        CommandRun typed = run("akash", "--replay", Fixtures.host("tesla-t4_515.105.01_v11").toString(), "--akash-table", file.toString());
        assertEquals(2, typed.exit());
        assertEquals("gpu-detect akash: " + file + ": 10de.devices.2684.name: expected a string, found number 7 "
                + "(the operator would read it as empty)\n", typed.err());
        Files.writeString(file, "{\n  \"10de\": {\n    \"name\": \"nvidia\",,\n");
        CommandRun syntax = run("akash", "--replay", Fixtures.host("tesla-t4_515.105.01_v11").toString(), "--akash-table", file.toString());
        assertEquals(2, syntax.exit());
        assertEquals("gpu-detect akash: " + file + ":3:22: not valid JSON: expected a key in double quotes, found ','; "
                + "the operator reads no GPU at all from such a table\n", syntax.err());
        assertEquals(2, run("akash", "--records", file.toString(), "--replay", dir.toString()).exit());
    }

    @Test
    void aProviderConfigsUrlIsReadAtDevicesGpusAsTheOperatorDoes() throws IOException {
        byte[] body = """
                {"10de": {"NAME": "nvidia", "devices": {"1eb8": {"name": "t4", "interface": "PCIe", "memory_size": "8Gi",
                 "subsystems": {"12a2": {"name": "t4x"}}}}}}
                """.getBytes(StandardCharsets.UTF_8);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        List<String> asked = new ArrayList<>();
        server.createContext("/", exchange -> {
            asked.add(exchange.getRequestURI().getPath());
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            // A path of its own: a table fetched from a URL is cached for a day under a name made from the URL,
            // and an earlier run that got the same port would otherwise be answered from that cache.
            String base = "/" + java.util.UUID.randomUUID() + "/";
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + base;
            CommandRun r = run("akash", "--replay", Fixtures.host("tesla-t4_515.105.01_v11").toString(), "--akash-table", url, "-o", "json");
            assertEquals(List.of(base + "devices/gpus"), asked);
            assertEquals(0, r.exit(), r.err());
            JsonNode node = json(r).get("nodes").get(0);
            // NAME matches name as Go's decoder matches field names; subsystems is not a field the operator knows.
            // Detection reads the same table: 8Gi is too far from the card's 15360 MiB to be taken as its size.
            assertEquals(Map.of("akash.network", "true", "nvidia.com/gpu.present", "true",
                    KEY + "nvidia.model.t4", "1", KEY + "nvidia.model.t4.ram.8Gi", "1",
                    KEY + "nvidia.model.t4.interface.pcie", "1"), labels(node));
            assertEquals(List.of("VRAM differs: Akash's table says 8Gi for 10de:1eb8, the card has 16Gi; the operator "
                    + "labels ram.8Gi, so a deployment asking for 16Gi is not bid on here"), reasons(node.get("cards").get(0)));
        } finally {
            server.stop(0);
        }
    }

    @Test
    void anIntegratedGpuBesideTwoCardsIsListedNotOfferedAndFailsNothing() throws IOException {
        // gpus.json: "2231": {"name": "a5000", "interface": "PCIe", "memory_size": "24Gi"}; no Intel vendor.
        CommandRun r = run("akash", "--replay", Fixtures.testCase("intel-igpu-beside-2x-rtx-a5000").toString(), "-o", "json");
        assertEquals(0, r.exit(), r.out());
        JsonNode node = json(r).get("nodes").get(0);
        assertEquals(Map.of("akash.network", "true", "nvidia.com/gpu.present", "true",
                KEY + "nvidia.model.a5000", "2", KEY + "nvidia.model.a5000.ram.24Gi", "2",
                KEY + "nvidia.model.a5000.interface.pcie", "2"), labels(node));
        List<String> verdicts = new ArrayList<>();
        node.get("cards").forEach(c -> verdicts.add(c.get("name").asText() + ": " + c.get("verdict").asText()));
        assertEquals(List.of("NVIDIA RTX A5000: bid", "NVIDIA RTX A5000: bid", "Intel(R) HD Graphics: skipped"), verdicts);
        CommandRun table = run("akash", "--replay", Fixtures.testCase("intel-igpu-beside-2x-rtx-a5000").toString());
        assertTrue(table.out().contains("3 cards: 2 bid, 1 skipped"), table.out());
        assertTrue(table.out().contains("  card (address unknown)  ????:????  Intel(R) HD Graphics: not offered\n"),
                table.out());
        assertTrue(table.out().endsWith("Every card is bid on\n"), table.out());
    }

    @Test
    void everyRealHostGetsAVerdictForEachCard() throws IOException {
        for (Path h : Fixtures.hosts()) {
            CommandRun r = run("akash", "--replay", h.toString(), "-o", "json");
            assertTrue(r.exit() == 0 || r.exit() == 1 || r.exit() == 3, h + ": " + r.err());
            JsonNode node = json(r).get("nodes").get(0);
            assertEquals(Fixtures.detect(h).realGpus().size(), node.get("cards").size(), h.toString());
            assertEquals("true", labels(node).get("akash.network"), h.toString());
        }
    }
}
