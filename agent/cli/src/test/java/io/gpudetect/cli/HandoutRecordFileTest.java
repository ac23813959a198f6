package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * Hand-written records with the agent's {@code handout}: {@code inventory}, {@code match} and {@code akash
 * --records} count DRA GPUs as {@code --cluster} does, report unmatched devices and problems as warnings, and a
 * bad value gets the file, line, field and what was expected.
 */
class HandoutRecordFileTest {

    @TempDir
    Path dir;

    private static final String H100 = "vendor: nvidia, model: h100, memoryGi: 80, interface: sxm, pciVendorId: 10de, "
            + "pciDeviceId: \"2330\"";
    private static final String MI300X = "vendor: amd, model: mi300x, memoryGi: 192, interface: oam, "
            + "pciVendorId: \"1002\", pciDeviceId: 74a1";

    /**
     * {@code dra}: 3 H100s, all DRA; 1b held by a claim, 43 has a held MIG device, 9a free; an unmatched AMD device
     * and a pool still being published. So nvidia 3 allocatable, 2 in use.
     * {@code both}: 2 H100s served by the device plugin and DRA ({@code nvidia.com/gpu: 1}), 1 requested; an MI300X
     * only DRA hands out, free. So nvidia 1 allocatable, 1 in use; amd 1 allocatable, 0 in use.
     */
    private Path records() throws IOException {
        Path file = dir.resolve("records.yaml");
        Files.writeString(file, """
                - kind: GpuCapacity
                  metadata: {name: dra}
                  spec:
                    gpus:
                    - {%1$s, pciAddress: "0000:1b:00.0"}
                    - {%1$s, pciAddress: "0000:43:00.0"}
                    - {%1$s, pciAddress: "0000:9a:00.0"}
                    allocatable: {}
                    handout:
                      mode: dra
                      gpus:
                      - pciAddress: "0000:1b:00.0"
                        by: dra
                        allocated: true
                        dra: [{driver: gpu.nvidia.com, pool: dra, device: gpu-0, type: gpu, allocated: true, claims: [ml/a]}]
                      - pciAddress: "0000:43:00.0"
                        by: dra
                        allocated: true
                        dra:
                        - {driver: gpu.nvidia.com, pool: dra, device: gpu-1, type: gpu}
                        - {driver: gpu.nvidia.com, pool: dra, device: gpu-1-mig-1g10gb-19-0, type: mig, claims: [ml/b]}
                      - pciAddress: "0000:9a:00.0"
                        by: dra
                        allocated: false
                        dra: [{driver: gpu.nvidia.com, pool: dra, device: gpu-2, type: gpu}]
                      draTotals: [{driver: gpu.nvidia.com, gpus: 3, allocatedGpus: 2, devices: 4, allocatedDevices: 2}]
                      unmatched: [{driver: gpu.amd.com, pool: dra, device: gpu-1-129, type: amdgpu}]
                      problems: ["gpu.nvidia.com/dra: 1 of 2 slices of generation 3"]
                  status: {lastGoodPass: "2026-05-01T10:00:00Z"}
                - kind: GpuCapacity
                  metadata: {name: both}
                  spec:
                    gpus:
                    - {%1$s, pciAddress: "0000:1b:00.0"}
                    - {%1$s, pciAddress: "0000:43:00.0"}
                    - {%2$s, pciAddress: "0000:c1:00.0"}
                    allocatable: {nvidia.com/gpu: 1}
                    requested: {nvidia.com/gpu: 1}
                    handout:
                      mode: both
                      gpus:
                      - {pciAddress: "0000:1b:00.0", by: both, devicePlugin: nvidia.com/gpu, allocated: false,
                         dra: [{driver: gpu.nvidia.com, pool: both, device: gpu-0}]}
                      - {pciAddress: "0000:43:00.0", by: both, devicePlugin: nvidia.com/gpu, allocated: false,
                         dra: [{driver: gpu.nvidia.com, pool: both, device: gpu-1}]}
                      - {pciAddress: "0000:c1:00.0", by: dra, allocated: false,
                         dra: [{driver: gpu.amd.com, pool: both, device: gpu-1-129, type: amdgpu}]}
                  status: {lastGoodPass: "2026-05-01T10:00:00Z"}
                """.formatted(H100, MI300X));
        return file;
    }

    @Test
    void inventoryCountsHandOutGpusFromAFile() throws IOException {
        CommandRun r = CommandRun.of("inventory", "--records", records().toString(), "--now", "2026-05-01T10:01:00Z",
                "-o", "json");
        assertEquals(0, r.exit(), r.err() + r.out());
        JsonNode doc = new ObjectMapper().readTree(r.out());
        Map<String, String> perNode = new TreeMap<>();
        List<String> warnings = new ArrayList<>();
        for (JsonNode n : doc.get("nodes")) {
            perNode.put(n.get("node").asText(), "alloc=" + n.get("allocatable") + " used=" + n.get("inUse"));
            if (n.has("warnings")) {
                n.get("warnings").forEach(w -> warnings.add(n.get("node").asText() + ": " + w.asText()));
            }
        }
        assertEquals(Map.of("dra", "alloc={\"nvidia\":3} used={\"nvidia\":2}",
                "both", "alloc={\"amd\":1,\"nvidia\":1} used={\"amd\":0,\"nvidia\":1}"), perNode);
        assertEquals(List.of(
                "both: GPU 0000:1b:00.0 is served by both the device plugin (nvidia.com/gpu) and DRA driver "
                        + "gpu.nvidia.com: counted once, as a nvidia.com/gpu unit",
                "both: GPU 0000:43:00.0 is served by both the device plugin (nvidia.com/gpu) and DRA driver "
                        + "gpu.nvidia.com: counted once, as a nvidia.com/gpu unit",
                "dra: DRA device gpu.amd.com/dra/gpu-1-129 (type amdgpu) matches no detected GPU: not counted",
                "dra: DRA hand-out may be incomplete: gpu.nvidia.com/dra: 1 of 2 slices of generation 3"), warnings);
    }

    @Test
    void matchServesOnlyTheFreeDraGpu() throws IOException {
        String file = records().toString();
        CommandRun one = CommandRun.of("match", "--records", file, "--gpu", "vendor=nvidia,model=h100,count=1");
        assertEquals(0, one.exit(), one.out());
        assertTrue(one.out().contains("fits on dra\n"), "both has no free nvidia unit: " + one.out());
        CommandRun two = CommandRun.of("match", "--records", file, "--gpu", "vendor=nvidia,model=h100,count=2");
        assertEquals(1, two.exit(), two.out());
        assertTrue(two.out().contains("too few free units: 1 nvidia free of 3, 2 asked per replica"), two.out());
        assertTrue(two.out().contains("all units in use: 1 nvidia allocatable, 1 in use"), two.out());
        assertEquals(0, CommandRun.of("match", "--records", file, "--gpu", "vendor=amd,model=mi300x,count=1").exit(),
                "the MI300X that only DRA hands out is free");
    }

    @Test
    void akashForecastForANodeWithBoth() throws IOException {
        Path table = dir.resolve("gpus.json");
        Files.writeString(table, """
                {"10de": {"name": "nvidia", "devices": {"2330": {"name": "h100", "interface": "SXM5", "memory_size": "80Gi"}}},
                 "1002": {"name": "amd", "devices": {"74a1": {"name": "mi300x", "interface": "OAM", "memory_size": "192Gi"}}}}
                """);
        CommandRun r = CommandRun.of("akash", "--records", records().toString(), "--akash-table", table.toString(),
                "-o", "json");
        assertEquals(1, r.exit(), r.err() + r.out());
        JsonNode both = null;
        for (JsonNode n : new ObjectMapper().readTree(r.out()).get("nodes")) {
            if (n.get("node").asText().equals("both")) {
                both = n;
            }
        }
        List<String> problems = new ArrayList<>();
        both.get("problems").forEach(p -> problems.add(p.asText()));
        // amd.com/gpu is not allocatable: the MI300X is DRA's; nvidia.com/gpu: 1 for 2 H100s, both also DRA's.
        assertEquals(List.of(
                "Akash's inventory operator reads the node's allocatable amd.com/gpu only (0), so the provider bids 0 "
                        + "amd.com/gpu units on this node, only the device plugins' 1 GPU unit: 1 amd GPU is handed out "
                        + "by DRA driver gpu.amd.com through ResourceSlices and ResourceClaims, not a device plugin",
                "fewer allocatable units than cards: 1 nvidia.com/gpu allocatable for 2 nvidia cards the operator "
                        + "counts; at most 1 are bid on (2 of the cards are also handed out by a DRA driver, through "
                        + "ResourceSlices and ResourceClaims: only the device plugin's units are bid)"), problems);
        List<String> verdicts = new ArrayList<>();
        both.get("cards").forEach(c -> verdicts.add(c.get("pciAddress").asText() + " " + c.get("verdict").asText()));
        assertEquals(List.of("0000:1b:00.0 bid", "0000:43:00.0 bid", "0000:c1:00.0 dropped"), verdicts);
    }

    @Test
    void aMigGpuOrAGpuMissingFromTheRecordIsReportedNotCounted() throws IOException {
        Path file = Files.writeString(dir.resolve("mig.yaml"), """
                - metadata: {name: mig}
                  gpus:
                  - {%1$s, pciAddress: "0000:1b:00.0", partitioned: true}
                  - {%1$s, pciAddress: "0000:43:00.0"}
                  allocatable: {}
                  lastGoodPass: "2026-05-01T10:00:00Z"
                  handout:
                    mode: dra
                    gpus:
                    - {pciAddress: "0000:1b:00.0", by: dra, dra: [{driver: gpu.nvidia.com, pool: mig, device: gpu-0-mig-1g10gb-19-0, type: mig}]}
                    - {pciAddress: "0000:43:00.0", by: dra, dra: [{driver: gpu.nvidia.com, pool: mig, device: gpu-1}]}
                    - {pciAddress: "0000:9a:00.0", by: dra, dra: [{driver: gpu.nvidia.com, pool: mig, device: gpu-2}]}
                """.formatted(H100));
        CommandRun r = CommandRun.of("inventory", "--records", file.toString(), "--now", "2026-05-01T10:01:00Z", "-o", "json");
        assertEquals(0, r.exit(), r.err());
        JsonNode node = new ObjectMapper().readTree(r.out()).get("nodes").get(0);
        assertEquals("{\"nvidia\":1}", node.get("allocatable").toString(), "only 0000:43:00.0 is a whole-GPU unit");
        List<String> warnings = new ArrayList<>();
        node.get("warnings").forEach(w -> warnings.add(w.asText()));
        assertEquals(List.of("GPU 0000:1b:00.0 has MIG on and is handed out by DRA driver gpu.nvidia.com: its MIG "
                        + "devices are not counted as slices",
                "GPU 0000:9a:00.0 handed out by DRA driver gpu.nvidia.com is not in the record's gpus: not counted"),
                warnings);
    }

    @Test
    void aRecordWithoutHandoutReadsAsBefore() throws IOException {
        Path file = Files.writeString(dir.resolve("old.yaml"), """
                - metadata: {name: old}
                  gpus: [{%1$s, pciAddress: "0000:1b:00.0"}]
                  allocatable: {}
                  lastGoodPass: "2026-05-01T10:00:00Z"
                """.formatted(H100));
        CommandRun table = CommandRun.of("inventory", "--records", file.toString(), "--now", "2026-05-01T10:01:00Z");
        assertTrue(table.out().contains("NODE  GPUS  ALLOCATABLE  IN USE    LAST GOOD PASS        STATE\n"), table.out());
        assertTrue(!table.out().contains("warning"), table.out());
        CommandRun json = CommandRun.of("inventory", "--records", file.toString(), "--now", "2026-05-01T10:01:00Z", "-o", "json");
        JsonNode node = new ObjectMapper().readTree(json.out()).get("nodes").get(0);
        assertTrue(!node.has("handout") && !node.has("warnings"), json.out());
        CommandRun match = CommandRun.of("match", "--records", file.toString(), "--gpu", "vendor=nvidia,count=1");
        assertTrue(match.out().contains("no nvidia.com/gpu allocatable (device plugin missing?)"), match.out());
    }

    @Test
    void badHandoutValuesAreNamedWithFileLineAndField() throws IOException {
        assertError("""
                - metadata: {name: n}
                  gpus: [{vendor: nvidia, pciAddress: "0000:1b:00.0"}]
                  handout:
                    mode: dynamic
                """, ":4: [0](n).handout.mode: expected devicePlugin, dra, both, none, found 'dynamic'");
        assertError("""
                - metadata: {name: n}
                  gpus: [{vendor: nvidia, pciAddress: "0000:1b:00.0"}]
                  handout:
                    mode: dra
                    gpus:
                    - {pciAddress: "1b:00", by: dra, dra: [{driver: gpu.nvidia.com, pool: n, device: gpu-0}]}
                """, ":6: [0](n).handout.gpus[0].pciAddress: expected a PCI address such as 0000:17:00.0, found '1b:00'");
        assertError("""
                - metadata: {name: n}
                  gpus: [{vendor: nvidia, pciAddress: "0000:1b:00.0"}]
                  handout:
                    mode: dra
                    gpus:
                    - pciAddress: "0000:1b:00.0"
                      by: dra
                      dra:
                      - {driver: gpu.nvidia.com, device: gpu-0}
                """, ":9: [0](n).handout.gpus[0].dra[0].pool: missing; expected the device's pool as its ResourceSlice names it");
        assertError("""
                - metadata: {name: n}
                  gpus: [{vendor: nvidia, pciAddress: "0000:1b:00.0"}]
                  handout:
                    mode: dra
                    gpus:
                    - pciAddress: "0000:1b:00.0"
                      by: dra
                      allocated: yes
                      dra: [{driver: gpu.nvidia.com, pool: n, device: gpu-0}]
                """, ":8: [0](n).handout.gpus[0].allocated: expected true or false, found 'yes'");
        assertError("""
                - metadata: {name: n}
                  gpus: [{vendor: nvidia, pciAddress: "0000:1b:00.0"}]
                  handout:
                    mode: dra
                    gpus:
                    - {pciAddress: "0000:1b:00.0", by: dra}
                """, ":6: [0](n).handout.gpus[0].dra: expected at least one DRA device for by: dra");
        assertError("""
                - metadata: {name: n}
                  gpus: [{vendor: nvidia, pciAddress: "0000:1b:00.0"}]
                  handout:
                    mode: dra
                    draTotals: [{driver: gpu.nvidia.com, gpus: two}]
                """, ":5: [0](n).handout.draTotals[0].gpus: expected a whole number of 0 or more, found 'two'");
    }

    private void assertError(String yaml, String expected) throws IOException {
        Path file = Files.writeString(dir.resolve("bad.yaml"), yaml);
        CommandRun r = CommandRun.of("inventory", "--records", file.toString());
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains(file + expected), "expected " + file + expected + " in: " + r.err());
        assertTrue(!r.err().contains("Exception"), r.err());
    }
}
