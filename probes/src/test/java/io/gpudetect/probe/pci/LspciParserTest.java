package io.gpudetect.probe.pci;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.Fixtures;
import io.gpudetect.probe.ParsedOutput;
import java.util.List;
import org.junit.jupiter.api.Test;

class LspciParserTest {

    @Test
    void nnListingOfAnApuFindsOnlyTheGpuAndMarksItIntegrated() {
        List<Gpu> gpus = LspciParser.parse(
                Fixtures.host("lspci_ryzen-7-5700u-apu_lucienne_lspci-nn", "lspci.txt"), "lspci.txt").gpus();

        assertEquals(1, gpus.size());
        Gpu gpu = gpus.get(0);
        assertEquals("0000:05:00.0", gpu.pciAddress().toString());
        assertEquals("1002", gpu.pciVendorId());
        assertEquals("164c", gpu.pciDeviceId());
        assertEquals("c1", gpu.pciRevision());
        assertEquals("Lucienne", gpu.name());
        assertEquals(Boolean.TRUE, gpu.sharedMemory(), "05:00.2 is AMD's CPU-side security processor [1022]");
    }

    @Test
    void vvWithoutIdsGivesNamesDriverAndAddress() {
        List<Gpu> gpus = LspciParser.parse(
                Fixtures.host("lspci_2x-geforce-rtx-4090_lspci-vv", "lspci.txt"), "lspci.txt").gpus();

        assertEquals(2, gpus.size());
        assertEquals("GeForce RTX 4090", gpus.get(1).name());
        assertEquals("0000:03:00.0", gpus.get(1).pciAddress().toString());
        assertEquals("nvidia", gpus.get(1).kernelDriver());
        assertEquals("10de", gpus.get(1).pciVendorId(), "from the vendor name");
        assertNull(gpus.get(1).pciDeviceId());
        assertNull(gpus.get(1).memoryMiB(), "a region size is a BAR, not VRAM");
    }

    @Test
    void domainsAcceleratorsAndBmcAdapters() {
        String text = String.join("\n",
                "0000:00:02.0 Processing accelerators [1200]: Intel Corporation Meteor Lake NPU [8086:7d1d] (rev 04)",
                "0002:03:00.0 Processing accelerators [1200]: Advanced Micro Devices, Inc. [AMD/ATI] Aqua Vanjaram [Instinct MI300X] [1002:74a1]",
                "0000:04:00.0 VGA compatible controller: ASPEED Technology, Inc. ASPEED Graphics Family (rev 52)",
                "0000:05:00.0 Ethernet controller [0200]: Intel Corporation Ethernet Controller I226-V [8086:125c] (rev 04)");

        List<Gpu> gpus = LspciParser.parse(text, "lspci.txt").gpus();

        assertEquals(2, gpus.size(), "the Intel NPU and the NIC are no GPUs");
        assertEquals("0002:03:00.0", gpus.get(0).pciAddress().toString());
        assertEquals("Instinct MI300X", gpus.get(0).name());
        assertEquals("74a1", gpus.get(0).pciDeviceId());
        assertEquals("1a03", gpus.get(1).pciVendorId(), "ASPEED by name, so the normaliser marks it emulated");
    }

    @Test
    void anAcceleratorIsAGpuByItsVendorsNameWhenLspciPrintsNoIds() {
        String text = String.join("\n",
                "83:00.0 Processing accelerators: Advanced Micro Devices, Inc. [AMD/ATI] Aqua Vanjaram [Instinct MI300X] (rev 00)",
                "00:0b.0 Processing accelerators: Intel Corporation Meteor Lake NPU (rev 04)");
        List<Gpu> gpus = LspciParser.parse(text, "lspci.txt").gpus();
        assertEquals(1, gpus.size(), "the MI300X; an Intel accelerator is an NPU");
        assertEquals("Instinct MI300X", gpus.get(0).name());
    }

    @Test
    void aDeviceLspciCouldNotNameKeepsItsId() {
        String text = "0000:01:00.0 Processing accelerators: Advanced Micro Devices, Inc. [AMD/ATI] Device 74a0\n"
                + "0000:01:00.1 USB controller: Advanced Micro Devices, Inc. [AMD] Device 14df\n";
        List<Gpu> gpus = LspciParser.parse(text, "lspci.txt").gpus();
        assertEquals(1, gpus.size());
        assertEquals("1002", gpus.get(0).pciVendorId());
        assertEquals("74a0", gpus.get(0).pciDeviceId(), "the id is in the text; the normaliser names it");
    }

    @Test
    void vmmRecords() {
        String text = String.join("\n",
                "Slot:\t0000:41:00.0",
                "Class:\t3D controller [0302]",
                "Vendor:\tNVIDIA Corporation [10de]",
                "Device:\tGH100 [H100 PCIe] [2331]",
                "SVendor:\tNVIDIA Corporation [10de]",
                "SDevice:\tDevice [1626]",
                "Rev:\ta1",
                "Driver:\tvfio-pci",
                "",
                "Slot:\t0000:42:00.0",
                "Class:\tNon-Volatile memory controller [0108]",
                "Vendor:\tSamsung Electronics Co Ltd [144d]",
                "Device:\tNVMe SSD Controller PM9A1/PM9A3/980PRO [a80a]",
                "");

        List<Gpu> gpus = LspciParser.parse(text, "lspci.txt").gpus();

        assertEquals(1, gpus.size());
        Gpu gpu = gpus.get(0);
        assertEquals(Vendor.NVIDIA, gpu.vendor());
        assertEquals("2331", gpu.pciDeviceId());
        assertEquals("1626", gpu.pciSubsystemDeviceId());
        assertEquals("H100 PCIe", gpu.name());
        assertEquals("vfio-pci", gpu.kernelDriver());
        assertEquals("a1", gpu.pciRevision());
    }

    @Test
    void textWithoutFunctionsIsAnError() {
        ParsedOutput out = LspciParser.parse("pcilib: Cannot open /proc/bus/pci\n", "lspci.txt");
        assertTrue(out.gpus().isEmpty());
        Diagnostic d = out.diagnostics().get(0);
        assertEquals(Diagnostic.Severity.ERROR, d.severity());
        assertEquals("lspci.txt", d.file());
    }
}
