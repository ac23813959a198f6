package io.gpudetect.akash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpudetect.testing.CommandRun;
import io.gpudetect.testing.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpu-detect akash} says only what it knows (issue 35, item 1): a card whose PCI ids the input lacks is
 * neither bid on nor not bid on, so the closing line, the JSON's {@code verdict} and the exit status (3) say that
 * it cannot be told, and why; a reason every card of a node shares is printed once, for the node.
 */
class AkashCannotTellTest {

    @TempDir
    Path dir;

    /** A bundle made from a pasted plain nvidia-smi table: two RTX 4090, names and bus ids but no PCI ids. */
    private static final String PASTED_TABLE = "2x-geforce-rtx-4090_580.126.09_table";

    private static CommandRun run(String... args) {
        return CommandRun.of(args);
    }

    private static int count(String text, String part) {
        Matcher m = Pattern.compile(Pattern.quote(part)).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @Test
    void aPastedTableCannotBeToldAndSaysSoInsteadOfEveryCardIsBidOn() throws IOException {
        String bundle = Fixtures.host(PASTED_TABLE).toString();
        String table = AkashCommandTest.akashTable().toString();
        CommandRun r = run("akash", "--replay", bundle, "--akash-table", table);
        assertEquals(3, r.exit(), r.err() + r.out());
        assertFalse(r.out().contains("Every card is bid on"), r.out());
        assertTrue(r.out().endsWith("\n2 cards cannot be told (no PCI ids in the input): run `gpu-detect akash` on the "
                + "node itself\n"), r.out());
        // Both cards share the reason: said once, under the node.
        assertEquals(1, count(r.out(), "PCI vendor or device id not known from bundle " + bundle), r.out());
        assertTrue(r.out().contains("  every card:\n    - PCI vendor or device id not known from bundle " + bundle), r.out());
        assertTrue(r.out().contains("  card 0000:01:00.0  ????:????  NVIDIA GeForce RTX 4090: cannot tell\n"
                + "  card 0000:03:00.0  ????:????  NVIDIA GeForce RTX 4090: cannot tell\n"), r.out());

        CommandRun json = run("akash", "--replay", bundle, "--akash-table", table, "-o", "json");
        assertEquals(3, json.exit(), json.err());
        JsonNode doc = new ObjectMapper().readTree(json.out());
        assertEquals("cannot-tell", doc.get("verdict").asText(), json.out());
        assertEquals("2 cards cannot be told (no PCI ids in the input): run `gpu-detect akash` on the node itself",
                doc.get("cannotTell").asText(), json.out());
        assertFalse(doc.has("everyCardBidOn"), "a field that read true for cards nobody could judge: " + json.out());
        // JSON keeps each card whole: its own reasons.
        doc.get("nodes").get(0).get("cards").forEach(c -> assertEquals(1, c.get("reasons").size(), json.out()));
    }

    @Test
    void recordsWithoutPciIdsSayTheReasonOncePerNodeAndCannotTell() throws IOException {
        String records = Fixtures.root().resolve("records/mixed-cluster.yaml").toString();
        String table = AkashCommandTest.akashTable().toString();
        CommandRun json = run("akash", "--records", records, "--akash-table", table, "-o", "json");
        assertEquals(3, json.exit(), json.err() + json.out());
        JsonNode doc = new ObjectMapper().readTree(json.out());
        int unknown = 0;
        for (JsonNode node : doc.get("nodes")) {
            for (JsonNode card : node.get("cards")) {
                unknown += "unknown".equals(card.get("verdict").asText()) ? 1 : 0;
            }
        }
        assertTrue(unknown > 8, json.out());
        assertEquals("cannot-tell", doc.get("verdict").asText());

        CommandRun r = run("akash", "--records", records, "--akash-table", table);
        assertEquals(3, r.exit(), r.err());
        // h100-node's eight H100 records name no PCI ids: one line for the node, not eight.
        assertEquals(1, count(r.out(), "the table lists h100 as 10de:2330, 10de:2331"), r.out());
        assertFalse(r.out().contains("Every card is bid on"), r.out());
        assertTrue(r.out().endsWith("\n" + unknown + " cards cannot be told (no PCI ids in the input): run `gpu-detect "
                + "akash` on the node itself\n"), r.out());
    }

    @Test
    void aCardNotBidOnOutweighsOneThatCannotBeToldAndTheClosingLineSaysBoth() throws IOException {
        // gpus.json has no 10de:26b9 (L40S): that card is dropped; the H100 record names no PCI ids: unknown.
        Path file = dir.resolve("records.yaml");
        Files.writeString(file, """
                apiVersion: v1
                kind: List
                items:
                - kind: GpuCapacity
                  metadata: {name: l40s-node}
                  spec:
                    gpus:
                    - {vendor: nvidia, model: l40s, memoryGi: 48, interface: pcie, pciAddress: "0000:01:00.0", pciVendorId: 10de, pciDeviceId: "26b9"}
                    allocatable: {nvidia.com/gpu: 1}
                - kind: GpuCapacity
                  metadata: {name: h100-node}
                  spec:
                    gpus:
                    - {vendor: nvidia, model: h100, memoryGi: 80, interface: sxm, pciAddress: "0000:17:00.0"}
                    allocatable: {nvidia.com/gpu: 1}
                """);
        String table = AkashCommandTest.akashTable().toString();
        CommandRun r = run("akash", "--records", file.toString(), "--akash-table", table);
        assertEquals(1, r.exit(), r.err() + r.out());
        assertTrue(r.out().endsWith("\nSome cards will not be bid on (1 card dropped); 1 card cannot be told (no PCI ids "
                + "in the input): run `gpu-detect akash` on the node itself\n"), r.out());
        JsonNode doc = new ObjectMapper().readTree(run("akash", "--records", file.toString(), "--akash-table", table,
                "-o", "json").out());
        assertEquals("some-card-not-bid-on", doc.get("verdict").asText(), doc.toString());
        assertEquals("1 card cannot be told (no PCI ids in the input): run `gpu-detect akash` on the node itself",
                doc.get("cannotTell").asText(), doc.toString());
    }
}
