package io.gpudetect.probe.nvidia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.Partition;
import io.gpudetect.model.PciAddress;
import io.gpudetect.probe.ParsedOutput;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The text forms, one behaviour each; whole recordings are replayed in the test-fixtures module. */
class NvidiaTextParsersTest {

    @Test
    void indentedTextKeepsColonsInValuesAndNestsByIndentation() {
        IndentedText.Node root = IndentedText.parse("Timestamp    : Tue Jul 14 08:12:38 2026\nGPU 00000000:00:09.0\n"
                + "    PCI\n        Bus Id     : 00000000:00:09.0\n    Product Name   : NVIDIA L40S\n");

        assertEquals("Tue Jul 14 08:12:38 2026", root.child("Timestamp").orElseThrow().value());
        IndentedText.Node gpu = root.child("GPU 00000000:00:09.0").orElseThrow();
        assertNull(gpu.value());
        assertEquals("00000000:00:09.0", gpu.child("pci", "bus id").orElseThrow().value());
        assertEquals(4, gpu.child("PCI", "Bus Id").orElseThrow().line());
        assertEquals("NVIDIA L40S", gpu.child("Product Name").orElseThrow().value());
    }

    @Test
    void windowsKmdVersionWinsOverTheDeprecatedDriverVersion() {
        String q = "\n==============NVSMI LOG==============\n\n"
                + "Driver Version          : 610.62 [Deprecated; will be removed in CUDA 14.0. Use KMD Version instead]\n"
                + "CUDA Version            : 13.3 [Deprecated; will be removed in CUDA 14.0. Use CUDA UMD Version instead]\n"
                + "KMD Version             : 610.63\nCUDA UMD Version        : 13.4\n\n"
                + "GPU 00000000:0C:00.0\n    Product Name     : NVIDIA GeForce RTX 2080 SUPER\n    Processes    : None\n";
        Gpu gpu = NvidiaSmiQueryTextParser.parse(q, "nvidia-smi-q.txt").gpus().get(0);

        assertEquals("610.63", gpu.driverVersion());
        assertEquals("13.4", gpu.runtimeVersion());
        assertEquals(PciAddress.of("0000:0c:00.0"), gpu.pciAddress());
    }

    @Test
    void oldDriversDeprecatedLineAloneStillGivesTheVersion() {
        String q = "==============NVSMI LOG==============\nDriver Version : 610.62 [Deprecated; use KMD Version]\n"
                + "GPU 00000000:0C:00.0\n    Product Name     : X\n    Processes    : None\n";
        assertEquals("610.62", NvidiaSmiQueryTextParser.parse(q, "f").gpus().get(0).driverVersion());
    }

    @Test
    void anotherFormatInTheQTextFileIsAnErrorSayingWhatWasExpected() {
        ParsedOutput out = NvidiaSmiQueryTextParser.parse("<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n", "nvidia-smi-q.txt");

        assertTrue(out.gpus().isEmpty());
        Diagnostic d = out.diagnostics().get(0);
        assertEquals(Diagnostic.Severity.ERROR, d.severity());
        assertEquals("nvidia-smi-q.txt", d.file());
        assertTrue(d.message().contains("NVSMI LOG"), d.message());
    }

    @Test
    void listReadsGpusAndTheirMigDevicesInBothSpacings() {
        String l = "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-27b94a00-ed54-5c24-b1fd-1054085de32a)\n"
                + "  MIG 1g.5gb      Device  0: (UUID: MIG-6f5b7ff7-4b1d-5a40-9c4b-29c3ac3f0d8a)\n"
                + "  MIG 2g.10gb Device 1: (UUID: MIG-GPU-27b94a00-ed54-5c24-b1fd-1054085de32a/3/0)\n"
                + "GPU 1: Tesla K80 (UUID: GPU-5b2f3b3e-8c8e-4d3c-9f4c-2c2b0b1f8a11)\n";
        List<Gpu> gpus = NvidiaSmiListParser.parse(l, "nvidia-smi-L.txt").gpus();

        assertEquals(2, gpus.size());
        assertEquals(List.of("1g.5gb", "2g.10gb"), gpus.get(0).partitioning().instances().stream().map(Partition::profile).toList());
        assertEquals("MIG-GPU-27b94a00-ed54-5c24-b1fd-1054085de32a/3/0", gpus.get(0).partitioning().instances().get(1).uuid());
        assertNull(gpus.get(1).partitioning());
        assertEquals("Tesla K80", gpus.get(1).name());
    }

    @Test
    void listIgnoresMaskedUuids() {
        Gpu gpu = NvidiaSmiListParser.parse("GPU 0: NVIDIA L40S (UUID: GPU-00000000-0000-0000-0000-000000000000)\n", "f").gpus().get(0);
        assertNull(gpu.uuid());
    }

    @Test
    void csvColumnsAreFoundByNameInAnyOrderWithOrWithoutUnits() {
        String withUnits = "pci.bus_id, memory.total [MiB], name\n00000000:01:00.0, 24564 MiB, NVIDIA GeForce RTX 4090\n";
        String noUnits = "name, memory.total [MiB], pci.bus_id\nNVIDIA GeForce RTX 4090, 24564, 00000000:01:00.0\n";
        for (String csv : List.of(withUnits, noUnits)) {
            ParsedOutput out = NvidiaSmiCsvParser.parse(csv, "nvidia-smi-query.csv");
            assertTrue(out.diagnostics().isEmpty(), out.diagnostics().toString());
            Gpu gpu = out.gpus().get(0);
            assertEquals(24564L, gpu.memoryMiB());
            assertEquals("NVIDIA GeForce RTX 4090", gpu.name());
            assertEquals(PciAddress.of("0000:01:00.0"), gpu.pciAddress());
        }
    }

    @Test
    void csvDeviceIdInBothWidths() {
        String csv = "pci.device_id, pci.sub_device_id\n0x1E81, 0x40051458\n0x268410DE, 0x167C10DE\n";
        List<Gpu> gpus = NvidiaSmiCsvParser.parse(csv, "f").gpus();
        assertEquals("1e81", gpus.get(0).pciDeviceId());
        assertNull(gpus.get(0).pciVendorId());
        assertEquals("4005", gpus.get(0).pciSubsystemDeviceId());
        assertEquals("2684", gpus.get(1).pciDeviceId());
        assertEquals("10de", gpus.get(1).pciVendorId());
    }

    @Test
    void csvWithoutHeaderReadsOnlySelfDescribingValuesAndSaysSo() {
        ParsedOutput out = NvidiaSmiCsvParser.parse("Tesla T4, 00000000:00:1E.0, 15360\n", "nvidia-smi-query.csv");

        Gpu gpu = out.gpus().get(0);
        assertEquals(PciAddress.of("0000:00:1e.0"), gpu.pciAddress());
        assertEquals("Tesla T4", gpu.name(), "an NVIDIA product name says what it is");
        assertNull(gpu.memoryMiB(), "a bare number could be any field: not read");
        assertEquals(Diagnostic.Severity.WARNING, out.diagnostics().get(0).severity());
        assertTrue(out.diagnostics().get(0).message().contains("column 1: name, column 2: pci.bus_id"),
                out.diagnostics().get(0).message());
    }

    @Test
    void csvAGpuThatNeedsAResetIsLost() {
        Gpu gpu = NvidiaSmiCsvParser.parse("name, pci.bus_id, memory.total [MiB]\n[GPU requires reset], 00000000:3B:00.0, [GPU requires reset]\n", "f")
                .gpus().get(0);
        assertEquals(Health.Status.LOST, gpu.health().status());
        assertNull(gpu.name());
    }

    @Test
    void tableReadsMigDevicesIntoTheirGpu() {
        String table = String.join("\n",
                "| NVIDIA-SMI 510.47.03    Driver Version: 510.47.03    CUDA Version: 11.6     |",
                "|===============================+======================+======================|",
                "|   0  NVIDIA A100-SXM...  On   | 00000000:00:04.0 Off |                   On |",
                "| N/A   29C    P0    43W / 400W |      0MiB / 40536MiB |     N/A      Default |",
                "|                               |                      |              Enabled |",
                "+-------------------------------+----------------------+----------------------+",
                "",
                "| MIG devices:                                                                |",
                "+------------------+----------------------+-----------+-----------------------+",
                "|==================+======================+===========+=======================|",
                "|  0    1   0   0  |      0MiB /  9856MiB | 14      0 |  1   0    0    0    0 |",
                "|                  |      0MiB / 16383MiB |           |                       |",
                "+------------------+----------------------+-----------+-----------------------+",
                "|  0    2   0   1  |      0MiB /  9856MiB | 14      0 |  1   0    0    0    0 |",
                "+------------------+----------------------+-----------+-----------------------+", "");
        ParsedOutput out = NvidiaSmiTableParser.parse(table, "nvidia-smi.txt");

        Gpu gpu = out.gpus().get(0);
        assertEquals(40536L, gpu.memoryMiB());
        assertEquals(400.0, gpu.powerLimitWatts());
        assertEquals(List.of(new Partition(null, 1, 0, 9856L, 14, null), new Partition(null, 2, 0, 9856L, 14, null)),
                gpu.partitioning().instances());
        assertEquals("NVIDIA A100-SXM...", gpu.name());
        assertEquals(3, out.diagnostics().get(0).line());
    }
    @Test
    void tableOfACardWithoutPowerReadingsHasNoPowerCapAndNoWarning() {
        String table = String.join("\n",
                "| NVIDIA-SMI 470.256.02   Driver Version: 470.256.02   CUDA Version: 11.4     |",
                "|===============================+======================+======================|",
                "|   0  NVIDIA GeForce ...  Off  | 00000000:08:00.0 N/A |                  N/A |",
                "| 37%   35C    P0    N/A /  N/A |      0MiB /  2000MiB |     N/A      Default |",
                "+-------------------------------+----------------------+----------------------+", "");
        ParsedOutput out = NvidiaSmiTableParser.parse(table, "nvidia-smi.txt");
        assertNull(out.gpus().get(0).powerLimitWatts());
        assertEquals(2000L, out.gpus().get(0).memoryMiB());
        assertTrue(out.diagnostics().stream().noneMatch(d -> d.severity() == Diagnostic.Severity.WARNING), out.diagnostics().toString());
    }

    @Test
    void tablePrintedSeveralTimesCountsEachGpuOnce() {
        String sample = String.join("\n",
                "Tue Jul 14 09:00:26 2026",
                "+-----------------------------------------------------------------------------------------+",
                "| NVIDIA-SMI 590.48.01              Driver Version: 590.48.01      CUDA Version: 13.1     |",
                "|=========================================+========================+======================|",
                "|   0  NVIDIA H200                    On  |   00000000:83:00.0 Off |                    0 |",
                "| N/A   28C    P0             77W /  700W |       0MiB / 143771MiB |      0%      Default |",
                "+-----------------------------------------+------------------------+----------------------+",
                "|   1  NVIDIA H200                    On  |   00000000:84:00.0 Off |                    0 |",
                "| N/A   28C    P0             77W /  700W |       0MiB / 143771MiB |      0%      Default |",
                "+-----------------------------------------+------------------------+----------------------+", "");
        ParsedOutput out = NvidiaSmiTableParser.parse(sample + "\n" + sample + "\n" + sample, "nvidia-smi.txt");
        assertEquals(2, out.gpus().size(), "nvidia-smi -l 1 prints the same GPUs once per sample");
    }
    @Test
    void listPrintedSeveralTimesCountsEachGpuOnceAndAListOfTwoHostsIsRefused() {
        String sample = "GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)\n"
                + "GPU 1: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)\n";
        ParsedOutput twice = NvidiaSmiListParser.parse(sample + sample, "nvidia-smi-L.txt");
        assertEquals(2, twice.gpus().size());
        assertTrue(twice.diagnostics().get(0).message().contains("more than once"), twice.diagnostics().toString());

        ParsedOutput twoHosts = NvidiaSmiListParser.parse(sample + "GPU 0: NVIDIA L40S (UUID: GPU-11111111-2222-3333-4444-555555555555)\n",
                "nvidia-smi-L.txt");
        assertTrue(twoHosts.gpus().isEmpty());
        assertEquals(Diagnostic.Severity.ERROR, twoHosts.diagnostics().get(0).severity());
        assertEquals(Integer.valueOf(3), twoHosts.diagnostics().get(0).line());
    }

    @Test
    void qTextWithRepeatedSamplesCountsEachGpuOnce() {
        String sample = "\n==============NVSMI LOG==============\n\nDriver Version : 590.48.01\nAttached GPUs : 1\n"
                + "GPU 00000000:83:00.0\n    Product Name : NVIDIA H200\n    Processes : None\n";
        ParsedOutput out = NvidiaSmiQueryTextParser.parse(sample + sample + sample, "nvidia-smi-q.txt");
        assertEquals(1, out.gpus().size());
        assertTrue(out.diagnostics().stream().anyMatch(d -> d.message().startsWith("2 GPU sections repeat")), out.diagnostics().toString());
        assertTrue(out.diagnostics().stream().noneMatch(d -> d.message().contains("Attached GPUs says")), out.diagnostics().toString());
    }

    /**
     * Issue 39, class 3: the table cut down to its MIG devices (and processes), with the banner: each GPU index the
     * instances name is one GPU with at least their memory, and a warning says the rest is unknown. The processes'
     * rule of '=' is never read as the GPU table's.
     */
    @Test
    void aTableCutToItsMigDevicesGivesOneGpuPerIndexWithItsInstancesMemory() {
        String table = String.join("\n",
                "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |",
                "+---------------------------------------------------------------------------------------+",
                "| MIG devices:                                                                          |",
                "+------------------+--------------------------------+-----------+-----------------------+",
                "| GPU  GI  CI  MIG |                   Memory-Usage |        Vol|      Shared           |",
                "|      ID  ID  Dev |                     BAR1-Usage | SM     Unc| CE ENC DEC OFA JPG    |",
                "|                  |                                |        ECC|                       |",
                "|==================+================================+===========+=======================|",
                "|  0    3   0   0  |              13MiB / 19968MiB  | 42      0 |  2   0    2    0    2 |",
                "|                  |               0MiB / 32767MiB  |           |                       |",
                "+------------------+--------------------------------+-----------+-----------------------+",
                "|  0    4   0   1  |              13MiB / 19968MiB  | 42      0 |  2   0    2    0    2 |",
                "|                  |               0MiB / 32767MiB  |           |                       |",
                "+------------------+--------------------------------+-----------+-----------------------+",
                "|  3    1   0   0  |              13MiB /  9728MiB  | 14      0 |  1   0    0    0    0 |",
                "|                  |               0MiB / 16383MiB  |           |                       |",
                "+------------------+--------------------------------+-----------+-----------------------+",
                "",
                "+---------------------------------------------------------------------------------------+",
                "| Processes:                                                                            |",
                "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |",
                "|        ID   ID                                                             Usage      |",
                "|=======================================================================================|",
                "|    0    3    0       4242      C   python                                     5000MiB |",
                "+---------------------------------------------------------------------------------------+",
                "");
        ParsedOutput out = NvidiaSmiTableParser.parse(table, "nvidia-smi.txt");
        assertEquals(2, out.gpus().size(), out.toString());
        Gpu first = out.gpus().get(0);
        assertEquals(39936L, first.memoryMiB(), "at least its two instances' 19968 MiB");
        assertEquals("535.104.05", first.driverVersion());
        assertEquals(Boolean.TRUE, first.partitioning().enabled());
        assertEquals(2, first.partitioning().instances().size());
        assertEquals(9728L, out.gpus().get(1).memoryMiB());
        assertNull(first.name());
        List<Diagnostic> warnings = out.diagnostics().stream().filter(d -> d.severity() == Diagnostic.Severity.WARNING).toList();
        assertEquals(2, warnings.size(), out.diagnostics().toString());
        assertTrue(warnings.get(0).message().contains("GPU 0") && warnings.get(0).message().contains("unknown")
                && warnings.get(0).message().contains("at least the 39936 MiB"), warnings.get(0).message());
    }
}
