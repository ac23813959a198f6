package io.gpudetect.record;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The memory kind per GPU in the capacity record, and a unified GPU's size from the host's memory. */
class UnifiedMemoryRecordTest {

    @TempDir
    Path dir;

    @Test
    void anIntegratedGpuIsUnifiedAndSizedFromTheHostsMemTotal() throws Exception {
        Path bundle = BundleRecords.intelIgpuBesideNvidia(dir.resolve("bundle"));
        Files.createDirectories(bundle.resolve("proc"));
        Files.writeString(bundle.resolve("proc/meminfo"), "MemTotal:       32768000 kB\nMemFree:        1000 kB\n");

        GpuCapacitySpec spec = BundleRecords.spec(bundle);

        GpuCapacitySpec.GpuEntry igpu = BundleRecords.gpu(spec, "0000:00:02.0");
        assertEquals("unified", igpu.memoryKind());
        assertEquals(32000L, igpu.memoryMiB(), "32768000 kB is 32000 MiB");
        assertEquals("dedicated", BundleRecords.gpu(spec, "0000:01:00.0").memoryKind());
    }

    @Test
    void theH100HasItsOwnMemory() throws Exception {
        // nvml.json: nvmlDeviceGetMemoryInfo total 85520809984 bytes = 81559 MiB.
        GpuCapacitySpec.GpuEntry h100 = BundleRecords.gpu(BundleRecords.spec(BundleRecords.h100()), "0000:00:06.0");
        assertEquals("dedicated", h100.memoryKind());
        assertEquals(81559L, h100.memoryMiB());
    }
}
