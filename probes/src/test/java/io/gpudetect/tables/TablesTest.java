package io.gpudetect.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.source.BundleSource;
import io.gpudetect.source.LiveSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TablesTest {

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
        Tables tables = Tables.forSource(new LiveSource(tmp, Duration.ofSeconds(1), 1024));
        assertEquals("Host Name For 4090", tables.pciIds().productName("10de", "2684").orElseThrow());
    }

    @Test
    void anOlderHostPciIdsLosesToTheShippedOne() throws Exception {
        hostPciIds(tmp, "2001.01.01", "AD102 [Old Name]");
        Tables tables = Tables.forSource(new LiveSource(tmp, Duration.ofSeconds(1), 1024));
        assertEquals("GeForce RTX 4090", tables.pciIds().productName("10de", "2684").orElseThrow());
    }

    @Test
    void aReplayNeverReadsTheHostsTable() throws Exception {
        hostPciIds(tmp, "2099.01.01", "AD102 [Host Name For 4090]");
        Tables tables = Tables.forSource(BundleSource.open(tmp));
        assertEquals("GeForce RTX 4090", tables.pciIds().productName("10de", "2684").orElseThrow());
    }
}
