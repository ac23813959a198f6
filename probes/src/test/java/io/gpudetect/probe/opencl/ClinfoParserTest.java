package io.gpudetect.probe.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.Fixtures;
import io.gpudetect.probe.ParsedOutput;
import org.junit.jupiter.api.Test;

class ClinfoParserTest {

    @Test
    void intelRuntimeCpuDeviceIsNotAGpu() {
        ParsedOutput out = ClinfoParser.parse(
                Fixtures.host("clinfo_intel-hd-graphics-haswell_intel-opencl-1.2", "clinfo.txt"), "clinfo.txt");

        assertEquals(1, out.gpus().size(), "HD Graphics only; the Core i5 CPU device is skipped");
        Gpu gpu = out.gpus().get(0);
        assertEquals(Vendor.INTEL, gpu.vendor());
        assertEquals("Intel(R) HD Graphics", gpu.name());
        assertEquals(Boolean.TRUE, gpu.sharedMemory());
        assertEquals(20, gpu.computeUnits());
    }

    @Test
    void nvidiaTopologyGivesTheAddressAndUuidToMergeBy() {
        Gpu gpu = ClinfoParser.parse(
                Fixtures.host("clinfo_nvidia-geforce-gtx-1650_cuda-12.0", "clinfo.txt"), "clinfo.txt").gpus().get(0);

        assertEquals("0000:01:00.0", gpu.pciAddress().toString());
        assertEquals("GPU-ed85a365-2e9c-0d6c-3642-f61fbd9d77da", gpu.uuid());
        assertEquals(3903L, gpu.memoryMiB());
        assertNull(gpu.sharedMemory());
    }

    @Test
    void maliIsAnArmGpuAndPoclIsSkipped() {
        ParsedOutput out = ClinfoParser.parse(
                Fixtures.host("clinfo_arm-mali-lodx-r0p0_orangepi5-rk3588_plus-pocl", "clinfo.txt"), "clinfo.txt");

        assertEquals(1, out.gpus().size());
        assertEquals(Vendor.ARM, out.gpus().get(0).vendor(), "Device Vendor ARM");
        assertNull(out.gpus().get(0).pciVendorId(), "0xa8670000 is not a PCI vendor id");
        assertTrue(out.diagnostics().isEmpty(), out.diagnostics().toString());
    }

    @Test
    void missingHeaderIsAnErrorAndGarbageMemoryAWarningWithLine() {
        ParsedOutput none = ClinfoParser.parse("\u0001\u0002garbage", "clinfo.txt");
        assertEquals(Diagnostic.Severity.ERROR, none.diagnostics().get(0).severity());
        assertTrue(none.diagnostics().get(0).message().contains("Number of platforms"));

        String text = String.join("\n",
                "Number of platforms                               1",
                "  Platform Name                                   Foo",
                "Number of devices                                 2",
                "  Device Name                                     Foo GPU",
                "  Device Type                                     GPU",
                "  Global memory size                              plenty",
                "  Device Name                                     Typeless");
        ParsedOutput out = ClinfoParser.parse(text, "clinfo.txt");
        assertEquals(1, out.gpus().size());
        var warnings = Fixtures.lines(out.diagnostics(), Diagnostic.Severity.WARNING);
        assertEquals(2, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("clinfo.txt:4") && warnings.get(0).contains("'plenty'"), warnings.get(0));
        assertTrue(warnings.get(1).contains("clinfo.txt:7") && warnings.get(1).contains("no Device Type"), warnings.get(1));
    }
}
