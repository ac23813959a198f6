package io.gpudetect.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PastedTextTest {

    @Test
    void outputStraightFromATool_isLeftAlone() {
        String table = """
                +-----------------------------------------------------------------------------------------+
                | NVIDIA-SMI 590.48.01              Driver Version: 590.48.01      CUDA Version: 13.1     |
                | GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
                """;
        PastedText.Cleaned c = PastedText.clean(table);
        assertSame(table, c.text());
        assertTrue(c.notes().isEmpty());
        String dmon = "# gpu    pwr  gtemp\n# Idx      W      C\n    0     77     28\n";
        assertEquals(dmon, PastedText.clean(dmon).text(), "a line starting with # that is not a command stays");
    }

    @Test
    void promptsCommandLinesAndFencesAreBlankedKeepingLineNumbers() {
        String pasted = """
                user@gpu-node:~$ rocm-smi --showproductname
                ```
                GPU[0] : Card series: Instinct MI210
                ```
                (base) [root@node1 ~]# /opt/rocm/bin/rocminfo | grep gfx
                PS C:\\Users\\me> nvidia-smi.exe -L
                ! rocm-smi --showmeminfo vram
                $ sudo lspci -nn | grep -i vga
                $ lspci|grep -i "process\\|usb"
                user@gpu-node:~$
                """;
        PastedText.Cleaned c = PastedText.clean(pasted);
        assertEquals("\n\nGPU[0] : Card series: Instinct MI210\n\n\n\n\n\n\n\n", c.text());
        assertEquals(2, c.notes().size(), c.notes().toString());
    }

    @Test
    void emailQuotingIsTakenOffAtAnyDepth() {
        String quoted = "> > GPU[0] : Card series: Vega 20\n> >\n> > GPU[1] : Card series: Vega 20\n";
        PastedText.Cleaned c = PastedText.clean(quoted);
        assertEquals("GPU[0] : Card series: Vega 20\n\nGPU[1] : Card series: Vega 20\n", c.text());
        assertTrue(c.notes().get(0).contains("2 deep"), c.notes().toString());
    }

    @Test
    void indentationEveryLineHasIsRemovedAndInnerIndentationKept() {
        String block = "    Driver Version : 550.54.14\n    GPU 00000000:01:00.0\n        Product Name : NVIDIA L4\n";
        assertEquals("Driver Version : 550.54.14\nGPU 00000000:01:00.0\n    Product Name : NVIDIA L4\n",
                PastedText.clean(block).text());
    }
}
