package io.gpudetect.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.source.BundleSource;
import io.gpudetect.source.LiveSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TablesTest {

    /** Akash's table plays no part in which pci.ids or amdgpu.ids a pass uses. */
    private static final Supplier<AkashGpus> NO_AKASH = () -> AkashGpus.absent("not needed here");

    @TempDir
    Path tmp;

    private void hostPciIds(Path root, String version, String name) throws Exception {
        Path file = root.resolve("usr/share/misc/pci.ids");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "#\tVersion: " + version + "\n10de  NVIDIA Corporation\n\t2684  " + name + "\n");
    }

    @Test
    void aLiveHostsNewerPciIdsWins() throws Exception {
        hostPciIds(tmp, "2099.01.01", "AD102 [Host Name For 4090]");
        Tables tables = Tables.forSource(new LiveSource(tmp, Duration.ofSeconds(1), 1024), NO_AKASH);
        assertEquals("Host Name For 4090", tables.pciIds().productName("10de", "2684").orElseThrow());
    }

    @Test
    void anOlderHostPciIdsLosesToTheShippedOne() throws Exception {
        hostPciIds(tmp, "2001.01.01", "AD102 [Old Name]");
        Tables tables = Tables.forSource(new LiveSource(tmp, Duration.ofSeconds(1), 1024), NO_AKASH);
        assertEquals("GeForce RTX 4090", tables.pciIds().productName("10de", "2684").orElseThrow());
    }

    @Test
    void aReplayNeverReadsTheHostsTable() throws Exception {
        hostPciIds(tmp, "2099.01.01", "AD102 [Host Name For 4090]");
        Tables tables = Tables.forSource(BundleSource.open(tmp), NO_AKASH);
        assertEquals("GeForce RTX 4090", tables.pciIds().productName("10de", "2684").orElseThrow());
    }

    @Test
    void aLiveHostsAmdgpuIdsWinsWhenItListsMore() throws Exception {
        StringBuilder table = new StringBuilder("1.0.0\n");
        for (int i = 0; i < 2000; i++) {
            table.append(String.format("%04X,\t00,\tAMD Test %d\n", 0x9000 + i, i));
        }
        Path file = tmp.resolve("usr/share/libdrm/amdgpu.ids");
        Files.createDirectories(file.getParent());
        Files.writeString(file, table);
        Tables tables = Tables.forSource(new LiveSource(tmp, Duration.ofSeconds(1), 1 << 20), NO_AKASH);
        assertEquals("/usr/share/libdrm/amdgpu.ids (host)", tables.amdGpuIds().origin());
        assertEquals("AMD Test 5", tables.amdGpuIds().name("9005", "00").orElseThrow());
        Tables replay = Tables.forSource(BundleSource.open(tmp), NO_AKASH);
        assertEquals(AmdGpuIds.shipped().origin(), replay.amdGpuIds().origin());
    }
}
