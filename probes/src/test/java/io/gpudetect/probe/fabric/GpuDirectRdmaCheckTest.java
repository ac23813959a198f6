package io.gpudetect.probe.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.inventory.Detector;
import io.gpudetect.model.Fabric;
import io.gpudetect.model.Fabric.GpuDirectRdma.Verdict;
import io.gpudetect.probe.pci.SysfsPciProbe;
import io.gpudetect.tables.AkashGpus;
import io.gpudetect.tables.Tables;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GPUDirect RDMA as a fact with its evidence: can-work, cannot or unknown, never more than the files show. */
class GpuDirectRdmaCheckTest {

    private static final String PROPRIETARY = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n";
    private static final String OPEN = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build\n";

    @TempDir
    Path tmp;

    private FabricTree node() throws Exception {
        FabricTree t = new FabricTree(tmp);
        t.nvidiaGpu("pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0", "0000:18:00.0", 0);
        t.mlx5("pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0", "0000:19:00.0", 0, "mlx5_0", "InfiniBand",
                "4: ACTIVE", "400 Gb/sec (4X NDR)");
        return t;
    }

    private Fabric.GpuDirectRdma judge(FabricTree t) {
        return new Detector(List.of(new SysfsPciProbe())).detect(t.live(), Tables.shipped(() -> AkashGpus.absent("-")))
                .fabric().gpuDirectRdma();
    }

    @Test
    void nvidiaPeermemLoadedCanWork() throws Exception {
        FabricTree t = node();
        t.file("/sys/module/nvidia_peermem/initstate", "live\n");
        assertEquals(new Fabric.GpuDirectRdma(Verdict.CAN_WORK,
                List.of("nvidia_peermem is loaded (/sys/module/nvidia_peermem/initstate: live)")), judge(t));
    }

    @Test
    void theOlderNvPeerMemCanWorkToo() throws Exception {
        FabricTree t = node();
        t.file("/sys/module/nv_peer_mem/initstate", "live\n");
        assertEquals(Verdict.CAN_WORK, judge(t).verdict());
    }

    @Test
    void theProprietaryModuleWithoutPeermemCannot() throws Exception {
        FabricTree t = node();
        t.file("/proc/driver/nvidia/version", PROPRIETARY);
        t.file("/sys/module/nvidia/version", "550.54.14\n");
        Fabric.GpuDirectRdma g = judge(t);
        assertEquals(Verdict.CANNOT, g.verdict());
        assertEquals(2, g.evidence().size(), g.evidence().toString());
    }

    @Test
    void theOpenModuleOnANewKernelCanWorkThroughDmaBuf() throws Exception {
        FabricTree t = node();
        t.file("/proc/driver/nvidia/version", OPEN);
        t.file("/sys/module/nvidia/version", "570.86.15\n");
        t.file("/proc/sys/kernel/osrelease", "6.8.0-51-generic\n");
        Fabric.GpuDirectRdma g = judge(t);
        assertEquals(Verdict.CAN_WORK, g.verdict());
        assertEquals("dma-buf: NVIDIA's open kernel module 570.86.15 on Linux 6.8.0-51-generic exports GPU memory to the"
                + " RDMA driver (the application must ask for dma-buf)", g.evidence().get(1));
    }

    @Test
    void aRecordingKeepsTheDriverAndKernelFilesTheVerdictRestsOn() throws Exception {
        FabricTree t = node();
        t.file("/proc/driver/nvidia/version", OPEN);
        t.file("/sys/module/nvidia/version", "570.86.15\n");
        t.file("/proc/sys/kernel/osrelease", "6.8.0-51-generic\n");
        Path bundle = tmp.resolve("bundle");   // beside the host's sys/ and proc/, which is all detection reads
        io.gpudetect.source.RecordingSource recording = new io.gpudetect.source.RecordingSource(t.live(), bundle);
        Detector d = new Detector(List.of(new SysfsPciProbe()));
        Tables tables = Tables.shipped(() -> AkashGpus.absent("-"));

        Fabric.GpuDirectRdma live = d.detect(recording, tables).fabric().gpuDirectRdma();
        recording.finish("test", "test");
        Fabric.GpuDirectRdma replayed = d.detect(io.gpudetect.source.BundleSource.open(bundle), tables).fabric().gpuDirectRdma();

        assertEquals(Verdict.CAN_WORK, live.verdict());
        assertEquals(live, replayed);
    }

    @Test
    void theOpenModuleOnAKernelBefore512Cannot() throws Exception {
        FabricTree t = node();
        t.file("/proc/driver/nvidia/version", OPEN);
        t.file("/sys/module/nvidia/version", "535.104.05\n");
        t.file("/proc/sys/kernel/osrelease", "5.4.0-150-generic\n");
        assertEquals(Verdict.CANNOT, judge(t).verdict());
    }

    @Test
    void aDriverThatDoesNotSayWhichModuleItIsIsUnknown() throws Exception {
        assertEquals(Verdict.UNKNOWN, judge(node()).verdict());
    }

    @Test
    void amdGpusAloneAreNotJudged() throws Exception {
        FabricTree t = new FabricTree(tmp);
        t.function("pci0000:00/0000:00:01.0", "0000:01:00.0", "0x038000", "0x1002", "0x74a1", 0, "amdgpu");
        t.mlx5("pci0000:00/0000:00:02.0", "0000:02:00.0", 0, "mlx5_0", "InfiniBand", "4: ACTIVE", "400 Gb/sec (4X NDR)");
        t.file("/sys/module/nvidia_peermem/initstate", "live\n");
        assertEquals(Verdict.UNKNOWN, judge(t).verdict());
    }
}
