package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Where a wrong value in a records file is said to be, in every part of a record that is read: the path is made into
 * text only for a message (issue 37: paths built for every GPU were some 5% of reading a 5,000-node file), so
 * each place is checked here, in YAML and in JSON.
 */
class RecordErrorPathsTest {

    /** A record with every part read: GPUs with links and DRM cards, resources, a DRA hand-out, a fabric. */
    private static final String RECORDS = """
            apiVersion: v1
            kind: List
            items:
            - apiVersion: gpu-detect.io/v1alpha1
              kind: GpuCapacity
              metadata:
                name: ok-node
              spec:
                gpus:
                - {vendor: nvidia, model: h100, memoryGi: 80, interface: sxm5, pciAddress: "0000:17:00.0"}
                allocatable: {nvidia.com/gpu: 1}
            - apiVersion: gpu-detect.io/v1alpha1
              kind: GpuCapacity
              metadata:
                name: n1
              spec:
                gpus:
                - vendor: nvidia
                  model: h100
                  memoryGi: 80
                  interface: sxm
                  pciAddress: "0000:18:00.0"
                  uuid: GPU-1
                  health: ok
                  pcieLink: {maxWidth: 16, currentWidth: 16, maxGen: 5}
                  powerLimits: {defaultWatts: 700.0, minWatts: 200.0, maxWatts: 700.0}
                  drmCards: [card1]
                  links: {links: [{kind: nvlink, up: true, version: 4, remote: nvswitch, count: 18}]}
                - vendor: nvidia
                  model: h100
                  memoryGi: 80
                  pciAddress: "0000:28:00.0"
                  drmCards: [card2]
                allocatable: {nvidia.com/gpu: 2}
                requested: {nvidia.com/gpu: 1}
                sysClassDrm: true
                handout:
                  mode: dra
                  gpus:
                  - pciAddress: "0000:18:00.0"
                    by: dra
                    allocated: true
                    dra: [{driver: gpu.nvidia.com, pool: n1, device: gpu-0, allocated: true, claims: [ml/a]}]
                  draTotals: [{driver: gpu.nvidia.com, gpus: 1, allocatedGpus: 1, devices: 1, allocatedDevices: 1}]
                  problems: [a line]
                  unmatched: [{driver: gpu.nvidia.com, pool: n1, device: gpu-9}]
                fabric: {devices: [{name: mlx5_0, linkLayer: infiniband, state: active}]}
              status:
                lastGoodPass: "2026-05-01T11:58:00Z"
            """;

    /** {@code from} replaced by {@code to} in {@link #RECORDS}: a wrong value at {@code path}, on {@code line}. */
    record Case(String from, String to, String path, int line) {
        @Override
        public String toString() {
            return path;
        }
    }

    static List<Case> cases() {
        return List.of(
                new Case("    - vendor: nvidia\n      model: h100\n      memoryGi: 80\n      pciAddress",
                        "    - model: h100\n      memoryGi: 80\n      pciAddress",
                        "[1](n1).gpus[1].vendor", 29),
                new Case("    - vendor: nvidia\n      model: h100\n      memoryGi: 80\n      pciAddress",
                        "    - justtext\n    - vendor: nvidia\n      model: h100\n      memoryGi: 80\n      pciAddress",
                        "[1](n1).gpus[1]", 29),
                new Case("    gpus:\n    - {vendor: nvidia, model: h100, memoryGi: 80, interface: sxm5, pciAddress: \"0000:17:00.0\"}",
                        "    gpus: 3",
                        "[0](ok-node).gpus", 9),
                new Case("      memoryGi: 80\n      interface: sxm",
                        "      memoryGi: lots\n      interface: sxm",
                        "[1](n1).gpus[0].memoryGi", 20),
                new Case("      memoryGi: 80\n      interface: sxm",
                        "      memoryGi: [1]\n      interface: sxm",
                        "[1](n1).gpus[0].memoryGi", 20),
                new Case("pciAddress: \"0000:18:00.0\"\n      uuid",
                        "pciAddress: \"zz:18:00.0\"\n      uuid",
                        "[1](n1).gpus[0].pciAddress", 22),
                new Case("pcieLink: {maxWidth: 16,",
                        "pcieLink: {maxWidth: [16],",
                        "[1](n1).gpus[0].pcieLink.maxWidth", 25),
                new Case("pcieLink: {maxWidth: 16,",
                        "pcieLink: {maxWidth: wide,",
                        "[1](n1).gpus[0].pcieLink", 25),
                new Case("minWatts: 200.0",
                        "minWatts: lots",
                        "[1](n1).gpus[0].powerLimits", 26),
                new Case("drmCards: [card1]",
                        "drmCards: card1",
                        "[1](n1).gpus[0].drmCards", 27),
                new Case("drmCards: [card2]",
                        "drmCards: [card2, card2-HDMI-A-1]",
                        "[1](n1).gpus[1].drmCards[1]", 33),
                new Case("kind: nvlink, up: true",
                        "kind: warp, up: true",
                        "[1](n1).gpus[0].links.links[0].kind", 28),
                new Case("remote: nvswitch, count: 18",
                        "remote: nvswitch, count: x",
                        "[1](n1).gpus[0].links.links[0].count", 28),
                new Case("allocatable: {nvidia.com/gpu: 2}",
                        "allocatable: {nvidia.com/gpu: two}",
                        "[1](n1).allocatable.nvidia.com/gpu", 34),
                new Case("allocatable: {nvidia.com/gpu: 2}",
                        "allocatable: [2]",
                        "[1](n1).allocatable", 34),
                new Case("requested: {nvidia.com/gpu: 1}",
                        "requested: {nvidia.com/gpu: -1}",
                        "[1](n1).requested.nvidia.com/gpu", 35),
                new Case("sysClassDrm: true",
                        "sysClassDrm: maybe",
                        "[1](n1).sysClassDrm", 36),
                new Case("    handout:\n      mode: dra\n",
                        "    handout: [x]\n    handoutx:\n      mode: dra\n",
                        "[1](n1).handout", 37),
                new Case("      mode: dra\n",
                        "      mode: magic\n",
                        "[1](n1).handout.mode", 38),
                new Case("      mode: dra\n",
                        "",
                        "[1](n1).handout.mode", 37),
                new Case("      - pciAddress: \"0000:18:00.0\"\n        by: dra",
                        "      - pciAddress: \"nope\"\n        by: dra",
                        "[1](n1).handout.gpus[0].pciAddress", 40),
                new Case("        by: dra\n",
                        "        by: hand\n",
                        "[1](n1).handout.gpus[0].by", 41),
                new Case("      - pciAddress: \"0000:18:00.0\"\n        by: dra",
                        "      - by: dra",
                        "[1](n1).handout.gpus[0]", 40),
                new Case("      gpus:\n      - pciAddress",
                        "      gpus:\n      - 7\n      - pciAddress",
                        "[1](n1).handout.gpus[0]", 40),
                new Case("        dra: [{driver: gpu.nvidia.com, pool: n1, device: gpu-0, allocated: true, claims: [ml/a]}]",
                        "        dra: []",
                        "[1](n1).handout.gpus[0].dra", 40),
                new Case("pool: n1, device: gpu-0",
                        "device: gpu-0",
                        "[1](n1).handout.gpus[0].dra[0].pool", 43),
                new Case("claims: [ml/a]",
                        "claims: [ml a]",
                        "[1](n1).handout.gpus[0].dra[0].claims[0]", 43),
                new Case("        allocated: true\n        dra",
                        "        allocated: yes-ish\n        dra",
                        "[1](n1).handout.gpus[0].allocated", 42),
                new Case("allocatedGpus: 1, devices",
                        "allocatedGpus: x, devices",
                        "[1](n1).handout.draTotals[0].allocatedGpus", 44),
                new Case("draTotals: [{driver: gpu.nvidia.com, gpus: 1",
                        "draTotals: [{gpus: 1",
                        "[1](n1).handout.draTotals[0]", 44),
                new Case("problems: [a line]",
                        "problems: [{a: 1}]",
                        "[1](n1).handout.problems[0]", 45),
                new Case("unmatched: [{driver: gpu.nvidia.com, pool: n1, device: gpu-9}]",
                        "unmatched: [{driver: gpu.nvidia.com, pool: n1}]",
                        "[1](n1).handout.unmatched[0].device", 46),
                new Case("fabric: {devices: [{name: mlx5_0",
                        "fabric: {devices: 3, x: [{name: mlx5_0",
                        "[1](n1).fabric.devices", 47),
                new Case("    fabric: {devices: [{name: mlx5_0, linkLayer: infiniband, state: active}]}",
                        "    fabric: [1]",
                        "[1](n1).fabric", 47),
                new Case("lastGoodPass: \"2026-05-01T11:58:00Z\"",
                        "lastGoodPass: \"yesterday\"",
                        "[1](n1).lastGoodPass", 49),
                new Case("  metadata:\n    name: n1\n",
                        "  metadata: {}\n",
                        "[1].metadata.name", 12));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aWrongValueIsNamedByItsPathAndLine(Case c) {
        assertTrue(RECORDS.contains(c.from()), c.from());
        String text = RECORDS.replaceFirst(java.util.regex.Pattern.quote(c.from()),
                java.util.regex.Matcher.quoteReplacement(c.to()));
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> RecordSet.read(() -> new StringReader(text), "records", RecordSet.DEFAULT_YAML_LIMIT));
        assertEquals(c.path(), e.path(), e.getMessage());
        assertEquals(c.line(), e.line(), e.getMessage());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void inJsonTooThePathIsTheSame(Case c) throws Exception {
        String yaml = RECORDS.replaceFirst(java.util.regex.Pattern.quote(c.from()),
                java.util.regex.Matcher.quoteReplacement(c.to()));
        String json = new com.fasterxml.jackson.databind.ObjectMapper().writerWithDefaultPrettyPrinter()
                .writeValueAsString(new com.fasterxml.jackson.databind.ObjectMapper(
                        new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(yaml));
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> RecordSet.read(() -> new StringReader(json), "records", RecordSet.DEFAULT_YAML_LIMIT));
        assertEquals(c.path(), e.path(), e.getMessage());
    }
}
