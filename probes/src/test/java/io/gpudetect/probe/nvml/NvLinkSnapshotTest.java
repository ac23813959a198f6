package io.gpudetect.probe.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuLinks;
import io.gpudetect.model.Interconnect;
import io.gpudetect.nvml.NvmlCall;
import io.gpudetect.nvml.NvmlReturn;
import io.gpudetect.nvml.NvmlSnapshot;
import io.gpudetect.probe.ProbeResult;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a snapshot's NVLinks and fabric become on each GPU, the same after nvml.json is written and read back. */
class NvLinkSnapshotTest {

    private static <T> NvmlCall<T> ok(String fn, T value) {
        return NvmlCall.success(fn, value);
    }

    private static NvmlSnapshot.Pci pci(int bus) {
        return new NvmlSnapshot.Pci(String.format("00000000:%02X:00.0", bus), 0, bus, 0, "233010de", "16c110de");
    }

    private static NvmlSnapshot.NvLink up(int link, long version, long type, int farBus) {
        return new NvmlSnapshot.NvLink(link, ok("nvmlDeviceGetNvLinkState", true), ok("nvmlDeviceGetNvLinkVersion", version),
                ok("nvmlDeviceGetNvLinkRemotePciInfo_v2", pci(farBus)), ok("nvmlDeviceGetNvLinkRemoteDeviceType", type));
    }

    private static NvmlSnapshot.NvLink down(int link) {
        return new NvmlSnapshot.NvLink(link, ok("nvmlDeviceGetNvLinkState", false), null, null, null);
    }

    private static NvmlSnapshot.NvLink end(int link, int code) {
        return new NvmlSnapshot.NvLink(link, NvmlCall.failure("nvmlDeviceGetNvLinkState", code, "x"), null, null, null);
    }

    private static NvmlSnapshot.Device gpu(int index, int bus, List<NvmlSnapshot.NvLink> links,
                                           NvmlCall<NvmlSnapshot.Fabric> fabric) {
        return new NvmlSnapshot.Device(index, ok("nvmlDeviceGetHandleByIndex_v2", null),
                ok("nvmlDeviceGetName", "NVIDIA H100 80GB HBM3"), null, null, null, ok("nvmlDeviceGetPciInfo_v3", pci(bus)),
                null, null, null, null, null, null, null, null, null, List.of(), null, null, null, null, null, null, null,
                null, links, fabric, null, null, null, null, null);
    }

    private static NvmlSnapshot host(NvmlSnapshot.Device... devices) {
        return new NvmlSnapshot(1, "/usr/lib64/libnvidia-ml.so.1", null, ok("nvmlInit_v2", null), null, null, null,
                ok("nvmlDeviceGetCount_v2", devices.length), List.of(devices), ok("nvmlShutdown", null));
    }

    /** The GPUs of {@code s}, interpreted from the snapshot and from its nvml.json: both must agree. */
    private static List<Gpu> gpus(NvmlSnapshot s) throws Exception {
        ProbeResult live = NvmlGpus.interpret(s, "nvml.json");
        ProbeResult replay = NvmlGpus.interpret(NvmlSnapshotJson.read(NvmlSnapshotJson.write(s)), "nvml.json");
        assertEquals(live, replay, "a replay of the written snapshot reads the same links");
        return live.gpus();
    }

    @Test
    void switchLinksAreOneGroupWithTheGenerationAndADownLinkIsItsOwn() throws Exception {
        List<NvmlSnapshot.NvLink> links = new ArrayList<>();
        for (int l = 0; l < 18; l++) {
            links.add(l == 7 ? down(l) : up(l, 6, 2, 0xc0));
        }
        Gpu g = gpus(host(gpu(0, 0x18, links, NvmlCall.failure("nvmlDeviceGetGpuFabricInfoV", 3, "Not Supported")))).get(0);
        assertEquals(List.of(new GpuLinks.Link(GpuLinks.Kind.NVLINK, true, 4, GpuLinks.Remote.NVSWITCH, null, 17),
                new GpuLinks.Link(GpuLinks.Kind.NVLINK, false, null, GpuLinks.Remote.UNKNOWN, null, 1)), g.links().links());
        assertNull(g.links().fabric(), "Not Supported: no multi-node fabric");
        assertEquals("nvml", g.sources().get("links"));
    }

    @Test
    void gpuToGpuLinksNameTheFarGpuByItsAddress() throws Exception {
        List<Gpu> gpus = gpus(host(
                gpu(0, 0x4f, List.of(up(0, 4, 0, 0x52), up(1, 4, 0, 0x52), end(2, 2)), null),
                gpu(1, 0x52, List.of(up(0, 4, 0, 0x4f), up(1, 4, 0, 0x4f), end(2, 2)), null)));
        assertEquals(List.of(new GpuLinks.Link(GpuLinks.Kind.NVLINK, true, 3, GpuLinks.Remote.GPU, "0000:52:00.0", 2)),
                gpus.get(0).links().links());
        Interconnect i = Interconnect.of(gpus);
        assertTrue(i.allPairsJoined());
        assertEquals("2 GPUs joined by an NVLink bridge", i.summary(), "cards of unknown form linked straight: a bridge");
    }

    @Test
    void notSupportedAtTheFirstLinkIsNoLinksAndAMissingSymbolIsNotKnown() throws Exception {
        Gpu none = gpus(host(gpu(0, 0x41, List.of(end(0, NvmlReturn.ERROR_NOT_SUPPORTED)), null))).get(0);
        assertEquals(List.of(), none.links().links());
        ProbeResult old = NvmlGpus.interpret(host(gpu(0, 0x41, List.of(end(0, NvmlReturn.ERROR_FUNCTION_NOT_FOUND)), null)),
                "nvml.json");
        assertNull(old.gpus().get(0).links());
        assertTrue(old.diagnostics().stream().anyMatch(d -> d.message().contains("does not export nvmlDeviceGetNvLinkState")));
        Gpu before = gpus(host(gpu(0, 0x41, null, null))).get(0);
        assertNull(before.links(), "a snapshot recorded before NVLink was asked says nothing of links");
    }

    @Test
    void aFailureAfterSomeLinksIsWarnedAndTheLinksReadAreKept() throws Exception {
        ProbeResult r = NvmlGpus.interpret(host(gpu(0, 0x18, List.of(up(0, 6, 2, 0xc0), end(1, 10)), null)), "nvml.json");
        assertEquals(1, r.gpus().get(0).links().linksUp());
        assertTrue(r.diagnostics().stream().anyMatch(d -> d.message().contains("the state of NVLink 1 not read")),
                r.diagnostics().toString());
    }

    @Test
    void aRegisteredFabricGivesTheCliqueAsGfdWritesIt() throws Exception {
        NvmlCall<NvmlSnapshot.Fabric> fabric = ok("nvmlDeviceGetGpuFabricInfoV",
                new NvmlSnapshot.Fabric("9277D399-0674-44A9-B64E-D85BB19CE2B0", 32766, 3, 0));
        Gpu g = gpus(host(gpu(0, 0x01, List.of(up(0, 7, 2, 0xc0), end(1, 2)), fabric))).get(0);
        assertEquals(new GpuLinks.Fabric("9277d399-0674-44a9-b64e-d85bb19ce2b0", 32766L, "completed", "NVML_SUCCESS"),
                g.links().fabric());
        assertEquals("9277d399-0674-44a9-b64e-d85bb19ce2b0.32766", g.links().fabric().clique());
        NvmlCall<NvmlSnapshot.Fabric> zero = ok("nvmlDeviceGetGpuFabricInfoV",
                new NvmlSnapshot.Fabric("00000000-0000-0000-0000-000000000000", 0, 1, 0));
        assertNull(gpus(host(gpu(0, 0x01, List.of(end(0, 3)), zero))).get(0).links().fabric().clique());
    }
}
