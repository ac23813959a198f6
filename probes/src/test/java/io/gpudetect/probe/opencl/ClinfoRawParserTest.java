package io.gpudetect.probe.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.ParsedOutput;
import org.junit.jupiter.api.Test;

class ClinfoRawParserTest {

    @Test
    void nvidiaBusSlotAndDomainBecomeTheAddress() {
        String text = String.join("\n",
                "Number of platforms                               1",
                "[NV/*]    CL_PLATFORM_NAME                          NVIDIA CUDA",
                "[NV/0]    CL_DEVICE_NAME                            NVIDIA A100 80GB PCIe",
                "[NV/0]    CL_DEVICE_VENDOR_ID                       0x10de",
                "[NV/0]    CL_DEVICE_TYPE                            CL_DEVICE_TYPE_GPU",
                "[NV/0]    CL_DEVICE_PCI_BUS_ID_NV                   193",
                "[NV/0]    CL_DEVICE_PCI_SLOT_ID_NV                  9",
                "[NV/0]    CL_DEVICE_PCI_DOMAIN_ID_NV                1",
                "[POCL/0]  CL_DEVICE_NAME                            cpu-haswell",
                "[POCL/0]  CL_DEVICE_TYPE                            CL_DEVICE_TYPE_CPU");

        ParsedOutput out = ClinfoRawParser.parse(text, "clinfo-raw.txt");

        assertEquals(1, out.gpus().size());
        assertEquals("0001:c1:01.1", out.gpus().get(0).pciAddress().toString(), "slot 9 = device 1, function 1");
    }

    @Test
    void amdBoardNameAndTopology() {
        String text = String.join("\n",
                "[AMD/0]   CL_DEVICE_NAME                            gfx1031",
                "[AMD/0]   CL_DEVICE_TYPE                            CL_DEVICE_TYPE_GPU",
                "[AMD/0]   CL_DEVICE_VENDOR_ID                       0x1002",
                "[AMD/0]   CL_DEVICE_BOARD_NAME_AMD                  AMD Radeon RX 6700 XT",
                "[AMD/0]   CL_DEVICE_TOPOLOGY_AMD                    PCI-E, 67:00.0");

        Gpu gpu = ClinfoRawParser.parse(text, "clinfo-raw.txt").gpus().get(0);

        assertEquals(Vendor.AMD, gpu.vendor());
        assertEquals("AMD Radeon RX 6700 XT", gpu.name());
        assertEquals("gfx1031", gpu.architecture());
        assertEquals("0000:67:00.0", gpu.pciAddress().toString());
    }

    @Test
    void longFormGivenToTheRawParserIsAnError() {
        ParsedOutput out = ClinfoRawParser.parse("Number of platforms  1\n  Platform Name   X\n", "clinfo-raw.txt");
        assertTrue(out.gpus().isEmpty());
        assertEquals(Diagnostic.Severity.ERROR, out.diagnostics().get(0).severity());
        assertTrue(out.diagnostics().get(0).message().contains("clinfo --raw"));
    }
}
