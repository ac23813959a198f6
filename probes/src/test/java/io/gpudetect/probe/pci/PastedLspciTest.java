package io.gpudetect.probe.pci;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gpudetect.inventory.Normaliser;
import io.gpudetect.model.Gpu;
import io.gpudetect.probe.PastedText;
import io.gpudetect.testing.SharedData;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * lspci as it reaches us from hosts nobody here has seen (issue 28, kinds 2 and 8): ids the host's pci.ids does not
 * name yet, and listings pasted with every line indented. Inputs written here in the shapes seen in bug reports.
 */
class PastedLspciTest {

    private static List<Gpu> parsePasted(String text) {
        PastedText.Cleaned c = PastedText.clean(text);
        return LspciParser.parse(c.text(), "lspci.txt").gpus();
    }

    @Test
    void anIdTheHostsPciIdsDoesNotNameIsLeftUnnamedForTheTables() {
        List<Gpu> gpus = LspciParser.parse(String.join("\n",
                "00:1e.0 3D controller [0302]: NVIDIA Corporation Device [10de:26b9] (rev a1)",
                "0000:c1:00.0 Display controller [0380]: Advanced Micro Devices, Inc. [AMD/ATI] Device [1002:74a5]",
                ""), "lspci.txt").gpus();
        assertEquals(2, gpus.size());
        assertNull(gpus.get(0).name(), "'Device' is lspci's word for an id it cannot name");
        assertEquals("26b9", gpus.get(0).pciDeviceId());
        assertEquals("74a5", gpus.get(1).pciDeviceId());
    }

    @Test
    void theNormaliserNamesItFromTheShippedPciIds() {
        Gpu parsed = LspciParser.parse("00:1e.0 3D controller [0302]: NVIDIA Corporation Device [10de:26b9] (rev a1)\n",
                "lspci.txt").gpus().get(0);
        Gpu named = new Normaliser(SharedData.replayTables()).normalise(parsed, new ArrayList<>());
        assertEquals("L40S", named.name());
        assertEquals("l40s", named.model());
        assertEquals("pci.ids", named.sources().get("name"));
    }

    @Test
    void vmmRecordsOfAnUnnamedDeviceToo() {
        Gpu g = LspciParser.parse("Slot:\t0000:00:1e.0\nClass:\t3D controller [0302]\nVendor:\tNVIDIA Corporation [10de]\n"
                + "Device:\tDevice [26b9]\nRev:\ta1\n", "lspci.txt").gpus().get(0);
        assertNull(g.name());
        assertEquals("26b9", g.pciDeviceId());
    }

    @Test
    void grepVgaPastedWithATabBeforeEveryLine() {
        List<Gpu> gpus = parsePasted(String.join("\n",
                "$ lspci | grep -E 'VGA|3D'",
                "\t00:02.0 VGA compatible controller: Intel Corporation Meteor Lake-P [Intel Arc Graphics] (rev 08)",
                "\t01:00.0 3D controller: NVIDIA Corporation AD107M [GeForce RTX 4050 Max-Q / Mobile] (rev a1)",
                ""));
        assertEquals(2, gpus.size());
        assertEquals("Intel Arc Graphics", gpus.get(0).name());
        assertEquals(Boolean.TRUE, gpus.get(0).sharedMemory(), "Intel on the root bus is integrated");
        assertEquals("0000:01:00.0", gpus.get(1).pciAddress().toString());
    }

    @Test
    void aPastedVerboseListingKeepsItsDetailsUnderTheRightFunction() {
        List<Gpu> gpus = parsePasted(String.join("\n",
                "\t2d:00.0 VGA compatible controller: NVIDIA Corporation GA104 [GeForce RTX 3070] (rev a1)",
                "\t\tSubsystem: Micro-Star International Co., Ltd. [MSI] Device 3901",
                "\t\tKernel driver in use: nvidia",
                "\t2d:00.1 Audio device: NVIDIA Corporation GA104 High Definition Audio Controller (rev a1)",
                ""));
        assertEquals(1, gpus.size());
        assertEquals("nvidia", gpus.get(0).kernelDriver());
        assertEquals("GeForce RTX 3070", gpus.get(0).name());
    }

    @Test
    void linesPastedAsInlineCodeLoseTheirBackticks() {
        List<Gpu> gpus = parsePasted("`$ lspci | grep 3D`\n`02:00.0 3D controller: NVIDIA Corporation GP108M [GeForce MX150] (rev a1)`\n");
        assertEquals(1, gpus.size());
        assertEquals("GeForce MX150", gpus.get(0).name());
    }

    @Test
    void grepContextOutputWithASpaceBeforeEveryLineAndAPasswordPrompt() {
        List<Gpu> gpus = parsePasted(String.join("\n",
                "me@box:~$ sudo lspci -knnn | grep -A3 -E 'Display|VGA|3D'",
                " [sudo] password for me:",
                " 0c:00.0 VGA compatible controller [0300]: NVIDIA Corporation Device [10de:2782] (rev a1)",
                "     Subsystem: ASUSTeK Computer Inc. Device [1043:88f0]",
                "     Kernel driver in use: nvidia",
                " --",
                " 0d:00.0 VGA compatible controller [0300]: NVIDIA Corporation TU116 [GeForce GTX 1660 SUPER] [10de:21c4] (rev a1)",
                ""));
        assertEquals(2, gpus.size());
        assertNull(gpus.get(0).name());
        assertEquals("2782", gpus.get(0).pciDeviceId());
        assertEquals("GeForce GTX 1660 SUPER", gpus.get(1).name());
    }

    @Test
    void switchesNamedDeviceAreNotGpus() {
        List<Gpu> gpus = LspciParser.parse(String.join("\n",
                "07:00.0 3D controller [0302]: NVIDIA Corporation Device [10de:20b2] (rev a1)",
                "0c:00.0 Bridge [0680]: NVIDIA Corporation Device [10de:1af1] (rev a1)",
                "0f:00.0 3D controller [0302]: NVIDIA Corporation Device [10de:20b2] (rev a1)",
                ""), "lspci.txt").gpus();
        assertEquals(2, gpus.size(), "an NVSwitch is a bridge, whatever its name");
    }

    // Issue 39, class 2: lspci passed through a pipeline. Inputs written here in the shapes of those pastes.

    private static Gpu named(Gpu parsed) {
        return new Normaliser(io.gpudetect.tables.Tables.shipped(
                () -> io.gpudetect.tables.AkashGpus.absent("not in this test"))).normalise(parsed, new ArrayList<>());
    }

    @Test
    void machineReadableFieldsInQuotesAreOneFunctionEach() {
        List<Gpu> gpus = parsePasted(String.join("\n",
                "$ lspci -mm | grep -E 'VGA|3D'",
                "03:00.0 \"VGA compatible controller\" \"ASPEED Technology, Inc.\" \"ASPEED Graphics Family\" -r41 \"ASRock Rack\" \"Device 1b36\"",
                "41:00.0 \"3D controller\" \"NVIDIA Corporation\" \"Device 1eb8\" -ra1 \"NVIDIA Corporation\" \"Device 12a2\"",
                "c1:00.0 \"VGA compatible controller [0300]\" \"NVIDIA Corporation [10de]\" \"GA102 [GeForce RTX 3090] [2204]\" -ra1 -p00 "
                        + "\"Gigabyte Technology Co., Ltd [1458]\" \"Device [403b]\"",
                ""));
        assertEquals(3, gpus.size(), gpus.toString());
        Gpu t4 = gpus.get(1);
        assertEquals("0000:41:00.0", t4.pciAddress().toString());
        assertEquals("10de", t4.pciVendorId());
        assertEquals("1eb8", t4.pciDeviceId(), "'Device 1eb8': the only id is in the name");
        assertEquals("a1", t4.pciRevision());
        assertEquals("t4", named(t4).model());
        assertEquals("Tesla T4", named(t4).name());
        Gpu rtx = gpus.get(2);
        assertEquals("2204", rtx.pciDeviceId());
        assertEquals("0300", rtx.pciClass());
        assertEquals("1458", rtx.pciSubsystemVendorId());
        assertEquals("403b", rtx.pciSubsystemDeviceId());
        assertEquals("GeForce RTX 3090", rtx.name());
    }

    @Test
    void tabIndentedLinesUnderTheCommandThatMadeThemBesideLinesAtTheMargin() {
        List<Gpu> gpus = parsePasted(String.join("\n",
                "root@gpu-node:~# lspci | grep -i vga",
                "00:02.0 VGA compatible controller: Intel Corporation Device 4680 (rev 0c)",
                "root@gpu-node:~# lspci | grep -i nvidia",
                "\t01:00.0 3D controller: NVIDIA Corporation Device 1eb8 (rev a1)",
                "\t\tSubsystem: NVIDIA Corporation Device 12a2",
                "\t\tKernel driver in use: nvidia",
                "\t02:00.0 3D controller: NVIDIA Corporation Device 1eb8 (rev a1)",
                ""));
        assertEquals(3, gpus.size(), gpus.toString());
        assertEquals("0000:01:00.0", gpus.get(1).pciAddress().toString());
        assertEquals("nvidia", gpus.get(1).kernelDriver());
        assertEquals("0000:02:00.0", gpus.get(2).pciAddress().toString());
        assertEquals("t4", named(gpus.get(2)).model());
    }

    @Test
    void strayQuotesAroundAPipelinesFieldsAndASlotCutOff() {
        List<Gpu> gpus = parsePasted(String.join("\n",
                "\"01:00.0 VGA compatible controller: NVIDIA Corporation Device 2684 (rev a1)\"",
                "'02:00.0' '3D controller: NVIDIA Corporation Device 20b5 (rev a1)'",
                ""));
        assertEquals(2, gpus.size(), gpus.toString());
        assertEquals("2684", gpus.get(0).pciDeviceId());
        assertEquals("rtx4090", named(gpus.get(0)).model());
        assertEquals("0000:02:00.0", gpus.get(1).pciAddress().toString());
        assertEquals("a100", named(gpus.get(1)).model());

        List<Gpu> cut = parsePasted("3D controller: NVIDIA Corporation Device 1eb8 (rev a1)\n"
                + "VGA compatible controller: ASPEED Technology, Inc. ASPEED Graphics Family (rev 41)\n");
        assertEquals(2, cut.size(), "'lspci | cut -d\" \" -f2-': the class and description are still there");
        assertNull(cut.get(0).pciAddress());
        assertEquals("t4", named(cut.get(0)).model());
    }
}
