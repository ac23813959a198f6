package io.gpudetect.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.nvml.NvmlCall;
import io.gpudetect.nvml.NvmlReturn;
import io.gpudetect.nvml.NvmlSnapshot;
import io.gpudetect.probe.Probes;
import io.gpudetect.probe.nvml.NvmlSnapshotJson;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.LiveSource;
import io.gpudetect.tables.AkashGpus;
import io.gpudetect.tables.AmdGpuIds;
import io.gpudetect.tables.PciIds;
import io.gpudetect.tables.Tables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GPUs without memory of their own ({@code memoryKind} {@code unified}) are sized from what the platform gives them:
 * a tool's size where one gave it, else the host's {@code MemTotal}; never 0 or none where the host's memory is known.
 */
class UnifiedMemoryTest {

    /** {@code /proc/meminfo}'s first lines on a 128 GB DGX Spark-sized host (hand-written). */
    private static final String MEMINFO = "MemTotal:       128243312 kB\nMemFree:        120016480 kB\n"
            + "MemAvailable:   121974152 kB\n";

    @TempDir
    Path tmp;

    private static <T> NvmlCall<T> ok(String fn, T value) {
        return NvmlCall.success(fn, value);
    }

    /** A GB10 as NVML answers for it: everything but the memory, which is "Not Supported". */
    private static NvmlSnapshot gb10() {
        NvmlSnapshot.Device d = new NvmlSnapshot.Device(0, ok("nvmlDeviceGetHandleByIndex_v2", null),
                ok("nvmlDeviceGetName", "NVIDIA GB10"), ok("nvmlDeviceGetUUID", "GPU-1b7c4f2e-9a3d-4c5e-8f61-2d3e4f5a6b7c"),
                null, null, ok("nvmlDeviceGetPciInfo_v3", new NvmlSnapshot.Pci("0000000F:01:00.0", 0xf, 1, 0, "2e1210de", "000010de")),
                NvmlCall.failure("nvmlDeviceGetMemoryInfo_v2", NvmlReturn.ERROR_NOT_SUPPORTED, "Not Supported"),
                ok("nvmlDeviceGetCudaComputeCapability", new NvmlSnapshot.ComputeCapability(12, 1)), null, null, null,
                null, null, null, null, List.of(), null, null, null, null, null, null, null, null, null, null, null, null, null, null, null);
        return new NvmlSnapshot(1, "/usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1", null, ok("nvmlInit_v2", null),
                ok("nvmlSystemGetNVMLVersion", "13.580.95.05"), ok("nvmlSystemGetDriverVersion", "580.95.05"),
                ok("nvmlSystemGetCudaDriverVersion_v2", 13000), ok("nvmlDeviceGetCount_v2", 1), List.of(d),
                ok("nvmlShutdown", null));
    }

    private static Tables tables() {
        return new Tables(PciIds.shipped(), AkashGpus.absent("--akash-table none"), AmdGpuIds.of("", "none"));
    }

    @Test
    void aGb10WhoseMemoryNvmlDoesNotReportIsUnifiedAndSizedFromTheHostsMemory() throws Exception {
        Files.writeString(tmp.resolve("nvml.json"), NvmlSnapshotJson.write(gb10()));
        Files.createDirectories(tmp.resolve("proc"));
        Files.writeString(tmp.resolve("proc/meminfo"), MEMINFO);

        Gpu g = new Detector(Probes.defaults()).detect(BundleSource.open(tmp), tables()).gpus().get(0);

        assertEquals("unified", g.memoryKind());
        assertEquals("nvml", g.sources().get("memoryKind"), "NVML's Not Supported is what says it");
        assertEquals(125237L, g.memoryMiB(), "128243312 kB / 1024");
        assertEquals("host-meminfo", g.sources().get("memoryMiB"));
        assertEquals("12.1", g.computeCapability());
    }

    @Test
    void anIntegratedGpuKeepsTheSizeItsToolGaveAndIsUnified() {
        Gpu igpu = Gpu.builder("clinfo").vendor(Vendor.INTEL).name("Intel(R) UHD Graphics 770").sharedMemory(true)
                .memoryMiB(25404L).build();
        List<Diagnostic> notes = new ArrayList<>();

        Gpu g = UnifiedMemory.apply(List.of(igpu), live(), notes).get(0);

        assertEquals("unified", g.memoryKind());
        assertEquals(25404L, g.memoryMiB());
        assertEquals("clinfo", g.sources().get("memoryMiB"));
        assertTrue(notes.isEmpty(), notes.toString());
    }

    @Test
    void anApuWithoutASizeGetsTheHostsMemory() throws Exception {
        Files.createDirectories(tmp.resolve("proc"));
        Files.writeString(tmp.resolve("proc/meminfo"), "MemTotal:       65536000 kB\n");
        Gpu apu = Gpu.builder("sysfs-pci").vendor(Vendor.AMD).pciAddress(PciAddress.of("0000:04:00.0")).sharedMemory(true).build();

        Gpu g = UnifiedMemory.apply(List.of(apu), live(), new ArrayList<>()).get(0);

        assertEquals(64000L, g.memoryMiB());
        assertEquals("unified", g.memoryKind());
    }

    @Test
    void aDiscreteGpuWithItsOwnMemoryIsDedicatedAndOneWithNoSizeHasNoKind() {
        Gpu h100 = Gpu.builder("nvml").vendor(Vendor.NVIDIA).memoryMiB(81559L).build();
        Gpu unknown = Gpu.builder("lspci").vendor(Vendor.NVIDIA).build();

        List<Gpu> out = UnifiedMemory.apply(List.of(h100, unknown), live(), new ArrayList<>());

        assertEquals("dedicated", out.get(0).memoryKind());
        assertNull(out.get(1).memoryKind());
    }

    @Test
    void withoutProcMeminfoTheSizeStaysUnknownAndANoteSaysWhy() {
        Gpu apu = Gpu.builder("sysfs-pci").vendor(Vendor.AMD).sharedMemory(true).build();
        List<Diagnostic> notes = new ArrayList<>();

        Gpu g = UnifiedMemory.apply(List.of(apu), live(), notes).get(0);

        assertNull(g.memoryMiB());
        assertEquals(1, notes.size());
        assertEquals("/proc/meminfo", notes.get(0).file());
        assertEquals(Diagnostic.Severity.INFO, notes.get(0).severity());
    }

    @Test
    void aMeminfoWithoutMemTotalIsAWarning() throws Exception {
        Files.createDirectories(tmp.resolve("proc"));
        Files.writeString(tmp.resolve("proc/meminfo"), "MemFree: 12 kB\n");
        List<Diagnostic> notes = new ArrayList<>();

        UnifiedMemory.apply(List.of(Gpu.builder("x").sharedMemory(true).build()), live(), notes);

        assertEquals(Diagnostic.Severity.WARNING, notes.get(0).severity());
        assertTrue(notes.get(0).message().contains("MemTotal"), notes.get(0).message());
    }

    private LiveSource live() {
        return new LiveSource(tmp, Duration.ofSeconds(5), LiveSource.DEFAULT_MAX_OUTPUT_BYTES);
    }
}
