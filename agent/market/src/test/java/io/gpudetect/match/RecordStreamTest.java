package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.StringReader;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Record files read as a stream: JSON or YAML, a Kubernetes List's items one at a time, the YAML limit. */
class RecordStreamTest {

    private static RecordSet read(String text, long limit) throws InvalidInputException {
        return RecordSet.read(() -> new StringReader(text), "records", limit);
    }

    private static final String NODE_JSON = """
            {"apiVersion": "v1", "kind": "List", "items": [
              {"kind": "GpuCapacity", "metadata": {"name": "a", "managedFields": [{"manager": "x"}]},
               "spec": {"gpus": [{"vendor": "nvidia", "model": "h100", "memoryGi": 80, "interface": "sxm"}]},
               "status": {"lastGoodPass": "2026-05-01T10:00:00Z"}},
              {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a", "labels": {"x": "y"}},
               "spec": {"unschedulable": true},
               "status": {"images": [{"names": ["n"], "sizeBytes": 1}],
                          "conditions": [{"type": "Ready", "status": "False", "reason": "KubeletNotReady"}]}}
            ]}
            """;

    @Test
    void aJsonListGivesItsRecordsAndNodes() throws InvalidInputException {
        RecordSet set = read(NODE_JSON, RecordSet.DEFAULT_YAML_LIMIT);
        assertEquals(List.of("a"), set.records().stream().map(RecordSet.Located::node).toList());
        assertEquals(2, set.records().get(0).line());
        assertEquals(List.of(new KubeNode("a", KubeNode.Readiness.NOT_READY, "False: KubeletNotReady", true)),
                set.nodes());
    }

    @Test
    void aFlowStyleYamlFileIsNoJson() throws InvalidInputException {
        RecordSet set = read("[{metadata: {name: b}, gpus: [{vendor: amd, model: mi300x}]}]",
                RecordSet.DEFAULT_YAML_LIMIT);
        assertEquals("b", set.records().get(0).node());
    }

    @Test
    void aMappingWithItemsAndSpecIsOneRecord() throws InvalidInputException {
        RecordSet set = read("""
                metadata: {name: c}
                items: [1, 2]
                spec:
                  gpus: [{vendor: nvidia, model: l40s}]
                """, RecordSet.DEFAULT_YAML_LIMIT);
        assertEquals(List.of("c"), set.records().stream().map(RecordSet.Located::node).toList());
        assertEquals("[0]", set.records().get(0).where());
    }

    @Test
    void aWrongValueIsReportedWithItsLineInJson() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> read("""
                {"items": [
                  {"metadata": {"name": "a"}, "spec": {"gpus": [{"vendor": "nvidia", "memoryGi": "lots"}]}}
                ]}
                """, RecordSet.DEFAULT_YAML_LIMIT));
        assertEquals(2, e.line());
        assertEquals("[0](a).gpus[0].memoryGi", e.path());
    }

    @Test
    void aSyntaxErrorLaterWinsOverAWrongValueEarlier() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> read("""
                - metadata: {name: a}
                  gpus: 3
                - metadata: {name: b
                """, RecordSet.DEFAULT_YAML_LIMIT));
        assertEquals(null, e.path(), e.getMessage());
    }

    @Test
    void yamlOverTheLimitIsRefusedInOneLineThatSaysWhatToDo() {
        String big = "- metadata: {name: n}\n  gpus: []\n".repeat(40_000);
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> read(big, 1 << 20));
        assertEquals("records: YAML larger than the limit of 1 MiB; give the records as JSON, which has no limit "
                + "(kubectl get gpucapacities,nodes -o json), or raise the limit with GPU_DETECT_YAML_LIMIT_MIB=<MiB>",
                e.getMessage());
    }

    @Test
    void jsonHasNoLimit() throws InvalidInputException {
        String big = "[" + "{\"metadata\": {\"name\": \"n\"}, \"gpus\": []},\n".repeat(40_000)
                + "{\"metadata\": {\"name\": \"last\"}}]";
        assertEquals(40_001, read(big, 1 << 20).records().size());
    }

    @Test
    void aKeyGivenTwiceDeepInARecordIsNamedByItsPathAndLine() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> read("""
                - metadata: {name: a}
                  spec:
                    gpus:
                    - {vendor: nvidia}
                    - vendor: nvidia
                      pcieLink: {maxGen: 5,
                        maxGen: 4}
                """, RecordSet.DEFAULT_YAML_LIMIT));
        assertEquals("spec.gpus[1].pcieLink.maxGen", e.path());
        assertEquals(7, e.line());
        assertEquals("key given twice in one mapping (first on line 6)", e.problem());
    }

    @Test
    void eachRecordIsKeptAsItIsReadAndAFailureToKeepOneWaitsForTheRestToParse() throws InvalidInputException {
        String two = """
                [{"metadata": {"name": "a"}, "gpus": [{"vendor": "nvidia"}]},
                 {"metadata": {"name": "b"}, "gpus": [{"vendor": "amd"}, {"vendor": "amd"}]}]
                """;
        RecordSet.Kept<String> kept = RecordSet.read(() -> new StringReader(two), "records",
                RecordSet.DEFAULT_YAML_LIMIT, r -> r.node() + ":" + r.record().getSpec().gpus().size() + "@" + r.where());
        assertEquals(List.of("a:1@[0]", "b:2@[1]"), kept.records());
        RecordSet.Keep<String> refuseB = r -> {
            if (r.node().equals("b")) {
                throw new InvalidInputException("records", r.where(), r.line(), "refused");
            }
            return r.node();
        };
        InvalidInputException refused = assertThrows(InvalidInputException.class, () -> RecordSet.read(
                () -> new StringReader(two), "records", RecordSet.DEFAULT_YAML_LIMIT, refuseB));
        assertEquals("[1]", refused.path());
        InvalidInputException syntax = assertThrows(InvalidInputException.class, () -> RecordSet.read(
                () -> new StringReader(two.strip() + " ]"), "records", RecordSet.DEFAULT_YAML_LIMIT, refuseB));
        assertEquals(null, syntax.path(), syntax.getMessage());
    }

    @Test
    void aFileIsReadFromItsBytesAsFromItsCharacters(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path file = dir.resolve("records.json");
        java.nio.file.Files.writeString(file, "\uFEFF" + NODE_JSON.replace("\"model\": \"h100\"",
                "\"model\": \"h100\", \"name\": \"NVIDIA H100 \u00e9\u6f22\""));
        RecordSet set = RecordSet.read(RecordSet.Text.of(file), file.toString(), RecordSet.DEFAULT_YAML_LIMIT);
        assertEquals(List.of("a"), set.records().stream().map(RecordSet.Located::node).toList());
        assertEquals(2, set.records().get(0).line());
        assertEquals("NVIDIA H100 \u00e9\u6f22", set.records().get(0).record().getSpec().gpus().get(0).name());
        assertEquals(KubeNode.Readiness.NOT_READY, set.node("a").readiness());
    }

    @Test
    void theAgentsFormOfATimeIsReadAsInstantParseReadsIt() {
        for (String t : List.of("2026-05-01T10:00:00Z", "2024-02-29T23:59:59Z", "1970-01-01T00:00:00Z",
                "2026-05-01T10:00:00.250Z", "2026-05-01T10:00:00+02:00", "2026-05-01T24:00:00Z",
                "2026-06-30T23:59:60Z")) {
            assertEquals(java.time.Instant.parse(t), RecordSet.instant(t), t);
        }
        for (String t : List.of("2026-02-30T10:00:00Z", "2026-13-01T10:00:00Z",
                "2026-05-01T10:60:00Z", "2026-05-0xT10:00:00Z", "yesterday")) {
            assertThrows(java.time.format.DateTimeParseException.class, () -> RecordSet.instant(t), t);
        }
    }
}
