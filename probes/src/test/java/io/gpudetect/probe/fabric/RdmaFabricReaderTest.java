package io.gpudetect.probe.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.inventory.Detector;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Fabric;
import io.gpudetect.model.Fabric.GpuDirectRdma.Verdict;
import io.gpudetect.model.Fabric.Kind;
import io.gpudetect.model.Fabric.PcieDistance;
import io.gpudetect.probe.pci.SysfsPciProbe;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.RecordingSource;
import io.gpudetect.source.Source;
import io.gpudetect.tables.AkashGpus;
import io.gpudetect.tables.Tables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The RDMA fabric read from a fake {@code /sys} with mlx5 InfiniBand and RoCE devices at chosen PCIe places. */
class RdmaFabricReaderTest {

    private static final Tables TABLES = Tables.shipped(() -> AkashGpus.absent("not in this test"));

    @TempDir
    Path tmp;

    private static Inventory detect(Source source) {
        return new Detector(List.of(new SysfsPciProbe())).detect(source, TABLES);
    }

    private static Map<String, String> nearest(Fabric f) {
        Map<String, String> m = new LinkedHashMap<>();
        for (Fabric.NearestNic n : f.nearestNics()) {
            m.put(n.gpuPciAddress(), n.device() + " " + n.distance());
        }
        return m;
    }

    @Test
    void eachDeviceHasItsPortsFunctionNumaNodeAndRoot() throws Exception {
        new FabricTree(tmp).twoSockets();

        Fabric f = detect(new FabricTree(tmp).live()).fabric();

        assertEquals(List.of("mlx5_0", "mlx5_1", "mlx5_2", "rxe0"), f.devices().stream().map(Fabric.RdmaDevice::name).toList());
        Fabric.RdmaDevice ib = f.devices().get(0);
        assertEquals(new Fabric.RdmaDevice("mlx5_0", "0000:19:00.0", "mlx5_core", 0, "pci0000:15",
                List.of(new Fabric.RdmaPort(1, Kind.INFINIBAND, "InfiniBand", "active", "linkup", 400.0, "4X NDR"))), ib);
        Fabric.RdmaDevice roce = f.devices().get(1);
        assertEquals(Kind.ROCE, roce.ports().get(0).kind());
        assertEquals(200.0, roce.activeRateGbps());
        Fabric.RdmaDevice down = f.devices().get(2);
        assertEquals("down", down.ports().get(0).state());
        assertEquals("disabled", down.ports().get(0).physState());
        assertEquals(1, down.numaNode());
        assertEquals("pci0000:b0", down.pcieRoot());
        assertNull(down.activeRateGbps(), "a port that is down offers no rate");
        Fabric.RdmaDevice soft = f.devices().get(3);
        assertNull(soft.pciAddress(), "software RoCE sits on no PCI function");
        assertEquals(List.of(Kind.INFINIBAND, Kind.ROCE), f.activeKinds(), "rxe0 is no fabric to offer");
        assertEquals(400.0, f.maxActiveRateGbps());
    }

    @Test
    void eachGpuHasItsNearestActiveNicInNvidiaSmiTopoWords() throws Exception {
        new FabricTree(tmp).twoSockets();

        Fabric f = detect(new FabricTree(tmp).live()).fabric();

        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("0000:18:00.0", "mlx5_0 PIX");    // one switch
        expected.put("0000:1a:00.0", "mlx5_0 PHB");    // another root port of the same root complex; the faster of two
        expected.put("0000:24:00.0", "mlx5_1 PXB");    // two switches down, no host bridge crossed
        expected.put("0000:41:00.0", "mlx5_0 NODE");   // another root complex on the same NUMA node
        expected.put("0000:98:00.0", "mlx5_0 SYS");    // the NIC on its own node is down: the nearest active one
        assertEquals(expected, nearest(f));
    }

    @Test
    void distancesFollowNvidiaSmiTopo() {
        List<String> gpu = PcieAffinity.place("../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0");
        assertEquals(List.of("pci0000:15", "0000:15:01.0", "0000:16:00.0", "0000:17:00.0", "0000:18:00.0"), gpu);
        assertEquals(PcieDistance.PIX, PcieAffinity.distance(gpu, 0,
                PcieAffinity.place("/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0/infiniband/mlx5_0"), 0));
        assertEquals(PcieDistance.PHB, PcieAffinity.distance(gpu, 0, PcieAffinity.place("/sys/devices/pci0000:15/0000:15:02.0/0000:1a:00.0"), 0));
        assertEquals(PcieDistance.NODE, PcieAffinity.distance(gpu, 0, PcieAffinity.place("/sys/devices/pci0000:40/0000:40:01.0/0000:41:00.0"), 0));
        assertEquals(PcieDistance.SYS, PcieAffinity.distance(gpu, 0, PcieAffinity.place("/sys/devices/pci0000:97/0000:97:01.0/0000:98:00.0"), 1));
        assertEquals(PcieDistance.NODE, PcieAffinity.distance(gpu, null, PcieAffinity.place("/sys/devices/pci0000:40/0000:40:01.0/0000:41:00.0"), null),
                "a host without NUMA is one node");
        assertNull(PcieAffinity.distance(gpu, 0, PcieAffinity.place("/sys/devices/pci0000:40/0000:40:01.0/0000:41:00.0"), null),
                "one side's node unknown: NODE or SYS cannot be told");
        assertEquals(PcieDistance.PXB, PcieAffinity.distance(gpu, 0, PcieAffinity.place(
                "/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:30:00.0/0000:31:00.0/0000:32:00.0"), 0),
                "the NIC below a second switch");
        assertEquals(List.of(), PcieAffinity.place("/sys/devices/virtual/infiniband/rxe0"));
        assertNull(PcieAffinity.distance(gpu, 0, List.of(), 0));
    }

    @Test
    void aRecordingReplaysToTheSameFabric() throws Exception {
        Path host = tmp.resolve("host");
        new FabricTree(host).twoSockets();
        new FabricTree(host).file("/sys/module/nvidia_peermem/initstate", "live\n");
        Path bundle = tmp.resolve("bundle");
        RecordingSource recording = new RecordingSource(new FabricTree(host).live(), bundle);

        Inventory live = detect(recording);
        List<String> problems = recording.finish("test", "test");
        Inventory replayed = detect(BundleSource.open(bundle));

        assertEquals(List.of(), problems);
        assertEquals(5, live.fabric().nearestNics().size());
        assertEquals(live.fabric(), replayed.fabric());
        assertEquals(Verdict.CAN_WORK, replayed.fabric().gpuDirectRdma().verdict());
    }

    @Test
    void aBundleWithoutTheFolderDoesNotKnowTheFabricWhereALiveHostWithoutItHasNone() throws Exception {
        FabricTree tree = new FabricTree(tmp.resolve("host"));
        tree.nvidiaGpu("pci0000:00/0000:00:01.0", "0000:01:00.0", -1);
        Path bundle = tmp.resolve("bundle");
        RecordingSource recording = new RecordingSource(tree.live(), bundle);

        Fabric live = detect(recording).fabric();
        recording.finish("test", "test");
        Inventory replayed = detect(BundleSource.open(bundle));

        assertEquals(List.of(), live.devices());
        assertEquals(Verdict.CANNOT, live.gpuDirectRdma().verdict());
        assertEquals(List.of("no RDMA device: /sys/class/infiniband lists none"), live.gpuDirectRdma().evidence());
        assertNull(replayed.fabric(), "no RDMA device, or recorded before the fabric was read: not known");
        assertEquals(1, replayed.gpus().size());
    }

    @Test
    void aRateOrStateThatIsNoneIsAWarningNamingTheFile() throws Exception {
        FabricTree tree = new FabricTree(tmp);
        Path ib = tree.mlx5("pci0000:00/0000:00:02.0", "0000:02:00.0", -1, "mlx5_0", "InfiniBand", "ACTIVE", "fast");

        Inventory inv = detect(tree.live());

        Fabric.RdmaPort port = inv.fabric().devices().get(0).ports().get(0);
        assertNull(port.rateGbps());
        assertNull(port.state());
        List<String> files = inv.diagnostics().stream().filter(d -> d.severity() == Diagnostic.Severity.WARNING)
                .map(Diagnostic::file).toList();
        assertTrue(files.contains("/sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0/infiniband/mlx5_0/ports/1/rate"), files.toString());
        assertTrue(files.contains("/sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0/infiniband/mlx5_0/ports/1/state"), files.toString());
        assertTrue(Files.exists(ib));
    }

    @Test
    void theDevicesOfSriovVirtualFunctionsAreLeftOutAndCounted() throws Exception {
        FabricTree tree = new FabricTree(tmp);
        tree.mlx5("pci0000:00/0000:00:02.0", "0000:02:00.0", -1, "mlx5_0", "InfiniBand", "4: ACTIVE", "400 Gb/sec (4X NDR)");
        for (int vf = 1; vf <= 2; vf++) {
            Path ib = tree.mlx5("pci0000:00/0000:00:02.0", "0000:02:00." + vf, -1, "mlx5_" + vf, "InfiniBand", "4: ACTIVE",
                    "400 Gb/sec (4X NDR)");
            Files.createSymbolicLink(ib.getParent().getParent().resolve("physfn"), Path.of("../0000:02:00.0"));
        }

        Inventory inv = detect(tree.live());

        assertEquals(List.of("mlx5_0"), inv.fabric().devices().stream().map(Fabric.RdmaDevice::name).toList());
        assertTrue(inv.diagnostics().stream().anyMatch(d -> d.message().equals(
                "2 RDMA devices of SR-IOV virtual functions are left out: their physical functions describe the fabric")),
                inv.diagnostics().toString());
    }

    @Test
    void anIwarpNicIsNoRoce() throws Exception {
        FabricTree tree = new FabricTree(tmp);
        Path irdma = tree.mlx5("pci0000:00/0000:00:02.0", "0000:02:00.0", -1, "irdma0", "Ethernet", "4: ACTIVE",
                "100 Gb/sec (4X EDR)");
        Files.writeString(irdma.resolve("node_type"), "4: RNIC\n");
        assertEquals(List.of(Kind.IWARP), detect(tree.live()).fabric().activeKinds());
        assertEquals(Kind.IWARP, RdmaFabricReader.kind("Ethernet", true));
        assertEquals(Kind.ROCE, RdmaFabricReader.kind("Ethernet", false));
        assertEquals(Kind.OTHER, RdmaFabricReader.kind("Unspecified", false));
        assertEquals("/sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0",
                RdmaFabricReader.functionFolder("/sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0/bnxt_en.rdma.0/infiniband/bnxt_re0"),
                "past the auxiliary device a driver puts between");
    }
}
