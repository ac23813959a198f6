package io.gpudetect.akash;

import io.gpudetect.testing.CommandRun;
import io.gpudetect.probe.pci.DrmCards;
import static io.gpudetect.akash.AkashCommandTest.json;
import static io.gpudetect.akash.AkashCommandTest.labels;
import static io.gpudetect.akash.AkashCommandTest.reasons;
import static io.gpudetect.akash.AkashCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpudetect.record.CapacityRecords;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.source.BundleException;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.Source;
import io.gpudetect.testing.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DRM nodes judged from {@code GpuCapacity} records ({@code spec.sysClassDrm} and each GPU's {@code drmCards}), with
 * the reasons a host gets word for word; a record that does not carry them leaves the check "not checked", never
 * "no DRM node".
 */
class RecordDrmNodesTest {

    private static final String KEY = "akash.network/capabilities.gpu.vendor.";
    private static final String RTX4090 = "vendor: nvidia, model: rtx4090, memoryGi: 24, interface: pcie, "
            + "pciAddress: \"0000:01:00.0\", pciVendorId: 10de, pciDeviceId: \"2684\"";

    @TempDir
    Path dir;

    private Path records(String text) throws IOException {
        Path file = dir.resolve("records.yaml");
        Files.writeString(file, text);
        return file;
    }

    /** The node named {@code name} in a JSON report. */
    private static JsonNode node(JsonNode report, String name) {
        for (JsonNode n : report.get("nodes")) {
            if (n.get("node").asText().equals(name)) {
                return n;
            }
        }
        throw new AssertionError("no node " + name + " in " + report);
    }

    private static List<String> notChecked(JsonNode node) {
        List<String> out = new ArrayList<>();
        node.get("notChecked").forEach(n -> out.add(n.asText()));
        return out;
    }

    @Test
    void recordsThatListDrmCardsAreJudgedAsAHostIs() throws IOException {
        // gpus.json: "2684": {"name": "rtx4090", "interface": "PCIe", "memory_size": "24Gi"}
        Path file = records("""
                apiVersion: v1
                kind: List
                items:
                - kind: GpuCapacity
                  metadata: {name: drm-loaded}
                  spec:
                    sysClassDrm: true
                    gpus:
                    - {%1$s, drmCards: [card1]}
                    allocatable: {nvidia.com/gpu: 1}
                - kind: GpuCapacity
                  metadata: {name: no-nvidia-drm}
                  spec:
                    sysClassDrm: true
                    gpus:
                    - {%1$s, drmCards: []}
                    allocatable: {nvidia.com/gpu: 1}
                - kind: GpuCapacity
                  metadata: {name: no-drm-class}
                  spec:
                    sysClassDrm: false
                    gpus:
                    - {%1$s, drmCards: []}
                    allocatable: {nvidia.com/gpu: 1}
                - kind: GpuCapacity
                  metadata: {name: older-agent}
                  spec:
                    gpus:
                    - {%1$s}
                    allocatable: {nvidia.com/gpu: 1}
                - kind: GpuCapacity
                  metadata: {name: one-gpu-unsaid}
                  spec:
                    sysClassDrm: true
                    gpus:
                    - {%1$s, drmCards: [card1]}
                    - {vendor: nvidia, model: rtx4090, memoryGi: 24, interface: pcie, pciAddress: "0000:02:00.0", pciVendorId: 10de, pciDeviceId: "2684"}
                    allocatable: {nvidia.com/gpu: 2}
                """.formatted(RTX4090));
        CommandRun r = run("akash", "--records", file.toString(), "-o", "json");
        assertEquals(1, r.exit(), r.err() + r.out());
        JsonNode report = json(r);

        JsonNode loaded = node(report, "drm-loaded");
        assertEquals("bid", loaded.get("cards").get(0).get("verdict").asText());
        assertEquals("1", labels(loaded).get(KEY + "nvidia.model.rtx4090"));
        assertTrue(notChecked(loaded).stream().noneMatch(n -> n.startsWith("DRM nodes:")), notChecked(loaded).toString());

        // The same words as AkashCommandTest.aCardWithoutADrmNodeIsDroppedAndTheIntelIGpuIsNotOffered gets from sysfs.
        JsonNode missing = node(report, "no-nvidia-drm").get("cards").get(0);
        assertEquals("dropped", missing.get("verdict").asText());
        assertEquals(List.of("no DRM card in /sys/class/drm for 0000:01:00.0 (driver module not loaded: nvidia_drm for "
                + "NVIDIA): the operator skips it without a message"), reasons(missing));
        assertEquals(Map.of("akash.network", "true"), labels(node(report, "no-nvidia-drm")));

        JsonNode noClass = node(report, "no-drm-class").get("cards").get(0);
        assertEquals("dropped", noClass.get("verdict").asText());
        assertEquals(List.of("no /sys/class/drm on this host: the operator sees no graphics card at all"),
                reasons(noClass));

        // A record from an agent that did not write the fields: not known, so assumed present and not failed.
        JsonNode older = node(report, "older-agent");
        assertEquals("bid", older.get("cards").get(0).get("verdict").asText());
        assertTrue(notChecked(older).contains("DRM nodes: the GpuCapacity record does not say which cards have a DRM "
                + "node (no sysClassDrm: its agent could not read /sys/class/drm, or is older than the field); run "
                + "gpu-detect akash on the node itself; the labels assume every card has one"), notChecked(older).toString());

        JsonNode unsaid = node(report, "one-gpu-unsaid");
        assertEquals(List.of("bid", "bid"), List.of(unsaid.get("cards").get(0).get("verdict").asText(),
                unsaid.get("cards").get(1).get("verdict").asText()), "a GPU without drmCards is not read as having none");
        assertTrue(notChecked(unsaid).contains("DRM nodes: the GpuCapacity record's gpus[1] has no drmCards; run "
                + "gpu-detect akash on the node itself; the labels assume every card has one"), notChecked(unsaid).toString());
    }

    @Test
    void aBadDrmCardsValueIsInvalidInputNamingFileLineAndField() throws IOException {
        Path file = records("""
                - kind: GpuCapacity
                  metadata: {name: n1}
                  spec:
                    sysClassDrm: true
                    gpus:
                    - vendor: nvidia
                      drmCards: [card0-HDMI-A-1]
                """);
        CommandRun r = run("akash", "--records", file.toString());
        assertEquals(2, r.exit(), r.out());
        assertEquals("gpu-detect akash: " + file + ":7: [0](n1).gpus[0].drmCards[0]: expected a DRM card name such "
                + "as card0, found 'card0-HDMI-A-1'", r.err().strip());

        Path yes = records("""
                - kind: GpuCapacity
                  metadata: {name: n1}
                  spec: {sysClassDrm: yes, gpus: []}
                """);
        CommandRun r2 = run("akash", "--records", yes.toString());
        assertEquals(2, r2.exit(), r2.out());
        assertEquals("gpu-detect akash: " + yes + ":3: [0](n1).sysClassDrm: expected true or false, found 'yes'",
                r2.err().strip());
    }

    /**
     * The record the agent writes from a bundle (its spec as {@link CapacityRecords#spec} makes it, the DRM cards read
     * through the bundle's source as the agent reads them) gives {@code akash --records} the labels, verdicts and
     * reasons {@code akash --replay} gives for the bundle itself.
     */
    @Test
    void theAgentsRecordOfABundleJudgesDrmNodesAsTheBundleDoes() throws Exception {
        // i915 has card0; nvidia_drm not loaded, then loaded (card1).
        for (String[] cards : List.of(new String[] {"card0=0000:00:02.0", "card0-HDMI-A-1=0000:00:02.0"},
                new String[] {"card0=0000:00:02.0", "card1=0000:00:01.0/0000:01:00.0"})) {
            Path bundle = Fixtures.sysfsWithDrm(Files.createTempDirectory(dir, "bundle"), cards);
            GpuCapacitySpec spec = specOf(bundle);
            assertEquals(Boolean.TRUE, spec.sysClassDrm());
            boolean nvidiaDrm = cards[1].startsWith("card1=");
            assertEquals(List.of(List.of("card0"), nvidiaDrm ? List.of("card1") : List.of()),
                    spec.gpus().stream().map(GpuCapacitySpec.GpuEntry::drmCards).toList(), "Intel, then NVIDIA");

            JsonNode fromBundle = json(run("akash", "--replay", bundle.toString(), "-o", "json")).get("nodes").get(0);
            Path file = dir.resolve("record-" + nvidiaDrm + ".json");
            Files.writeString(file, Serialization.asJson(record("host", spec)));
            CommandRun r = run("akash", "--records", file.toString(), "-o", "json");
            JsonNode fromRecord = json(r).get("nodes").get(0);

            assertEquals(labels(fromBundle), labels(fromRecord));
            assertEquals(fromBundle.get("cards").size(), fromRecord.get("cards").size());
            for (int i = 0; i < fromBundle.get("cards").size(); i++) {
                JsonNode b = fromBundle.get("cards").get(i);
                JsonNode c = fromRecord.get("cards").get(i);
                assertEquals(b.get("verdict").asText(), c.get("verdict").asText());
                assertEquals(reasons(b), reasons(c));
            }
            assertEquals(nvidiaDrm ? "bid" : "dropped", fromRecord.get("cards").get(1).get("verdict").asText());
            assertTrue(notChecked(fromRecord).stream().noneMatch(n -> n.startsWith("DRM nodes:")), r.out());
        }
    }

    @Test
    void aBundleRecordedWithoutSysClassDrmWritesARecordThatDoesNotSay() throws Exception {
        GpuCapacitySpec spec = specOf(Fixtures.testCase("sysfs_intel-igpu-beside-nvidia"));
        assertNull(spec.sysClassDrm());
        assertTrue(spec.gpus().stream().allMatch(g -> g.drmCards() == null));
        String json = Serialization.asJson(record("host", spec));
        assertFalse(json.contains("drmCards") || json.contains("sysClassDrm"), json);
    }

    /** The record spec the agent writes for {@code bundle}. */
    private static GpuCapacitySpec specOf(Path bundle) throws BundleException {
        Source source = BundleSource.open(bundle);
        return CapacityRecords.spec(Fixtures.detect(bundle), Map.of("nvidia.com/gpu", 1L), Map.of(), null,
                DrmCards.read(source), "test");
    }

    private static GpuCapacity record(String node, GpuCapacitySpec spec) {
        GpuCapacity record = new GpuCapacity();
        record.setMetadata(new ObjectMetaBuilder().withName(node).build());
        record.setSpec(spec);
        return record;
    }
}
