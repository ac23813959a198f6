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
    /**
     * AMD's OpenCL runtimes print which runtime answered after the version ("1598.5 (VM)" from the old VM back end,
     * "2841.4 (PAL,HSAIL)", "3188.4 (PAL,LC)" from PAL with the HSAIL or LC compiler): the driver version is the number,
     * in both clinfo forms. A version without a runtime in parentheses stays as printed ("1.2 1.0", Apple's).
     */
    @Test
    void aRuntimeKindInParenthesesIsNotPartOfTheDriverVersion() {
        String[][] printed = {{"1598.5 (VM)", "1598.5"}, {"2841.4 (PAL,HSAIL)", "2841.4"}, {"3188.4 (PAL,LC)", "3188.4"},
                {"3188.4 (PAL, LC)", "3188.4"}, {"3614.0 (HSA1.1,LC)", "3614.0"}, {"1.2 1.0", "1.2 1.0"}, {"23.2.1", "23.2.1"}};
        for (String[] p : printed) {
            String human = String.join("\n",
                    "Number of platforms                               1",
                    "  Platform Name                                   AMD Accelerated Parallel Processing",
                    "  Platform Vendor                                 Advanced Micro Devices, Inc.",
                    "Number of devices                                 1",
                    "  Device Name                                     gfx906",
                    "  Device Vendor                                   Advanced Micro Devices, Inc.",
                    "  Device Vendor ID                                0x1002",
                    "  Driver Version                                  " + p[0],
                    "  Device Type                                     GPU");
            assertEquals(p[1], ClinfoParser.parse(human, "clinfo.txt").gpus().get(0).driverVersion(), "long form: " + p[0]);
            String raw = String.join("\n",
                    "Number of platforms                               1",
                    "[AMD/*]   CL_PLATFORM_NAME                          AMD Accelerated Parallel Processing",
                    "[AMD/0]   CL_DEVICE_NAME                            gfx906",
                    "[AMD/0]   CL_DEVICE_VENDOR_ID                       0x1002",
                    "[AMD/0]   CL_DRIVER_VERSION                         " + p[0],
                    "[AMD/0]   CL_DEVICE_TYPE                            CL_DEVICE_TYPE_GPU");
            assertEquals(p[1], ClinfoRawParser.parse(raw, "clinfo-raw.txt").gpus().get(0).driverVersion(), "raw form: " + p[0]);
        }
    }

    /** AMD's clinfo prints "Key:" then tabs (ROCm/clr opencl/tools/clinfo/clinfo.cpp); the values here are made up. */
    @Test
    void amdsOwnClinfoGivesBoardNameSlotAndDriverPerPlatform() {
        String text = String.join("\n",
                "Number of platforms:\t\t\t\t 2",
                "  Platform Profile:\t\t\t\t FULL_PROFILE",
                "  Platform Name:\t\t\t\t AMD Accelerated Parallel Processing",
                "  Platform Profile:\t\t\t\t FULL_PROFILE",
                "  Platform Name:\t\t\t\t NVIDIA CUDA",
                "", "",
                "  Platform Name:\t\t\t\t AMD Accelerated Parallel Processing",
                "Number of devices:\t\t\t\t 1",
                "  Device Type:\t\t\t\t\t CL_DEVICE_TYPE_GPU",
                "  Vendor ID:\t\t\t\t\t 1002h",
                "  Board name:\t\t\t\t\t AMD Radeon RX 6800 XT",
                "  Device Topology:\t\t\t\t PCI[ B#12, D#0, F#0 ]",
                "  Max compute units:\t\t\t\t 36",
                "  Global memory size:\t\t\t\t 17163091968",
                "  Unified memory for Host and Device:\t\t 0",
                "  Name:\t\t\t\t\t\t gfx1030",
                "  Vendor:\t\t\t\t\t Advanced Micro Devices, Inc.",
                "  Driver version:\t\t\t\t 3516.0 (PAL,LC)",
                "", "",
                "  Platform Name:\t\t\t\t NVIDIA CUDA",
                "Number of devices:\t\t\t\t 2",
                "  Device Type:\t\t\t\t\t CL_DEVICE_TYPE_GPU",
                "  Vendor ID:\t\t\t\t\t 10deh",
                "  Global memory size:\t\t\t\t 10736893952",
                "  Name:\t\t\t\t\t\t NVIDIA GeForce RTX 3080",
                "  Driver version:\t\t\t\t 528.49",
                "  Device Type:\t\t\t\t\t CL_DEVICE_TYPE_CPU",
                "  Vendor ID:\t\t\t\t\t 8086h",
                "  Name:\t\t\t\t\t\t Intel(R) Core(TM) i7-10700K CPU @ 3.80GHz", "");
        ParsedOutput out = ClinfoParser.parse(text, "clinfo.txt");
        assertEquals(2, out.gpus().size(), out.gpus().toString());
        Gpu amd = out.gpus().get(0);
        assertEquals(Vendor.AMD, amd.vendor());
        assertEquals("AMD Radeon RX 6800 XT", amd.name());
        assertEquals("gfx1030", amd.architecture());
        assertEquals("0000:0c:00.0", amd.pciAddress().toString(), "B#12 is decimal");
        assertEquals(16368L, amd.memoryMiB());
        assertEquals("3516.0", amd.driverVersion(), "the number; '(PAL,LC)' names the runtime that answered");
        assertNull(amd.sharedMemory());
        Gpu nvidia = out.gpus().get(1);
        assertEquals(Vendor.NVIDIA, nvidia.vendor());
        assertEquals("NVIDIA GeForce RTX 3080", nvidia.name());
        assertEquals("528.49", nvidia.driverVersion());
    }

    /** clinfo -l's tree (Oblomov/clinfo's list mode), as the SYCL guides ask people to paste it. */
    @Test
    void theListFormCountsDevicesWhoseNamesAreGpus() {
        String text = String.join("\n",
                "Platform #0: Intel(R) FPGA Emulation Platform for OpenCL(TM)",
                " `-- Device #0: Intel(R) FPGA Emulation Device",
                "Platform #1: Intel(R) OpenCL",
                " `-- Device #0: 12th Gen Intel(R) Core(TM) i3-12100",
                "Platform #2: Intel(R) OpenCL Graphics",
                " `-- Device #0: Intel(R) Arc(TM) A770 Graphics",
                "Platform #3: Intel(R) OpenCL Graphics",
                " `-- Device #0: Intel(R) UHD Graphics 730",
                "Platform #4: Portable Computing Language",
                " +-- Device #0: cpu-haswell-12th Gen Intel(R) Core(TM) i3-12100",
                " `-- Device #1: Mystery Device 9000", "");
        ParsedOutput out = ClinfoParser.parse(text, "clinfo.txt");
        assertEquals(2, out.gpus().size(), out.gpus().toString());
        assertEquals("Intel(R) Arc(TM) A770 Graphics", out.gpus().get(0).name());
        assertEquals(Vendor.INTEL, out.gpus().get(0).vendor());
        assertEquals("Intel(R) UHD Graphics 730", out.gpus().get(1).name());
        assertEquals(1, out.diagnostics().size(), out.diagnostics().toString());
        assertEquals(Integer.valueOf(11), out.diagnostics().get(0).line(), "the device whose name tells nothing");
    }

    /** Mesa's Clover and rusticl both list the one Radeon, each with its own driver details in the name. */
    @Test
    void oneCardListedByTwoPlatformsIsOneGpu() {
        String text = String.join("\n",
                "Number of platforms                               2",
                "  Platform Name                                   Clover",
                "  Platform Name                                   rusticl",
                "",
                "  Platform Name                                   Clover",
                "Number of devices                                 1",
                "  Device Name                                     AMD Radeon RX 5500 XT (navi14, LLVM 15.0.7, DRM 3.52, 6.3.9-arch1-1)",
                "  Device Vendor ID                                0x1002",
                "  Device Type                                     GPU",
                "",
                "  Platform Name                                   rusticl",
                "Number of devices                                 1",
                "  Device Name                                     AMD Radeon RX 5500 XT (radeonsi, navi14, LLVM 15.0.7, DRM 3.52, 6.3.9-arch1-1)",
                "  Device Vendor ID                                0x1002",
                "  Device Type                                     GPU", "");
        ParsedOutput out = ClinfoParser.parse(text, "clinfo.txt");
        assertEquals(1, out.gpus().size());
        assertTrue(out.diagnostics().get(0).message().contains("2 platforms (Clover, rusticl)"), out.diagnostics().toString());

        String twoCards = text.replace("Number of devices                                 1\n  Device Name                                     AMD Radeon RX 5500 XT (navi14",
                "Number of devices                                 2\n  Device Name                                     AMD Radeon RX 5500 XT (navi14, second)\n"
                        + "  Device Type                                     GPU\n  Device Name                                     AMD Radeon RX 5500 XT (navi14");
        assertEquals(2, ClinfoParser.parse(twoCards, "clinfo.txt").gpus().size(), "two cards on one platform stay two");
    }
}
