package io.gpudetect.probe.amd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.probe.amd.AmdTopology.Cell;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code amd-smi topology}, hand-written in the forms public pastes show (the tables by PCI address with a legend,
 * the newer JSON with each GPU's {@code links}, the older JSON keyed {@code gpu_N}); none is a copied recording.
 */
class AmdSmiTopologyParserTest {

    private static final List<String> MI300X = List.of("0000:0c:00.0", "0000:22:00.0", "0000:38:00.0", "0000:5c:00.0",
            "0000:9f:00.0", "0000:af:00.0", "0000:bf:00.0", "0000:df:00.0");

    /** One table of {@code title} over {@code bdfs}: {@code diagonal} on it, {@code other} elsewhere. */
    static String table(String title, List<String> bdfs, String diagonal, String other) {
        StringBuilder t = new StringBuilder(title).append(":\n").append(" ".repeat(13));
        for (String b : bdfs) {
            t.append(String.format("%-13s", b.toUpperCase()));
        }
        t.append('\n');
        for (String row : bdfs) {
            t.append(String.format("%-13s", row.toUpperCase()));
            for (String col : bdfs) {
                t.append(String.format("%-13s", row.equals(col) ? diagonal : other));
            }
            t.append('\n');
        }
        return t.toString();
    }

    static String eightMi300xText() {
        return table("ACCESS TABLE", MI300X, "ENABLED", "ENABLED")
                + table("WEIGHT TABLE", MI300X, "0", "15")
                + table("HOPS TABLE", MI300X, "0", "1")
                + table("LINK TYPE TABLE", MI300X, "SELF", "XGMI")
                + table("NUMA BW TABLE", MI300X, "N/A", "50000-50000")
                + "\n\nLegend:\n  SELF = Current GPU\n  ENABLED / DISABLED = Link is enabled or disabled\n  N/A = Not supported\n";
    }

    @Test
    void theLinkTypeTableOfEightMi300xNamesEveryPeerByAddress() {
        AmdTopology t = AmdSmiTopologyParser.parseText(eightMi300xText(), "amd-smi-topology.txt");

        assertTrue(t.byAddress());
        assertEquals(MI300X, List.copyOf(t.rows().keySet()));
        Map<String, Cell> first = t.rows().get("0000:0c:00.0");
        assertEquals(7, first.size(), first.toString());
        assertFalse(first.containsKey("0000:0c:00.0"));
        assertTrue(first.values().stream().allMatch(c -> c == Cell.XGMI));
        assertEquals(List.of(), t.diagnostics());
    }

    @Test
    void twoPcieCardsWithTheNewerTablesAfterThemArePcieOnly() {
        List<String> two = List.of("0000:03:00.0", "0000:0c:00.0");
        String text = table("ACCESS TABLE", two, "ENABLED", "DISABLED")
                + table("LINK TYPE TABLE", two, "SELF", "PCIE")
                + table("NUMA BW TABLE", two, "N/A", "N/A")
                + table("CACHE COHERANCY TABLE", two, "SELF", "N/A");

        AmdTopology t = AmdSmiTopologyParser.parseText(text, "amd-smi-topology.txt");

        assertEquals(Map.of("0000:03:00.0", Map.of("0000:0c:00.0", Cell.PCIE),
                "0000:0c:00.0", Map.of("0000:03:00.0", Cell.PCIE)), t.rows());
    }

    @Test
    void anUnknownCellIsWarnedWithItsLineAndItsRowLeftOut() {
        List<String> two = List.of("0000:03:00.0", "0000:0c:00.0");
        String text = table("LINK TYPE TABLE", two, "SELF", "PCIE").replaceFirst("SELF         PCIE", "SELF         NVLINK");

        AmdTopology t = AmdSmiTopologyParser.parseText(text, "amd-smi-topology.txt");

        assertEquals(List.of("0000:0c:00.0"), List.copyOf(t.rows().keySet()));
        assertEquals(3, t.diagnostics().get(0).line());
        assertTrue(t.diagnostics().get(0).message().contains("'NVLINK'"), t.diagnostics().toString());
    }

    @Test
    void outputWithoutTheLinkTypeTableIsWarned() {
        AmdTopology t = AmdSmiTopologyParser.parseText(table("WEIGHT TABLE", MI300X, "0", "15"), "amd-smi-topology.txt");

        assertTrue(t.rows().isEmpty());
        assertTrue(t.diagnostics().get(0).message().contains("no 'LINK TYPE TABLE:'"), t.diagnostics().toString());
    }

    @Test
    void theNewerJsonGivesEachGpusLinksByAddress() {
        StringBuilder j = new StringBuilder("[\n");
        for (int i = 0; i < 4; i++) {
            j.append(i == 0 ? "" : ",\n").append("{\"gpu\": ").append(i).append(", \"bdf\": \"").append(MI300X.get(i))
                    .append("\", \"links\": [");
            for (int k = 0; k < 4; k++) {
                j.append(k == 0 ? "" : ", ").append("{\"gpu\": ").append(k).append(", \"bdf\": \"").append(MI300X.get(k))
                        .append("\", \"weight\": ").append(i == k ? 0 : 15).append(", \"link_status\": \"ENABLED\", ")
                        .append("\"link_type\": \"").append(i == k ? "SELF" : k / 2 == i / 2 ? "XGMI" : "PCIE")
                        .append("\", \"num_hops\": 1, \"bandwidth\": \"N/A\"}");
            }
            j.append("]}");
        }
        j.append("\n]\n");

        AmdTopology t = AmdSmiTopologyParser.parseJson(j.toString(), "amd-smi-topology.json");

        assertTrue(t.byAddress());
        assertEquals(Map.of("0000:22:00.0", Cell.XGMI, "0000:38:00.0", Cell.PCIE, "0000:5c:00.0", Cell.PCIE),
                t.rows().get("0000:0c:00.0"));
        assertEquals(4, t.rows().size());
        assertEquals(List.of(), t.diagnostics());
    }

    @Test
    void theOlderJsonNamesGpusByIndex() {
        String json = """
                [{"gpu": 0, "link_accessibility": {"gpu_0": "ENABLED", "gpu_1": "ENABLED"},
                  "link_type": {"gpu_0": "SELF", "gpu_1": "XGMI"}},
                 {"gpu": 1, "link_accessibility": {"gpu_0": "ENABLED", "gpu_1": "ENABLED"},
                  "link_type": {"gpu_0": "XGMI", "gpu_1": "SELF"}}]
                """;

        AmdTopology t = AmdSmiTopologyParser.parseJson(json, "amd-smi-topology.json");

        assertFalse(t.byAddress());
        assertEquals(Map.of("0", Map.of("1", Cell.XGMI), "1", Map.of("0", Cell.XGMI)), t.rows());
    }

    /** A number past any host's GPU count is no GPU's name: it once overflowed Integer.parseInt out of the parser. */
    @Test
    void anIndexTooLongForAGpuIsNotAPeer() {
        String json = """
                [{"gpu": 0, "link_type": {"gpu_0": "SELF", "gpu_1": "XGMI", "gpu_99999999999": "XGMI"}},
                 {"gpu": 1, "link_type": {"gpu_0": "XGMI", "gpu_1": "SELF"}}]
                """;

        AmdTopology t = AmdSmiTopologyParser.parseJson(json, "amd-smi-topology.json");

        assertEquals(Map.of("0", Map.of("1", Cell.XGMI), "1", Map.of("0", Cell.XGMI)), t.rows());
    }

    @Test
    void jsonThatIsNotTheListIsWarned() {
        AmdTopology broken = AmdSmiTopologyParser.parseJson("[{\"gpu\": 0", "amd-smi-topology.json");
        AmdTopology other = AmdSmiTopologyParser.parseJson("{\"gpu\": 0, \"asic\": {}}", "amd-smi-topology.json");

        assertTrue(broken.rows().isEmpty());
        assertTrue(broken.diagnostics().get(0).message().startsWith("not valid JSON"), broken.diagnostics().toString());
        assertTrue(other.diagnostics().get(0).message().contains("expected a JSON list"), other.diagnostics().toString());
    }
}
