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
}
