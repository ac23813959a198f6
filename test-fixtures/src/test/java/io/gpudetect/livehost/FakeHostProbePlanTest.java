package io.gpudetect.livehost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpudetect.cli.GpuDetectCommand;
import io.gpudetect.inventory.Detector;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.probe.Probes;
import io.gpudetect.render.InventoryDocument;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.RecordingSource;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.Profiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The probe plan on fake hosts: which tools a live pass runs (each fake tool logs its call), which it skips and
 * why, and when the pass is complete. Every vendor tool is installed on every host, failing where its vendor's
 * GPU is absent, as on a mining image that carries both vendors' stacks.
 */
class FakeHostProbePlanTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** The result of plain {@code gpu-detect --output json} on the host, and its exit status. */
    private record Run(int exit, JsonNode doc, String err) {
        /** Each probe's outcome, by name, as the document lists them. */
        Map<String, String> outcomes() {
            Map<String, String> out = new LinkedHashMap<>();
            doc.get("probes").forEach(p -> out.put(p.get("name").asText(), p.get("outcome").asText()));
            return out;
        }

        String why(String probe) {
            for (JsonNode p : doc.get("probes")) {
                if (p.get("name").asText().equals(probe)) {
                    return p.path("why").asText(null);
                }
            }
            return null;
        }

        boolean complete() {
            return doc.get("complete").asBoolean();
        }

        List<String> gaps() {
            List<String> out = new ArrayList<>();
            doc.path("gaps").forEach(g -> out.add(g.asText()));
            return out;
        }

        List<String> models() {
            List<String> out = new ArrayList<>();
            doc.get("gpus").forEach(g -> out.add(g.path("vendor").asText() + " " + g.path("model").asText("-")));
            return out;
        }
    }

    private static Run detect(FakeHost host) throws IOException {
        List<String> args = new ArrayList<>(List.of("--host-root", host.root.toString(), "--output", "json",
                "--akash-table", io.gpudetect.testing.SharedData.akashTableOption()));
        if (host.driverRoot() != null) {
            args.addAll(List.of("--driver-root", host.driverRoot().toString()));
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = GpuDetectCommand.run(args.toArray(String[]::new), new PrintWriter(out), new PrintWriter(err),
                Map.of("PATH", host.pathVariable()));
        return new Run(exit, out.toString().isEmpty() ? null : JSON.readTree(out.toString()), err.toString());
    }

    /** An NVIDIA host with a BMC display: one H100 at 0000:18:00.0 (the stand-in NVML's "h100") and an ASPEED. */
    private FakeHost nvidiaHost() throws IOException {
        return new FakeHost(dir).everyToolFailingWithoutItsGpu()
                .function("0000:18:00.0", "10de", "2330", "0x030200", "a1", "nvidia")
                .function("0000:03:00.0", "1a03", "2000", "0x030000", "41", "ast");
    }

    @Test
    void anNvidiaHostWhereNvmlAnswersRunsNoProcessAtAll() throws IOException {
        FakeHost host = nvidiaHost().nvml("h100");
        Run run = detect(host);

        assertEquals(List.of(), host.calls(), "no tool runs: NVML and the bus describe every GPU");
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.complete(), run.doc().toString());
        Map<String, String> outcomes = run.outcomes();
        assertEquals("ok", outcomes.get("sysfs-pci"));
        assertEquals("ok", outcomes.get("nvml"));
        for (String skipped : List.of("nvidia-smi-xml", "amd-smi", "rocm-smi-json", "rocminfo", "clinfo")) {
            assertEquals("skipped", outcomes.get(skipped), skipped);
        }
        assertEquals("1 GPU bound to the nvidia driver", run.why("nvml"));
        assertEquals("nvml described every GPU bound to the nvidia driver", run.why("nvidia-smi-xml"));
        assertEquals("no GPU bound to the amdgpu driver on the PCI bus", run.why("rocm-smi-json"));
        assertEquals("every GPU on the PCI bus is named by a vendor source or pci.ids", run.why("clinfo"));
        assertFalse(outcomes.containsKey("nvidia-smi-table"), "bundle-only forms are not part of a live plan");
        assertEquals(List.of("aspeed aspeed-graphics-family", "nvidia h100"), run.models());
        assertTrue(run.doc().get("gpus").get(0).path("emulated").asBoolean(), "the BMC display is listed, never counted");
    }

    @Test
    void withoutNvmlOnlyNvidiaSmiRunsAndItsRealOutputDescribesTheCards() throws IOException {
        FakeHost host = new FakeHost(dir).everyToolFailingWithoutItsGpu()
                .toolPrinting("nvidia-smi", Fixtures.sharedOrSkip("hosts/2x-rtx-a5000_590.44.01_v13/nvidia-smi.xml"))
                .function("0000:81:00.0", "10de", "2231", "0x030000", "a1", "nvidia")
                .function("0000:c1:00.0", "10de", "2231", "0x030000", "a1", "nvidia");
        Run run = detect(host);

        // Then its topology matrix, for the links NVML would have given (the fake prints its XML again: not read).
        assertEquals(List.of("nvidia-smi -q -x", "nvidia-smi topo -m"), host.calls());
        assertEquals("absent", run.outcomes().get("nvml"));
        assertEquals("ok", run.outcomes().get("nvidia-smi-xml"));
        assertEquals("0000:81:00.0 (10de:2231), 0000:c1:00.0 (10de:2231) not described by nvml (absent)",
                run.why("nvidia-smi-xml"));
        assertTrue(run.complete(), run.gaps().toString());
        assertEquals(List.of("nvidia a5000", "nvidia a5000"), run.models());
        assertEquals("590.44.01", run.doc().get("gpus").get(0).get("driverVersion").asText());
    }

    @Test
    void withoutNvmlABridgedPairRunsTheMatrixThenTheLinkStatesAndARecordingKeepsBoth() throws Exception {
        Path xml = Fixtures.sharedOrSkip("hosts/2x-rtx-a5000_590.44.01_v13/nvidia-smi.xml");
        String links = "\\t Link 0: 14.062 GB/s\\n\\t Link 1: <inactive>\\n";
        FakeHost host = new FakeHost(dir).everyToolFailingWithoutItsGpu()
                .tool("nvidia-smi", "case \"$1 $2\" in\n"
                        + "'topo -m') printf '\\tGPU0\\tGPU1\\tCPU Affinity\\tNUMA Affinity\\nGPU0\\t X \\tNV1\\t0-31\\t0\\n"
                        + "GPU1\\tNV1\\t X \\t0-31\\t0\\n' ;;\n"
                        + "'nvlink -s') printf 'GPU 0: NVIDIA RTX A5000 (UUID: GPU-12345678-aaaa-bbbb-cccc-0123456789ab)\\n"
                        + links + "GPU 1: NVIDIA RTX A5000 (UUID: GPU-12345678-aaaa-bbbb-cccc-0123456789cd)\\n" + links
                        + "' ;;\n*) cat '" + xml.toAbsolutePath() + "' ;;\nesac")
                .function("0000:81:00.0", "10de", "2231", "0x030000", "a1", "nvidia")
                .function("0000:c1:00.0", "10de", "2231", "0x030000", "a1", "nvidia");
        Path bundle = dir.resolve("bundle");
        Detector detector = new Detector(Probes.defaults());
        RecordingSource recording = new RecordingSource(host.source(), bundle, true);
        Inventory recorded = detector.detect(recording, io.gpudetect.testing.SharedData.replayTables());
        recording.finish("fake", "test");

        // The matrix shows an NVLink, so the link states are asked: a third nvidia-smi at this full detection (a
        // recording consults every other tool too).
        assertEquals(List.of("nvidia-smi -q -x", "nvidia-smi topo -m", "nvidia-smi nvlink -s"),
                host.calls().stream().filter(c -> c.startsWith("nvidia-smi")).toList());
        assertTrue(Files.isRegularFile(bundle.resolve("nvidia-smi-nvlink.txt")), "record keeps the link states");
        Inventory replayed = detector.detect(BundleSource.open(bundle, Probes.bundleFiles(Probes.defaults())),
                io.gpudetect.testing.SharedData.replayTables());
        for (Inventory inv : List.of(recorded, replayed)) {
            assertEquals("2 GPUs joined by an NVLink bridge; 2 links down", inv.interconnect().summary());
            assertEquals(List.of(new io.gpudetect.model.GpuLinks.Link(io.gpudetect.model.GpuLinks.Kind.NVLINK, true, 3,
                            io.gpudetect.model.GpuLinks.Remote.GPU, "0000:c1:00.0", 1),
                    new io.gpudetect.model.GpuLinks.Link(io.gpudetect.model.GpuLinks.Kind.NVLINK, false, null,
                            io.gpudetect.model.GpuLinks.Remote.UNKNOWN, null, 1)), inv.gpus().get(0).links().links());
        }
    }

    @Test
    void nvmlThatFailsToInitialiseWithNoOtherSourceKeepsThePassIncomplete() throws IOException {
        FakeHost host = nvidiaHost().nvml("init-error-18");
        Run run = detect(host);

        assertEquals(List.of("nvidia-smi -q -x"), host.calls(), "nvidia-smi is the fallback for what NVML did not describe");
        assertEquals("failed", run.outcomes().get("nvml"));
        assertEquals("failed", run.outcomes().get("nvidia-smi-xml"));
        assertFalse(run.complete());
        assertEquals(List.of("0000:18:00.0 (10de:2330): no source described it (nvml failed, nvidia-smi-xml failed)"),
                run.gaps());
        assertEquals(0, run.exit(), "the host was seen; what failed is in the document");
    }

    /**
     * Two of four H100s fallen off the bus (the stand-in's "lost" scenario: one answers GPU_IS_LOST, one has no
     * handle): NVML describes them as lost, the pass is complete, and the labels say so.
     */
    @Test
    void gpusFallenOffTheBusAreDescribedAsLostAndReachTheLabels() throws IOException {
        FakeHost host = new FakeHost(dir).everyToolFailingWithoutItsGpu().nvml("lost");
        for (String address : List.of("0000:19:00.0", "0000:3b:00.0", "0000:4c:00.0", "0000:5d:00.0")) {
            host.function(address, "10de", "2330", "0x030200", "a1", "nvidia");
        }
        Run run = detect(host);

        assertEquals(List.of(), host.calls(), "NVML described every GPU, the lost ones as lost");
        assertEquals("ok", run.outcomes().get("nvml"));
        assertTrue(run.complete(), run.gaps().toString());
        List<String> health = new ArrayList<>();
        run.doc().get("gpus").forEach(g -> health.add(g.get("pciAddress").asText() + " " + g.path("health").path("status").asText()));
        assertEquals(List.of("0000:19:00.0 ok", "0000:3b:00.0 lost", "0000:4c:00.0 ok", "0000:5d:00.0 lost"), health);
        boolean noted = false;
        for (JsonNode d : run.doc().get("diagnostics")) {
            noted |= d.get("message").asText().startsWith("GPU 1 (0000:3b:00.0) is lost: ");
        }
        assertTrue(noted, "each lost GPU has its note: " + run.doc().get("diagnostics"));

        Inventory inventory = new Detector(Probes.defaults(io.gpudetect.probe.ProbeSettings.defaults()
                .withDriverRoot(host.driverRoot()))).detect(host.source(), io.gpudetect.testing.SharedData.replayTables());
        Map<String, String> labels = Profiles.of("gpu-detect").render(inventory);
        assertEquals("4", labels.get("gpu-detect.io/gpu.count"));
        assertEquals("2", labels.get("gpu-detect.io/gpu.unhealthy.count"));
    }

    @Test
    void anAmdHostRunsOnlyTheFirstAmdToolThatAnswers() throws IOException {
        FakeHost host = new FakeHost(dir).everyToolFailingWithoutItsGpu()
                .toolPrinting("rocm-smi", Fixtures.sharedOrSkip("hosts/rocm-smi_2x-vega20_radeon-vii_showallinfo/rocm-smi.json"))
                .function("0000:03:00.0", "1002", "66af", "0x030000", "c1", "amdgpu")
                .function("0000:06:00.0", "1002", "66af", "0x030000", "c1", "amdgpu");
        java.nio.file.Files.delete(host.bin.resolve("amd-smi"));
        Run run = detect(host);

        assertEquals(List.of("rocm-smi --showallinfo --json"), host.calls(), "amd-smi is not installed; rocminfo not needed");
        assertEquals("absent", run.outcomes().get("amd-smi"));
        assertEquals("ok", run.outcomes().get("rocm-smi-json"));
        assertEquals("skipped", run.outcomes().get("rocminfo"));
        assertEquals("rocm-smi-json described every GPU bound to the amdgpu driver", run.why("rocminfo"));
        assertEquals("skipped", run.outcomes().get("nvml"));
        assertEquals("skipped", run.outcomes().get("nvidia-smi-xml"));
        assertTrue(run.complete(), run.gaps().toString());
        assertEquals(2, run.doc().get("gpus").size());
    }

    @Test
    void anAmdToolThatFailsHandsOverToTheNextAndTheFailureOnlyCountsIfNoneDescribesTheGpu() throws IOException {
        FakeHost host = new FakeHost(dir).everyToolFailingWithoutItsGpu()
                .function("0000:03:00.0", "1002", "66af", "0x030000", "c1", "amdgpu");
        Run run = detect(host);

        assertEquals(List.of("amd-smi static --json", "rocm-smi --showallinfo --json", "rocminfo"), host.calls());
        assertFalse(run.complete());
        assertEquals(List.of("0000:03:00.0 (1002:66af): no source described it (amd-smi failed, rocm-smi-json failed, rocminfo failed)"),
                run.gaps());
    }

    @Test
    void aHostWithEveryVendorRunsEachVendorsSourceForItsOwnGpusOnly() throws IOException {
        FakeHost host = new FakeHost(dir).everyToolFailingWithoutItsGpu().nvml("h100")
                .toolPrinting("rocm-smi", Fixtures.sharedOrSkip("hosts/rocm-smi_2x-vega20_radeon-vii_showallinfo/rocm-smi.json"))
                .function("0000:00:02.0", "8086", "3e92", "0x030000", "00", "i915")
                .function("0000:03:00.0", "1002", "66af", "0x030000", "c1", "amdgpu")
                .function("0000:06:00.0", "1002", "66af", "0x030000", "c1", "amdgpu")
                .function("0000:18:00.0", "10de", "2330", "0x030200", "a1", "nvidia")
                .function("0000:21:00.0", "1a03", "2000", "0x030000", "41", "ast");
        Run run = detect(host);

        assertEquals(List.of("amd-smi static --json", "rocm-smi --showallinfo --json"), host.calls(),
                "amd-smi fails, rocm-smi answers for both Radeons; NVML needs no tool; pci.ids names the Intel GPU");
        assertEquals("skipped", run.outcomes().get("nvidia-smi-xml"));
        assertEquals("skipped", run.outcomes().get("rocminfo"));
        assertEquals("skipped", run.outcomes().get("clinfo"));
        assertTrue(run.complete(), run.gaps().toString());
        assertEquals(List.of("intel uhd630", "amd radeonvii", "amd radeonvii", "nvidia h100",
                "aspeed aspeed-graphics-family"), run.models());
    }

    @Test
    void clinfoRunsOnlyForAGpuThatNothingElseNames() throws IOException {
        FakeHost named = new FakeHost(dir.resolve("named")).everyToolFailingWithoutItsGpu()
                .function("0000:00:02.0", "8086", "56a0", "0x030000", "08", "i915");
        Run namedRun = detect(named);
        assertEquals(List.of(), named.calls(), "pci.ids names the Arc A770: clinfo is not needed");
        assertTrue(namedRun.complete());

        FakeHost unnamed = new FakeHost(dir.resolve("unnamed")).everyToolFailingWithoutItsGpu()
                .function("0000:00:02.0", "8086", "fff0", "0x030000", "08", "xe");
        Run unnamedRun = detect(unnamed);
        assertEquals(List.of("clinfo"), unnamed.calls());
        assertEquals("no name for 0000:00:02.0 (8086:fff0) in pci.ids or a vendor source", unnamedRun.why("clinfo"));
        assertTrue(unnamedRun.complete(), "clinfo only names; the bus describes the GPU");
    }

    @Test
    void aHostRootWithoutAPciBusFailsWithOneLineAndExitStatusOne() throws IOException {
        FakeHost host = nvidiaHost();
        // A folder without sys/ under it, as a host root where /sys was not mounted (a missing folder is refused
        // before detection: GpuDetectCommandTest).
        Path missing = Files.createDirectories(dir.resolve("not-mounted"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = GpuDetectCommand.run(new String[] {"--host-root", missing.toString()}, new PrintWriter(out),
                new PrintWriter(err), Map.of("PATH", host.pathVariable()));

        assertEquals(1, exit, err.toString());
        String[] lines = err.toString().strip().split("\n");
        String last = lines[lines.length - 1];
        assertTrue(last.startsWith("gpu-detect: cannot see the PCI bus (/sys/bus/pci/devices: "), last);
        assertTrue(last.contains("is the host's /sys mounted?"), last);
        StringWriter json = new StringWriter();
        GpuDetectCommand.run(new String[] {"--host-root", missing.toString(), "--output", "json"}, new PrintWriter(json),
                new PrintWriter(new StringWriter()), Map.of("PATH", host.pathVariable()));
        Run run = new Run(1, JSON.readTree(json.toString()), "");
        assertEquals("the PCI bus could not be read, so every source was consulted", run.why("clinfo"));
        assertFalse(run.complete());
        assertFalse(out.toString().contains("No GPUs found"), "never 'no GPUs' from a host that was not seen: " + out);
    }

    @Test
    void aRecordingOfEverySourceReplaysWithTheStrayToolsFailuresAsNotes() throws Exception {
        FakeHost host = nvidiaHost().nvml("h100");
        Path bundle = dir.resolve("bundle");
        Detector detector = new Detector(Probes.defaults(io.gpudetect.probe.ProbeSettings.defaults().withDriverRoot(host.driverRoot())));
        RecordingSource recording = new RecordingSource(host.source(), bundle, true);
        Inventory recorded = detector.detect(recording, io.gpudetect.testing.SharedData.replayTables());
        recording.finish("fake", "test");

        assertEquals(5, host.calls().size(), "every source consulted: " + host.calls());
        assertTrue(recorded.complete(), recorded.gaps().toString());
        Inventory replayed = detector.detect(BundleSource.open(bundle, Probes.bundleFiles(Probes.defaults())),
                io.gpudetect.testing.SharedData.replayTables());
        assertTrue(replayed.complete(), replayed.gaps().toString());
        JsonNode doc = JSON.readTree(InventoryDocument.json(replayed));
        boolean rocmNote = false;
        for (JsonNode d : doc.get("diagnostics")) {
            if (d.get("probe").asText().equals("rocm-smi-json")) {
                assertEquals("info", d.get("severity").asText(), d.toString());
                rocmNote |= d.get("message").asText().endsWith("(no GPU on the PCI bus needs this source)");
            }
        }
        assertTrue(rocmNote, doc.get("diagnostics").toString());
    }

    @Test
    void theDriverRootsOwnNvidiaSmiIsTheFallbackRunWithItsLibraries() throws IOException {
        FakeHost host = new FakeHost(dir).everyToolFailingWithoutItsGpu()
                .function("0000:81:00.0", "10de", "2231", "0x030000", "a1", "nvidia")
                .function("0000:c1:00.0", "10de", "2231", "0x030000", "a1", "nvidia");
        java.nio.file.Files.delete(host.bin.resolve("nvidia-smi"));
        // The GPU operator's driver container: its nvidia-smi and libraries, no libnvidia-ml the agent can load.
        Path driverRoot = dir.resolve("run/nvidia/driver");
        java.nio.file.Files.createDirectories(driverRoot.resolve("usr/lib/x86_64-linux-gnu"));
        Path smi = java.nio.file.Files.createDirectories(driverRoot.resolve("usr/bin")).resolve("nvidia-smi");
        java.nio.file.Files.writeString(smi, "#!/bin/sh\necho \"driver-root nvidia-smi $* LD_LIBRARY_PATH=$LD_LIBRARY_PATH\" >> '"
                + host.log + "'\ncat '" + Fixtures.sharedOrSkip("hosts/2x-rtx-a5000_590.44.01_v13/nvidia-smi.xml").toAbsolutePath() + "'\n");
        java.nio.file.Files.setPosixFilePermissions(smi, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));

        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = GpuDetectCommand.run(new String[] {"--host-root", host.root.toString(), "--driver-root",
                driverRoot.toString(), "--output", "json", "--akash-table", io.gpudetect.testing.SharedData.akashTableOption()},
                new PrintWriter(out), new PrintWriter(err),
                Map.of("PATH", host.pathVariable()));
        JsonNode doc = JSON.readTree(out.toString());

        assertEquals(0, exit, err.toString());
        List<String> calls = host.calls();
        assertEquals(2, calls.size(), calls.toString());
        assertTrue(calls.get(0).startsWith("driver-root nvidia-smi -q -x LD_LIBRARY_PATH="
                + driverRoot.resolve("usr/lib/x86_64-linux-gnu")), calls.get(0));
        // The topology matrix for the links, from the same nvidia-smi with the same libraries.
        assertTrue(calls.get(1).startsWith("driver-root nvidia-smi topo -m LD_LIBRARY_PATH="
                + driverRoot.resolve("usr/lib/x86_64-linux-gnu")), calls.get(1));
        assertEquals(2, doc.get("gpus").size());
        assertEquals("590.44.01", doc.get("gpus").get(1).get("driverVersion").asText());
        assertTrue(doc.get("complete").asBoolean(), doc.path("gaps").toString());
    }
}
