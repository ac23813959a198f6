package io.gpudetect.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The tables compiled into the jar say what the upstream files kept in tables/ say (refresh-tables.sh
 * writes both): amdgpu.ids verbatim, Akash's gpus.json as the tab-separated lines AkashGpus reads.
 */
class ShippedTableTextTest {

    private static final Path TABLES = Path.of("..", "tables");
    private static final String STALE = "ShippedTableText.java is stale: run tables/refresh-tables.sh (or tables/table-text.py)";

    @Test
    void amdgpuIdsIsTheFileInTables() throws IOException {
        assertEquals(Files.readString(TABLES.resolve("amdgpu.ids")), ShippedTableText.AMDGPU_IDS, STALE);
    }

    @Test
    void akashLinesAreTheJsonInTables() throws IOException {
        JsonNode table = new ObjectMapper().readTree(TABLES.resolve("akash-gpus.json").toFile());
        StringBuilder expected = new StringBuilder();
        for (Iterator<Map.Entry<String, JsonNode>> vendors = table.fields(); vendors.hasNext(); ) {
            Map.Entry<String, JsonNode> vendor = vendors.next();
            JsonNode name = vendor.getValue().path("name");
            for (Iterator<Map.Entry<String, JsonNode>> devices = vendor.getValue().path("devices").fields(); devices.hasNext(); ) {
                Map.Entry<String, JsonNode> device = devices.next();
                expected.append(vendor.getKey().toLowerCase(Locale.ROOT)).append('\t')
                        .append(device.getKey().toLowerCase(Locale.ROOT)).append('\t')
                        .append(name.isTextual() ? name.asText() : "").append('\t')
                        .append(scalar(device.getValue().path("name"))).append('\t')
                        .append(scalar(device.getValue().path("interface"))).append('\t')
                        .append(scalar(device.getValue().path("memory_size"))).append('\n');
            }
        }
        assertEquals(expected.toString(), ShippedTableText.AKASH_GPUS, STALE);
    }

    private static String scalar(JsonNode node) {
        return node.isTextual() ? node.asText() : node.isValueNode() && !node.isNull() ? node.toString() : "";
    }

    @Test
    void theShippedAkashTableNamesTheCardsWeBidWith() {
        AkashGpus akash = AkashGpus.shipped();
        assertEquals("h100", akash.lookup("10de", "2330").orElseThrow().model());
        assertEquals("sxm", akash.lookup("10de", "2330").orElseThrow().interfaceType());
        assertEquals(80, akash.lookup("10de", "2330").orElseThrow().memoryGi());
        assertEquals("mi60", akash.lookup("1002", "66a1").orElseThrow().model());
    }

    @Test
    void aMalformedLineIsAnErrorNotASilentSkip() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> AkashGpus.parse("10de\t2330\tnvidia\th100\tSXM5\t80Gi\n10de\t1234\tnvidia\n"));
        assertTrue(e.getMessage().contains("line 2"), e.getMessage());
        assertEquals("a100", AkashGpus.parse("10de\t20b0\t\ta100\t\t\n").lookup("10de", "20b0").orElseThrow().model());
        assertEquals(null, AkashGpus.parse("10de\t20b0\t\ta100\t\t\n").lookup("10de", "20b0").orElseThrow().memoryGi());
    }
}
