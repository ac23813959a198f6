package io.gpudetect.probe.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 28, kind 7: one iGPU that Mesa's rusticl and AMD's runtime both list is one GPU. AMD's runtime prints a
 * bus of 0x80 and above sign-extended ({@code 0000:ffffffc3:00.0}); input written here in clinfo's shape.
 */
class TwoPlatformsTest {

    private static final String CLINFO = """
            Number of platforms                               2
              Platform Name                                   rusticl
              Platform Vendor                                 Mesa/X.org
              Platform Version                                OpenCL 3.0

              Platform Name                                   AMD Accelerated Parallel Processing
              Platform Vendor                                 Advanced Micro Devices, Inc.
              Platform Version                                OpenCL 2.1 AMD-APP (3614.0)

              Platform Name                                   rusticl
            Number of devices                                 1
              Device Name                                     AMD Radeon Graphics (radeonsi, gfx1150, LLVM 19.1.1, DRM 3.61, 6.12.9)
              Device Vendor                                   AMD
              Device Vendor ID                                0x1002
              Driver Version                                  24.3.3
              Device Type                                     GPU
              Device PCI bus info (KHR)                       PCI-E, 0000:c4:00.0
              Max compute units                               16
              Global memory size                              4294967296 (4GiB)
              Unified memory for Host and Device              No

              Platform Name                                   AMD Accelerated Parallel Processing
            Number of devices                                 1
              Device Name                                     gfx1150
              Device Vendor                                   Advanced Micro Devices, Inc.
              Device Vendor ID                                0x1002
              Driver Version                                  3614.0 (HSA1.1,LC)
              Device Type                                     GPU
              Device Board Name (AMD)                         AMD Radeon 890M Graphics
              Device PCI-e ID (AMD)                           0x150e
              Device Topology (AMD)                           PCI-E, 0000:ffffffc4:00.0
              Max compute units                               8
              Global memory size                              16911433728 (15.75GiB)
              Unified memory for Host and Device              Yes
            """;

    @Test
    void oneIgpuOnTwoPlatformsIsOneGpuAsItsVendorsRuntimeDescribesIt() {
        List<Gpu> gpus = ClinfoParser.parse(CLINFO, "clinfo.txt").gpus();
        assertEquals(1, gpus.size(), gpus.toString());
        Gpu gpu = gpus.get(0);
        assertEquals("0000:c4:00.0", gpu.pciAddress().toString());
        assertEquals("AMD Radeon 890M Graphics", gpu.name());
        assertEquals("150e", gpu.pciDeviceId());
        assertEquals(Boolean.TRUE, gpu.sharedMemory(), "AMD's runtime says shared; rusticl's 4 GiB is the carve-out");
    }

    @Test
    void aSignExtendedBusIsItsLowByte() {
        assertEquals("0000:c3:00.0", PciAddress.parse("0000:ffffffc3:00.0").orElseThrow().toString());
        assertEquals("0000:80:01.1", PciAddress.parse("0000:ffffff80:01.1").orElseThrow().toString());
        assertEquals(true, PciAddress.parse("0000:0fffffc3:00.0").isEmpty(), "only a sign extension, not any 8 digits");
    }
}
