package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpudetect.bench.ClusterObjects;
import io.gpudetect.match.InvalidInputException;
import io.gpudetect.testing.CommandRun;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kubectl get gpucapacities,nodes} of a 300-node cluster whose Nodes are as large as a kubelet writes them
 * (images, managed fields): over 3 MB as YAML and as JSON, which the YAML parser's default limit (3 Mi code points)
 * refused, JSON included.
 */
class LargeRecordsFileTest {

    private static final int NODES = 300;

    @TempDir
    Path dir;

    private Path dump(boolean json) throws IOException {
        Path file = dir.resolve(json ? "cluster.json" : "cluster.yaml");
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            new ClusterObjects(NODES).writeList(out, json);
        }
        assertTrue(Files.size(file) > 3 << 20, file + " is " + Files.size(file) + " bytes");
        return file;
    }

    @Test
    void inventoryReadsALargeYamlDump() throws IOException {
        inventoryReads(dump(false));
    }

    @Test
    void inventoryReadsALargeJsonDump() throws IOException {
        inventoryReads(dump(true));
    }

    private static void inventoryReads(Path file) throws IOException {
        CommandRun r = CommandRun.of("inventory", "--records", file.toString(), "--now", "2026-05-01T10:01:00Z",
                "-o", "json");
        assertEquals(0, r.exit(), r.err());
        JsonNode doc = new ObjectMapper().readTree(r.out());
        Map<String, Integer> states = new TreeMap<>();
        Map<String, JsonNode> byName = new TreeMap<>();
        for (JsonNode n : doc.get("nodes")) {
            states.merge(n.get("state").asText(), 1, Integer::sum);
            byName.put(n.get("node").asText(), n);
        }
        // Not Ready: 7, 57, 107, ... (6 of 300); cordoned: 11, 108, 205 (3); none is both.
        assertEquals(Map.of("ok", NODES - 9, "unavailable", 9), states);
        JsonNode notReady = byName.get("gpu-node-00007");
        assertEquals("node not Ready (Ready is False: KubeletNotReady): it takes no new pods, and Akash's provider "
                + "does not bid with it", notReady.get("detail").asText());
        // A DRA node: no nvidia.com/gpu in its allocatable, its 8 GPUs counted from the record's hand-out.
        JsonNode dra = byName.get("gpu-node-00005");
        assertEquals("{\"nvidia\":8}", dra.get("allocatable").toString());
        assertEquals("{\"nvidia\":5}", dra.get("inUse").toString());
        assertEquals(8, dra.get("gpus").asInt());
    }

    @Test
    void matchPlacesOnTheLargeDumpsNodes() throws IOException {
        // 8 H100s free only where none is in use (i % 9 == 0), Ready, not cordoned, not AMD (i % 4 == 3).
        CommandRun r = CommandRun.of("match", "--records", dump(true).toString(), "--gpu",
                "vendor=nvidia,model=h100,count=8", "-o", "json");
        assertEquals(0, r.exit(), r.err() + r.out());
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertTrue(doc.toString().contains("gpu-node-00000"), r.out());
    }

    @Test
    void aYamlLimitThatIsNoNumberIsRefused() {
        InvalidInputException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidInputException.class,
                () -> RecordInput.yamlLimit("lots"));
        assertEquals("GPU_DETECT_YAML_LIMIT_MIB: expected a whole number of MiB such as 1024, found 'lots'",
                e.getMessage());
        assertEquals(0, Long.compare(512L << 20, assertDoesNotThrow("512")));
    }

    private static long assertDoesNotThrow(String mib) {
        try {
            return RecordInput.yamlLimit(mib);
        } catch (InvalidInputException e) {
            throw new AssertionError(e);
        }
    }
}
