package io.gpudetect.probe.nvidia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.inventory.Detector;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.probe.pci.SysfsPciProbe;
import io.gpudetect.source.LiveSource;
import io.gpudetect.source.ToolSearch;
import io.gpudetect.tables.AkashGpus;
import io.gpudetect.tables.Tables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a live host without NVML's links (here no NVML at all: the PCI bus alone), {@code nvidia-smi topo -m} is run
 * for two or more NVIDIA GPUs, and not for one; {@code nvidia-smi nvlink -s} after it only where the matrix shows an
 * NVLink. The host is a fake {@code /sys}; nvidia-smi a script that prints a
 * matrix and leaves a mark when run.
 */
class NvidiaTopoLiveTest {

    private static final Tables TABLES = Tables.shipped(() -> AkashGpus.absent("not in this test"));

    @TempDir
    Path tmp;

    private void nvidiaGpu(String address) throws IOException {
        Path dir = tmp.resolve("host/sys/devices/pci0000:00/" + address);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("class"), "0x030200\n");
        Files.writeString(dir.resolve("vendor"), "0x10de\n");
        Files.writeString(dir.resolve("device"), "0x2230\n");
        Files.writeString(dir.resolve("subsystem_vendor"), "0x10de\n");
        Files.writeString(dir.resolve("subsystem_device"), "0x1459\n");
        Files.writeString(dir.resolve("revision"), "0xa1\n");
        Path links = tmp.resolve("host/sys/bus/pci/devices");
        Files.createDirectories(links);
        Files.createSymbolicLink(links.resolve(address), Path.of("../../../devices/pci0000:00/" + address));
    }

    /** The cell the fake's matrix puts between its two GPUs: {@code NV4} (a bridge) or {@code SYS}. */
    private String cell = "NV4";

    /**
     * A fake nvidia-smi that prints two GPUs joined by {@link #cell} for {@code topo -m}, their four links each at
     * GA102's speed for {@code nvlink -s}, and notes each run.
     */
    private Path tools() throws IOException {
        Path bin = tmp.resolve("bin");
        Files.createDirectories(bin);
        Path smi = bin.resolve("nvidia-smi");
        String links = "\\t Link 0: 14.062 GB/s\\n\\t Link 1: 14.062 GB/s\\n\\t Link 2: 14.062 GB/s\\n"
                + "\\t Link 3: 14.062 GB/s\\n";
        Files.writeString(smi, "#!/bin/sh\necho \"$@\" >> " + tmp.resolve("runs") + "\n"
                + "if [ \"$1 $2\" = \"nvlink -s\" ]; then printf 'GPU 0: NVIDIA RTX A6000\\n" + links
                + "GPU 1: NVIDIA RTX A6000\\n" + links + "'; exit 0; fi\n"
                + "[ \"$1 $2\" = \"topo -m\" ] || exit 2\n"
                + "printf '\\tGPU0\\tGPU1\\tCPU Affinity\\tNUMA Affinity\\tGPU NUMA ID\\n"
                + "GPU0\\t X \\t" + cell + "\\t0-31\\t0\\t\\tN/A\\nGPU1\\t" + cell + "\\t X \\t0-31\\t0\\t\\tN/A\\n'\n");
        Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
        return bin;
    }

    private Inventory detect() throws IOException {
        LiveSource live = new LiveSource(tmp.resolve("host"), ToolSearch.of(null, tools().toString()), Duration.ofSeconds(10),
                LiveSource.DEFAULT_MAX_OUTPUT_BYTES);
        return new Detector(List.of(new SysfsPciProbe())).detect(live, TABLES);
    }

    @Test
    void twoGpusWithoutLinksRunTopoOnceAndAreBridged() throws IOException {
        nvidiaGpu("0000:3b:00.0");
        nvidiaGpu("0000:af:00.0");

        Inventory inv = detect();

        // The matrix shows an NVLink, so the link states are asked too: their speed gives the generation.
        assertEquals(List.of("topo -m", "nvlink -s"), Files.readAllLines(tmp.resolve("runs")));
        assertEquals("0000:af:00.0", inv.gpus().get(0).links().links().get(0).remotePciAddress());
        assertEquals(3, inv.gpus().get(0).links().links().get(0).version());
        assertEquals(4, inv.gpus().get(1).links().linksUp());
        assertEquals("2 GPUs joined by an NVLink bridge", inv.interconnect().summary());
    }

    @Test
    void aMatrixWithoutNvLinkAsksNoLinkStates() throws IOException {
        cell = "SYS";
        nvidiaGpu("0000:3b:00.0");
        nvidiaGpu("0000:af:00.0");

        Inventory inv = detect();

        assertEquals(List.of("topo -m"), Files.readAllLines(tmp.resolve("runs")));
        assertEquals("no GPU links between the 2 GPUs", inv.interconnect().summary());
    }

    @Test
    void oneGpuNeverRunsIt() throws IOException {
        nvidiaGpu("0000:3b:00.0");

        Inventory inv = detect();

        assertFalse(Files.exists(tmp.resolve("runs")), "nvidia-smi was not run");
        assertNull(inv.gpus().get(0).links());
        assertTrue(inv.diagnostics().stream().noneMatch(d -> "nvidia-smi-topo".equals(d.probe())));
    }
}
