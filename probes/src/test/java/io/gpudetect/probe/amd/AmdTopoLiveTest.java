package io.gpudetect.probe.amd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuLinks;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.pci.SysfsPciProbe;
import io.gpudetect.source.ToolsOnlySource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * On a live host the tools cost a process each: they run only where sysfs did not describe the AMD GPUs (a container
 * given the tools but not the cards' device folders), amd-smi first, rocm-smi where amd-smi is not installed.
 */
class AmdTopoLiveTest {

    private static Gpu gpu(String probe, String address) {
        return Gpu.builder(probe).vendor(Vendor.AMD).name("AMD Instinct MI300X").pciAddress(PciAddress.of(address)).build();
    }

    private static final String JSON = """
            [{"gpu": 0, "bdf": "0000:0c:00.0", "links": [
                {"gpu": 0, "bdf": "0000:0c:00.0", "link_type": "SELF"}, {"gpu": 1, "bdf": "0000:22:00.0", "link_type": "XGMI"}]},
             {"gpu": 1, "bdf": "0000:22:00.0", "links": [
                {"gpu": 0, "bdf": "0000:0c:00.0", "link_type": "XGMI"}, {"gpu": 1, "bdf": "0000:22:00.0", "link_type": "SELF"}]}]
            """;

    @Test
    void aHostWhoseSysfsShowedNoCardRunsAmdSmiTopologyOnce() {
        ToolsOnlySource host = ToolsOnlySource.live(Map.of("amd-smi topology --json", JSON));
        List<Diagnostic> notes = new ArrayList<>();

        List<Gpu> gpus = AmdTopoLinks.fill(host, List.of(gpu("amd-smi", "0000:0c:00.0"), gpu("amd-smi", "0000:22:00.0")), notes);

        assertEquals(List.of("amd-smi topology --json"), host.calls());
        assertEquals(List.of(new GpuLinks.Link(GpuLinks.Kind.XGMI, true, null, GpuLinks.Remote.GPU, "0000:22:00.0", 1)),
                gpus.get(0).links().links());
        assertEquals("amd-smi-topology", gpus.get(1).sources().get("links"));
        assertEquals(List.of(), notes);
    }

    @Test
    void withoutAmdSmiRocmSmiShowtopoRuns() {
        ToolsOnlySource host = ToolsOnlySource.live(
                Map.of("rocm-smi --showtopo", RocmSmiTopoParserTest.showtopo(2, (i, j) -> "XGMI")));

        List<Gpu> gpus = AmdTopoLinks.fill(host, List.of(gpu("rocm-smi-json", "0000:22:00.0"),
                gpu("rocm-smi-json", "0000:0c:00.0")), new ArrayList<>());

        assertEquals(List.of("amd-smi topology --json", "rocm-smi --showtopo"), host.calls());
        assertEquals("0000:0c:00.0", gpus.get(0).links().links().get(0).remotePciAddress());
        assertEquals("rocm-smi-topo", gpus.get(0).sources().get("links"));
    }

    @Test
    void aHostWhoseSysfsShowedTheCardsWithoutAHiveRunsNothing() {
        ToolsOnlySource host = ToolsOnlySource.live(Map.of("amd-smi topology --json", JSON));
        List<Gpu> in = List.of(gpu(SysfsPciProbe.NAME, "0000:0c:00.0"), gpu(SysfsPciProbe.NAME, "0000:22:00.0"));

        List<Gpu> gpus = AmdTopoLinks.fill(host, in, new ArrayList<>());

        assertEquals(List.of(), host.calls());
        assertSame(in, gpus);
    }

    @Test
    void oneGpuRunsNothing() {
        ToolsOnlySource host = ToolsOnlySource.live(Map.of("amd-smi topology --json", JSON));

        List<Gpu> gpus = AmdTopoLinks.fill(host, List.of(gpu("amd-smi", "0000:0c:00.0")), new ArrayList<>());

        assertEquals(List.of(), host.calls());
        assertNull(gpus.get(0).links());
    }
}
