package io.gpudetect.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.probe.Probes;
import io.gpudetect.source.BundleSource;
import io.gpudetect.tables.AkashGpus;
import io.gpudetect.tables.AmdGpuIds;
import io.gpudetect.tables.PciIds;
import io.gpudetect.tables.Tables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A pass that named cards without a table says so once, as an info line; one without cards reads no table at all. */
class TableNotesTest {

    @TempDir
    Path tmp;

    /** An AMD card as {@code lspci -nn} prints it (hand-written): named by pci.ids when there is no amdgpu.ids. */
    private static final String LSPCI = "03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] "
            + "Navi 22 [Radeon RX 6700/6700 XT/6750 XT / 6800M/6850M XT] [1002:73df] (rev c1)\n";

    private List<String> notes(String lspci, Tables tables) throws Exception {
        Files.writeString(tmp.resolve("lspci.txt"), lspci);
        List<String> out = new java.util.ArrayList<>();
        for (Diagnostic d : new Detector(Probes.defaults()).detect(BundleSource.open(tmp), tables).diagnostics()) {
            if (d.probe().equals("akash-gpus") || d.probe().equals("amdgpu.ids") && d.file() == null) {
                out.add(d.severity() + " " + d.message());
            }
        }
        return out;
    }

    @Test
    void withoutAkashsTableOrAmdgpuIdsOneInfoLineEach() throws Exception {
        Tables tables = new Tables(PciIds.shipped(), AkashGpus.absent("--akash-table none"),
                AmdGpuIds.of("", "none: this build could not fetch Debian's libdrm-common"));
        assertEquals(List.of(
                "INFO no Akash GPU table (--akash-table none): models are named by gpu-detect's own rules; "
                        + "--akash-table FILE|URL gives one",
                "INFO no amdgpu.ids (none: this build could not fetch Debian's libdrm-common, and the host has no "
                        + "/usr/share/libdrm/amdgpu.ids): AMD cards are named from pci.ids"), notes(LSPCI, tables));
    }

    @Test
    void aHostWithoutGpusAsksForNoTable() throws Exception {
        Tables tables = Tables.shipped(() -> {
            throw new AssertionError("Akash's table read for a host without GPUs");
        });
        assertEquals(List.of(), notes("00:00.0 Host bridge [0600]: Intel Corporation Device [8086:3e0f]\n", tables));
    }
}
