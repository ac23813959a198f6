package io.gpudetect.probe.amd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.probe.amd.AmdTopology.Cell;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code rocm-smi --showtopo}, hand-written in the forms public pastes show (four blocks with the "Numa Nodes" lines in
 * either spelling, a matrix of two hives, the condensed form of a bug report, the JSON of monitoring agents); none is
 * a copied recording.
 */
class RocmSmiTopoParserTest {

    /** The four blocks for {@code n} GPUs; {@code type.apply(i, j)} the link type between GPU i and GPU j. */
    static String showtopo(int n, java.util.function.BiFunction<Integer, Integer, String> type) {
        StringBuilder t = new StringBuilder("============================ ROCm System Management Interface ============================\n");
        for (String block : List.of("Weight", "Hops", "Link Type")) {
            t.append("================================ ").append(block).append(" between two GPUs =================================\n");
            t.append("       ");
            for (int j = 0; j < n; j++) {
                t.append(String.format("%-13s", "GPU" + j));
            }
            t.append('\n');
            for (int i = 0; i < n; i++) {
                t.append(String.format("%-7s", "GPU" + i));
                for (int j = 0; j < n; j++) {
                    String cell = i == j ? "0" : switch (block) {
                        case "Weight" -> "XGMI".equals(type.apply(i, j)) ? "15" : "40";
                        case "Hops" -> "XGMI".equals(type.apply(i, j)) ? "1" : "2";
                        default -> type.apply(i, j);
                    };
                    t.append(String.format("%-13s", cell));
                }
                t.append('\n');
            }
            t.append('\n');
        }
        t.append("======================================= Numa Nodes =======================================\n");
        for (int i = 0; i < n; i++) {
            t.append("GPU[").append(i).append("]\t\t: (Topology) Numa Node: ").append(i / 4).append('\n');
            t.append("GPU[").append(i).append("]\t\t: (Topology) Numa Affinity: ").append(i / 4).append('\n');
        }
        return t.append("================================== End of ROCm SMI Log ===================================\n").toString();
    }

    @Test
    void fourGpusOfOneHiveAreXgmiToEachOther() {
        AmdTopology t = RocmSmiTopoParser.parseText(showtopo(4, (i, j) -> "XGMI"), "rocm-smi-showtopo.txt");

        assertFalse(t.byAddress());
        assertEquals(List.of("0", "1", "2", "3"), List.copyOf(t.rows().keySet()));
        assertEquals(Map.of("0", Cell.XGMI, "2", Cell.XGMI, "3", Cell.XGMI), t.rows().get("1"));
        assertEquals(Map.of("0", 0, "1", 0, "2", 0, "3", 0), t.numaNodes());
        assertEquals(List.of(), t.diagnostics());
    }

    @Test
    void twoHivesOfFourAreXgmiWithinAndPcieAcross() {
        AmdTopology t = RocmSmiTopoParser.parseText(showtopo(8, (i, j) -> i / 4 == j / 4 ? "XGMI" : "PCIE"),
                "rocm-smi-showtopo.txt");

        assertEquals(1, t.numaNodes().get("5"));
        Map<String, Cell> five = t.rows().get("5");
        assertEquals(Cell.XGMI, five.get("4"));
        assertEquals(Cell.PCIE, five.get("3"));
        assertEquals(7, five.size());
    }

    @Test
    void theCondensedFormOfABugReportIsRead() {
        String text = """
                ========================== Link Type between two GPUs ==========================
                GPU0 GPU1
                GPU0 0 PCIE
                GPU1 PCIE 0

                *******************************
                """;

        AmdTopology t = RocmSmiTopoParser.parseText(text + "GPU 1          : (Topology) Numa Node: 1\n",
                "rocm-smi-showtopo.txt");

        assertEquals(Map.of("0", Map.of("1", Cell.PCIE), "1", Map.of("0", Cell.PCIE)), t.rows());
        assertEquals(Map.of("1", 1), t.numaNodes());
    }

    @Test
    void anUnknownCellIsWarnedAndAMissingBlockIsWarned() {
        String text = showtopo(2, (i, j) -> "XGMI").replace("GPU1   XGMI ", "GPU1   QPI  ");

        AmdTopology odd = RocmSmiTopoParser.parseText(text, "rocm-smi-showtopo.txt");
        AmdTopology none = RocmSmiTopoParser.parseText("GPU[0]\t\t: (Topology) Numa Node: 0\n", "rocm-smi-showtopo.txt");

        assertEquals(List.of("0"), List.copyOf(odd.rows().keySet()));
        assertTrue(odd.diagnostics().get(0).message().contains("'QPI'"), odd.diagnostics().toString());
        assertTrue(odd.diagnostics().get(0).line() > 1);
        assertTrue(none.rows().isEmpty());
        assertTrue(none.diagnostics().get(0).message().contains("no 'Link Type between two GPUs'"));
    }

    @Test
    void theJsonNamesGpusByTheCardsBusWhereEachHasOne() {
        String json = """
                {"card0": {"Card series": "AMD Instinct MI100", "PCI Bus": "0000:1E:00.0"},
                 "card1": {"Card series": "AMD Instinct MI100", "PCI Bus": "0000:22:00.0"},
                 "card2": {"Card series": "AMD Instinct MI100", "PCI Bus": "0000:3F:00.0"},
                 "system": {"Driver version": "6.2.4",
                   "(Topology) Weight between DRM devices 0 and 1": "15",
                   "(Topology) Link type between DRM devices 0 and 1": "XGMI",
                   "(Topology) Link type between DRM devices 0 and 2": "PCIE",
                   "(Topology) Link type between DRM devices 1 and 2": "PCIE"}}
                """;

        AmdTopology t = RocmSmiTopoParser.parseJson(json, "rocm-smi.json");

        assertTrue(t.byAddress());
        assertEquals(Map.of("0000:22:00.0", Cell.XGMI, "0000:3f:00.0", Cell.PCIE), t.rows().get("0000:1e:00.0"));
        assertEquals(Map.of("0000:1e:00.0", Cell.PCIE, "0000:22:00.0", Cell.PCIE), t.rows().get("0000:3f:00.0"));
    }

    @Test
    void theJsonWithoutEveryCardsBusNamesGpusByIndex() {
        String json = """
                {"card0": {"PCI Bus": "0000:63:00.0"},
                 "system": {"(Topology) Link type between DRM devices 0 and 1": "PCIE"}}
                """;

        AmdTopology t = RocmSmiTopoParser.parseJson(json, "rocm-smi.json");

        assertFalse(t.byAddress());
        assertEquals(Map.of("0", Map.of("1", Cell.PCIE), "1", Map.of("0", Cell.PCIE)), t.rows());
    }

    /** A number past any host's GPU count is no GPU's name: it once overflowed Integer.parseInt out of the parser. */
    @Test
    void indexesTooLongForAGpuAreNotNamesNotAnOverflow() {
        String text = showtopo(2, (i, j) -> "XGMI").replace("GPU1 ", "GPU99999999999 ")
                .replace("GPU[1]\t\t: (Topology) Numa Node: 0", "GPU[1]\t\t: (Topology) Numa Node: 99999999999");
        String json = """
                {"card99999999999": {"PCI Bus": "0000:63:00.0"},
                 "system": {"(Topology) Link type between DRM devices 0 and 99999999999": "XGMI",
                            "(Topology) Link type between DRM devices 0 and 1": "PCIE"}}
                """;

        AmdTopology fromText = RocmSmiTopoParser.parseText(text, "rocm-smi-showtopo.txt");
        AmdTopology fromJson = RocmSmiTopoParser.parseJson(json, "rocm-smi.json");

        assertFalse(fromText.rows().containsKey("99999999999"), fromText.rows().toString());
        assertEquals(Map.of("0", Map.of("1", Cell.PCIE), "1", Map.of("0", Cell.PCIE)), fromJson.rows());
    }

    @Test
    void jsonWithoutTopologySaysNothing() {
        AmdTopology t = RocmSmiTopoParser.parseJson("{\"card0\": {\"PCI Bus\": \"0000:63:00.0\"}, \"system\": {}}",
                "rocm-smi.json");

        assertTrue(t.rows().isEmpty());
        assertEquals(List.of(), t.diagnostics());
    }
}
