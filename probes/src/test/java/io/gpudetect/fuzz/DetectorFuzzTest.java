package io.gpudetect.fuzz;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.gpudetect.inventory.Detector;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.probe.Probe;
import io.gpudetect.probe.Probes;
import io.gpudetect.source.BundleException;
import io.gpudetect.source.BundleSource;
import io.gpudetect.tables.AkashGpus;
import io.gpudetect.tables.Tables;
import io.gpudetect.testing.SharedData;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The whole pass over a recorded bundle: {@link BundleSource} (manifest, tool files, sys/ tree), every
 * default probe, the merge and the normaliser. Inputs are whole bundles in {@link BundleText} form, so
 * the fuzzer combines broken files with good ones as a real host does.
 */
class DetectorFuzzTest {

    private static final List<Probe> PROBES = Probes.defaults();
    private static final Set<String> PROBE_NAMES = PROBES.stream().map(Probe::name).collect(Collectors.toSet());
    /**
     * Loaded once: pci.ids takes longer to read than a bundle takes to probe. Akash's table from ../shared where it
     * is, else none (the models then come from gpu-detect's own rules, which the fuzzer exercises just as well).
     */
    private static final AkashGpus AKASH = SharedData.akashTableFile().map(DetectorFuzzTest::read)
            .orElse(AkashGpus.absent("no shared/data/akash-gpus.json"));
    private static final Tables TABLES = Tables.shipped(() -> AKASH);
    /** Detector's notes on the tables a pass named cards without, which belong to no probe and no file. */
    private static final Set<String> TABLE_NOTES = Set.of("akash-gpus", "amdgpu.ids");

    private static AkashGpus read(Path file) {
        try {
            return AkashGpus.parse(java.nio.file.Files.readString(file), file.toString());
        } catch (java.io.IOException | io.gpudetect.tables.TableException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    @FuzzTest
    void bundle(byte[] input) {
        Path dir = BundleText.write(input);
        try {
            BundleSource source;
            try {
                source = BundleSource.open(dir);
            } catch (BundleException e) {
                assertTrue(e.getMessage().contains("bundle.json"), () -> "unclear refusal: " + e.getMessage());
                return;
            }
            Inventory inventory = new Detector(PROBES).detect(source, TABLES);
            assertNotNull(inventory.gpus());
            for (Diagnostic d : inventory.diagnostics()) {
                if (TABLE_NOTES.contains(d.probe()) && d.severity() == Diagnostic.Severity.INFO) {
                    continue;
                }
                // The inventory reads /proc/meminfo itself, for GPUs that use the host's memory, and says so in its name;
                // the node's RDMA fabric is read beside the probes, under its own, and the GPU links' fallback from
                // nvidia-smi topo -m and nvlink -s, and from amd-smi topology and rocm-smi --showtopo, after the merge,
                // under theirs.
                assertTrue(PROBE_NAMES.contains(d.probe()) || d.probe().equals(io.gpudetect.inventory.UnifiedMemory.SOURCE)
                        || d.probe().equals(io.gpudetect.probe.fabric.RdmaFabricReader.NAME)
                        || d.probe().equals(io.gpudetect.probe.nvidia.NvidiaSmiTopoParser.PROBE)
                        || d.probe().equals(io.gpudetect.probe.nvidia.NvidiaSmiNvlinkParser.PROBE)
                        || d.probe().equals(io.gpudetect.probe.amd.AmdSmiTopologyParser.PROBE)
                        || d.probe().equals(io.gpudetect.probe.amd.RocmSmiTopoParser.PROBE),
                        () -> "diagnostic from no known probe: " + d);
                // Detector's own "probe failed unexpectedly" (a probe threw) is the one diagnostic without a file.
                assertNotNull(d.file(), () -> "diagnostic names no file (did a probe throw?): " + d);
                assertTrue(d.line() == null || d.line() > 0, () -> "line out of range: " + d);
                assertTrue(d.message().length() <= io.gpudetect.probe.FieldLimits.MAX_MESSAGE_CHARS,
                        () -> "unbounded message: " + d.message().length());
            }
            inventory.gpus().forEach(FuzzInvariants::bounded);
            if (inventory.fabric() != null) {
                for (io.gpudetect.model.Fabric.RdmaDevice d : inventory.fabric().devices()) {
                    assertTrue(d.name() != null && d.name().length() <= 64, () -> "device name unbounded: " + d.name());
                    d.ports().forEach(p -> assertTrue(p.linkLayer() == null || p.linkLayer().length() <= 64,
                            () -> "link layer unbounded: " + p.linkLayer()));
                }
                assertNotNull(inventory.fabric().gpuDirectRdma(), "a fabric read says what GPUDirect RDMA can do");
            }
        } finally {
            BundleText.delete(dir);
        }
    }
}
