package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpudetect.testing.CommandRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hand-written records with failed and lost GPUs (issue 38, "the market reads it"): {@code inventory} and
 * {@code match} count only healthy GPUs as free, {@code min(allocatable, healthy units) - in use}, and say which are
 * not counted and why (the record's {@code healthReasons}); {@code akash} keeps the allocatable as the operator reads
 * it and warns when it still counts a failed GPU.
 */
class HealthRecordFileTest {

    @TempDir
    Path dir;

    private static final String H100 = "vendor: nvidia, model: h100, memoryGi: 80, interface: sxm, pciVendorId: 10de, "
            + "pciDeviceId: \"2330\"";

    /**
     * {@code kept}: 4 H100s, one failed and one lost, one degraded; the device plugin still counts all 4, 1 in use:
     * free min(4, 2) - 1 = 1 (3 before health was read).
     * {@code removed}: 4 H100s, one failed, which the device plugin took out (3 allocatable), 1 in use: free
     * min(3, 3) - 1 = 2; subtracting the failed GPU from the allocatable again would say 1.
     */
    private Path records() throws IOException {
        return Files.writeString(dir.resolve("records.yaml"), """
                - kind: GpuCapacity
                  metadata: {name: kept}
                  spec:
                    gpus:
                    - {%1$s, pciAddress: "0000:17:00.0", health: ok}
                    - {%1$s, pciAddress: "0000:18:00.0", health: failed, healthReasons: [XidCritical]}
                    - {%1$s, pciAddress: "0000:19:00.0", health: lost, healthReasons: [GpuLost]}
                    - {%1$s, pciAddress: "0000:1a:00.0", health: degraded, healthReasons: [RowsPendingRemap]}
                    allocatable: {nvidia.com/gpu: 4}
                    requested: {nvidia.com/gpu: 1}
                  status: {lastGoodPass: "2026-05-01T10:00:00Z"}
                - kind: GpuCapacity
                  metadata: {name: removed}
                  spec:
                    gpus:
                    - {%1$s, pciAddress: "0000:17:00.0", health: ok}
                    - {%1$s, pciAddress: "0000:18:00.0", health: ok}
                    - {%1$s, pciAddress: "0000:19:00.0", health: ok}
                    - {%1$s, pciAddress: "0000:1a:00.0", health: failed}
                    allocatable: {nvidia.com/gpu: 3}
                    requested: {nvidia.com/gpu: 1}
                  status: {lastGoodPass: "2026-05-01T10:00:00Z"}
                """.formatted(H100));
    }

    /** Each GPU with the reason codes its record gives; removed's record gives none. */
    private static final String KEPT_NOT_COUNTED = "1 GPU failed, 1 lost, not counted as free: 0000:18:00.0 (h100 80Gi "
            + "sxm) failed (XidCritical), 0000:19:00.0 (h100 80Gi sxm) lost (GpuLost)";

    @Test
    void inventoryCountsOnlyHealthyGpusAsFreeAndSaysWhichAreNot() throws IOException {
        CommandRun r = CommandRun.of("inventory", "--records", records().toString(), "--now", "2026-05-01T10:01:00Z",
                "-o", "json");
        assertEquals(0, r.exit(), r.err() + r.out());
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertEquals("[{\"unitKind\":\"nvidia\",\"nodes\":2,\"units\":8,\"allocatable\":7,\"inUse\":2,\"free\":3}]",
                doc.get("units").toString(), "kept 1 free, removed 2: allocatable and in use as the records say");
        JsonNode model = doc.get("models").get(0);
        assertEquals(List.of(8, 7, 2, 3), List.of(model.get("gpus").asInt(), model.get("allocatable").asInt(),
                model.get("inUse").asInt(), model.get("free").asInt()));
        Map<String, String> notCounted = new TreeMap<>();
        for (JsonNode n : doc.get("nodes")) {
            notCounted.put(n.get("node").asText(), n.has("notCounted") ? n.get("notCounted").asText() : null);
            assertEquals("ok", n.get("state").asText(), "a node with a failed GPU is not flagged: its record is current");
        }
        assertEquals(KEPT_NOT_COUNTED, notCounted.get("kept"));
        assertEquals("1 GPU failed, not counted as free: 0000:1a:00.0 (h100 80Gi sxm) failed", notCounted.get("removed"));

        CommandRun table = CommandRun.of("inventory", "--records", records().toString(), "--now", "2026-05-01T10:01:00Z");
        assertTrue(table.out().contains("health: kept: " + KEPT_NOT_COUNTED + "\n"), table.out());
    }

    @Test
    void matchServesNoReplicaWithAFailedOrLostGpu() throws IOException {
        String file = records().toString();
        CommandRun two = CommandRun.of("match", "--records", file, "--gpu", "vendor=nvidia,model=h100,count=2",
                "-o", "json");
        assertEquals(0, two.exit(), two.err() + two.out());
        Map<String, String> verdicts = new TreeMap<>();
        for (JsonNode v : new ObjectMapper().readTree(two.out()).get("placements").get(0).get("nodes")) {
            verdicts.put(v.get("node").asText(), v.get("canServe").asBoolean() + " " + v.get("free").asInt() + " "
                    + (v.has("reason") ? v.get("reason").asText() : "-"));
        }
        assertEquals(Map.of(
                "kept", "false 1 too few free healthy units: 1 nvidia free; 4 nvidia allocatable, 2 on healthy GPUs, "
                        + "1 in use, 2 asked per replica",
                "removed", "true 2 -"), verdicts);

        CommandRun table = CommandRun.of("match", "--records", file, "--gpu", "vendor=nvidia,model=h100,count=3");
        assertEquals(1, table.exit(), table.out());
        assertTrue(table.out().contains("too few GPUs: 2 matching GPUs (h100 80Gi sxm), 3 asked per replica; "
                + KEPT_NOT_COUNTED), table.out());
        assertTrue(table.out().contains("too few free healthy units: 2 nvidia free; 3 nvidia allocatable, 3 on healthy "
                + "GPUs, 1 in use, 3 asked per replica; 1 GPU failed, not counted as free: 0000:1a:00.0 (h100 80Gi "
                + "sxm) failed"), table.out());
    }

    @Test
    void akashWarnsWhenTheAllocatableStillCountsAFailedGpu() throws IOException {
        Path table = Files.writeString(dir.resolve("gpus.json"), """
                {"10de": {"name": "nvidia", "devices": {"2330": {"name": "h100", "interface": "SXM5", "memory_size": "80Gi"}}}}
                """);
        CommandRun r = CommandRun.of("akash", "--records", records().toString(), "--akash-table", table.toString(),
                "-o", "json");
        Map<String, List<String>> warnings = new TreeMap<>();
        Map<String, String> labels = new TreeMap<>();
        for (JsonNode n : new ObjectMapper().readTree(r.out()).get("nodes")) {
            List<String> w = new ArrayList<>();
            if (n.has("warnings")) {
                n.get("warnings").forEach(x -> w.add(x.asText()));
            }
            warnings.put(n.get("node").asText(), w);
            labels.put(n.get("node").asText(),
                    n.get("labels").get("akash.network/capabilities.gpu.vendor.nvidia.model.h100").asText());
        }
        assertEquals(Map.of(
                "kept", List.of("the operator would bid on a failed GPU: the device plugin has not marked it unhealthy "
                        + "(GPU 0000:18:00.0 failed, GPU 0000:19:00.0 lost; 4 nvidia.com/gpu allocatable for 2 healthy "
                        + "nvidia cards)"),
                "removed", List.of()), warnings, "the device plugin took removed's failed GPU out: nothing to warn");
        assertEquals(Map.of("kept", "4", "removed", "4"), labels, "the operator's labels as it writes them");

        CommandRun text = CommandRun.of("akash", "--records", records().toString(), "--akash-table", table.toString());
        assertTrue(text.out().contains("  warnings:\n    - the operator would bid on a failed GPU"), text.out());
        assertFalse(text.out().contains("failed GPU: the device plugin has not marked it unhealthy (GPU 0000:1a:00.0"),
                text.out());
    }
}
