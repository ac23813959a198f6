package io.gpudetect.probe.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.PastedText;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code clinfo -l} as it arrives in a mail or an issue (issue 28, kind 8): quoted with {@code > }, the tree's
 * backtick eaten by Markdown, and Intel's Core Ultra iGPU named "Arc Graphics". Inputs written here.
 */
class PastedClinfoListTest {

    private static List<Gpu> parsePasted(String text) {
        PastedText.Cleaned c = PastedText.clean(text);
        return ClinfoParser.parse(c.text(), "clinfo.txt").gpus();
    }

    @Test
    void quotedListWithALostBacktickStillListsEveryDevice() {
        List<Gpu> gpus = parsePasted(String.join("\n",
                "> $ clinfo -l",
                "> Platform #0: NVIDIA CUDA",
                ">  -- Device #0: NVIDIA GeForce RTX 4070 Laptop GPU",
                "> Platform #1: Intel(R) OpenCL Graphics",
                ">  `-- Device #0: Intel(R) Arc(TM) Graphics",
                ""));
        assertEquals(2, gpus.size());
        assertEquals(Vendor.NVIDIA, gpus.get(0).vendor());
        assertEquals("NVIDIA GeForce RTX 4070 Laptop GPU", gpus.get(0).name());
        assertNull(gpus.get(0).sharedMemory());
    }

    @Test
    void anArcWithoutACardNumberIsTheIntegratedGpuOfACoreUltra() {
        List<Gpu> gpus = parsePasted(String.join("\n",
                "Platform #0: Intel(R) OpenCL Graphics",
                " +-- Device #0: Intel(R) Arc(TM) Graphics",
                " `-- Device #1: Intel(R) Arc(TM) A770 Graphics",
                "Platform #1: Intel(R) OpenCL Graphics",
                " `-- Device #0: Intel(R) Arc(TM) 140V GPU (16GB)",
                "Platform #2: Intel(R) OpenCL Graphics",
                " `-- Device #0: Intel(R) Iris(R) Xe MAX Graphics",
                ""));
        assertEquals(4, gpus.size(), gpus.toString());
        assertEquals(Boolean.TRUE, gpus.get(0).sharedMemory(), "Arc Graphics, no number: Meteor Lake's iGPU");
        assertNull(gpus.get(1).sharedMemory(), "the A770 is a card");
        assertEquals(Boolean.TRUE, gpus.get(2).sharedMemory(), "Lunar Lake's Arc 140V is integrated");
        assertNull(gpus.get(3).sharedMemory(), "Iris Xe MAX is the discrete DG1");
    }

    @Test
    void neosNameForAnUnnamedDeviceIdIsNotTakenForAnIgpu() {
        List<Gpu> gpus = parsePasted("Platform #0: Intel(R) OpenCL Graphics\n `-- Device #0: Intel(R) Graphics [0x56a0]\n");
        assertEquals(1, gpus.size());
        assertNull(gpus.get(0).sharedMemory(), "0x56a0 is a discrete Arc A770");
    }
}
