package io.gpudetect.probe.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.Partition;
import io.gpudetect.nvml.NvmlCall;
import io.gpudetect.nvml.NvmlReturn;
import io.gpudetect.nvml.NvmlScope;
import io.gpudetect.nvml.NvmlSnapshot;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.source.BundleSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The probe's logic over hand-made snapshots: what each NVML answer becomes. */
class NvmlGpusTest {

    private static final long MIB = 1024L * 1024L;

    private static <T> NvmlCall<T> ok(String fn, T value) {
        return NvmlCall.success(fn, value);
    }

    private static <T> NvmlCall<T> fails(String fn, int code, String text) {
        return NvmlCall.failure(fn, code, text);
    }

    /** A healthy H100 as the real library answers for it; {@code name} lets a test break one call. */
    private static NvmlSnapshot.Device h100(int index, int bus, NvmlCall<String> name, NvmlCall<Long> arch) {
        return new NvmlSnapshot.Device(index, ok("nvmlDeviceGetHandleByIndex_v2", null), name,
                ok("nvmlDeviceGetUUID", "GPU-5e1f0018-0000-0000-2330-000000abc018"),
                ok("nvmlDeviceGetSerial", "1654922001018"), ok("nvmlDeviceGetBoardPartNumber", "692-2G520-0200-000"),
                ok("nvmlDeviceGetPciInfo_v3", new NvmlSnapshot.Pci(String.format("00000000:%02X:00.0", bus), 0, bus, 0,
                        "233010de", "16c110de")),
                ok("nvmlDeviceGetMemoryInfo_v2", new NvmlSnapshot.Memory(81559 * MIB, 328 * MIB)),
                ok("nvmlDeviceGetCudaComputeCapability", new NvmlSnapshot.ComputeCapability(9, 0)), arch,
                ok("nvmlDeviceGetBrand", 14L), ok("nvmlDeviceGetPowerManagementLimit", 700000L),
                ok("nvmlDeviceGetEccMode", new NvmlSnapshot.Modes(true, true)), ok("nvmlDeviceGetTotalEccErrors", 0L),
                ok("nvmlDeviceGetMigMode", new NvmlSnapshot.Modes(false, false)), null, List.of(),
                null, null, null, null, null, null, null, null, null, null, null, null, null, null, null);
    }

    private static NvmlSnapshot.Device h100(int index, int bus) {
        return h100(index, bus, ok("nvmlDeviceGetName", "NVIDIA H100 80GB HBM3"), ok("nvmlDeviceGetArchitecture", 9L));
    }

    private static NvmlSnapshot host(NvmlSnapshot.Device... devices) {
        return new NvmlSnapshot(1, "/usr/lib64/libnvidia-ml.so.1", null, ok("nvmlInit_v2", null),
                ok("nvmlSystemGetNVMLVersion", "12.550.54.15"), ok("nvmlSystemGetDriverVersion", "550.54.15"),
                ok("nvmlSystemGetCudaDriverVersion_v2", 12040), ok("nvmlDeviceGetCount_v2", devices.length),
                List.of(devices), ok("nvmlShutdown", null));
    }

    @Test
    void aHealthyGpuHasEveryFactFromNvml() {
        ProbeResult r = NvmlGpus.interpret(host(h100(0, 0x18)), "nvml.json");

        assertEquals(ProbeResult.Outcome.OK, r.outcome());
        Gpu g = r.gpus().get(0);
        assertEquals("0000:18:00.0", g.pciAddress().toString());
        assertEquals("NVIDIA H100 80GB HBM3", g.name());
        assertEquals("2330", g.pciDeviceId());
        assertEquals("10de", g.pciVendorId());
        assertEquals("16c1", g.pciSubsystemDeviceId());
        assertEquals(81559L, g.memoryMiB());
        assertEquals("550.54.15", g.driverVersion());
        assertEquals("12.4", g.runtimeVersion());
        assertEquals("9.0", g.computeCapability());
        assertEquals("Hopper", g.architecture());
        assertEquals(700.0, g.powerLimitWatts());
        assertEquals(new Health(Health.Status.OK, 0L, List.of()), g.health());
        assertEquals(Boolean.FALSE, g.partitioning().enabled());
        assertEquals(Set.of("nvml"), Set.copyOf(g.sources().values()));
    }

    @Test
    void unavailableIsAbsentAndAFailingInitIsAFailureWithAHint() {
        ProbeResult absent = NvmlGpus.interpret(NvmlSnapshot.unavailable("libnvidia-ml.so.1 not found"), "nvml.json");
        assertEquals(ProbeResult.Outcome.ABSENT, absent.outcome());
        assertEquals("NVML unavailable: libnvidia-ml.so.1 not found", absent.diagnostics().get(0).message());

        NvmlSnapshot failing = new NvmlSnapshot(1, "/usr/lib64/libnvidia-ml.so.1", null,
                fails("nvmlInit_v2", NvmlReturn.ERROR_LIB_RM_VERSION_MISMATCH, "RM has detected an NVML/RM version mismatch."),
                null, null, null, null, List.of(), null);
        ProbeResult r = NvmlGpus.interpret(failing, "nvml.json");
        assertEquals(ProbeResult.Outcome.FAILED, r.outcome());
        Diagnostic d = r.diagnostics().get(0);
        assertEquals(Diagnostic.Severity.ERROR, d.severity());
        assertTrue(d.message().startsWith("nvmlInit_v2 returned NVML_ERROR_LIB_RM_VERSION_MISMATCH "
                + "(RM has detected an NVML/RM version mismatch.) for /usr/lib64/libnvidia-ml.so.1: "), d.message());
        assertTrue(d.message().contains("different driver versions"), d.message());
    }

    @Test
    void aLostGpuBesideAFailedCallIsStillPartial() {
        NvmlSnapshot.Device lost = h100(1, 0x3b, fails("nvmlDeviceGetName", NvmlReturn.ERROR_GPU_IS_LOST, "GPU is lost"),
                ok("nvmlDeviceGetArchitecture", 9L));
        NvmlSnapshot.Device misread = h100(0, 0x19, fails("nvmlDeviceGetName", 7, "Insufficient Size"),
                ok("nvmlDeviceGetArchitecture", 9L));
        ProbeResult r = NvmlGpus.interpret(host(misread, lost), "nvml.json");

        assertEquals(ProbeResult.Outcome.PARTIAL, r.outcome(), "a call that failed on a GPU that answers is not a lost GPU");
    }

    @Test
    void aLostGpuKeepsItsAddressAndTheOthersStillReport() {
        NvmlSnapshot.Device lost = h100(1, 0x3b, fails("nvmlDeviceGetName", NvmlReturn.ERROR_GPU_IS_LOST, "GPU is lost"),
                fails("nvmlDeviceGetArchitecture", NvmlReturn.ERROR_GPU_IS_LOST, "GPU is lost"));
        NvmlSnapshot.Device noHandle = NvmlSnapshot.Device.withoutHandle(2,
                fails("nvmlDeviceGetHandleByIndex_v2", NvmlReturn.ERROR_UNKNOWN, "Unknown Error"));
        ProbeResult r = NvmlGpus.interpret(host(h100(0, 0x19), lost, noHandle), "nvml.json");

        assertEquals(ProbeResult.Outcome.OK, r.outcome(), "a lost GPU is described, as lost: NVML answered in full");
        assertEquals(2, r.diagnostics().stream().filter(d -> d.message().contains(" is lost: ")).count(),
                "each lost GPU has its note: " + r.diagnostics());
        assertEquals(3, r.gpus().size());
        assertEquals(Health.Status.OK, r.gpus().get(0).health().status());
        Gpu g = r.gpus().get(1);
        assertEquals(Health.Status.LOST, g.health().status());
        assertEquals("0000:3b:00.0", g.pciAddress().toString());
        assertNull(g.name());
        assertEquals(List.of("nvmlDeviceGetName returned NVML_ERROR_GPU_IS_LOST (GPU is lost)"), g.health().problems());
        Gpu unknown = r.gpus().get(2);
        assertEquals(Health.Status.LOST, unknown.health().status());
        assertNull(unknown.pciAddress());
        List<String> messages = r.diagnostics().stream().map(Diagnostic::message).toList();
        assertEquals(2, messages.size(), messages.toString());
        assertTrue(messages.get(0).startsWith("GPU 1 (0000:3b:00.0) is lost: nvmlDeviceGetName returned"), messages.get(0));
        assertTrue(messages.get(1).startsWith("GPU 2 is lost: nvmlDeviceGetHandleByIndex_v2 returned NVML_ERROR_UNKNOWN"),
                messages.get(1));
    }

    @Test
    void aMissingSymbolIsOneNoteAndNotAFailure() {
        NvmlCall<Long> noArch = fails("nvmlDeviceGetArchitecture", NvmlReturn.ERROR_FUNCTION_NOT_FOUND, "not exported");
        NvmlCall<String> name = ok("nvmlDeviceGetName", "NVIDIA H100 80GB HBM3");
        ProbeResult r = NvmlGpus.interpret(host(h100(0, 0x18, name, noArch), h100(1, 0x2a, name, noArch)), "nvml.json");

        assertEquals(ProbeResult.Outcome.OK, r.outcome());
        assertNull(r.gpus().get(0).architecture());
        assertEquals(1, r.diagnostics().size());
        assertEquals(Diagnostic.Severity.INFO, r.diagnostics().get(0).severity());
        assertTrue(r.diagnostics().get(0).message().contains("nvmlDeviceGetArchitecture"));
    }

    @Test
    void migDevicesBecomePartitionsWithTheirProfile() {
        NvmlSnapshot.Device base = h100(0, 0x18);
        NvmlSnapshot.MigDevice slice = new NvmlSnapshot.MigDevice(3, ok("nvmlDeviceGetMigDeviceHandleByIndex", null),
                ok("nvmlDeviceGetName", "NVIDIA H100 80GB HBM3 MIG 1g.10gb"), ok("nvmlDeviceGetUUID", "MIG-1a2b3c4d-0000-1111-2222-333344445555"),
                ok("nvmlDeviceGetGpuInstanceId", 9L), ok("nvmlDeviceGetComputeInstanceId", 0L),
                ok("nvmlDeviceGetMemoryInfo_v2", new NvmlSnapshot.Memory(9984 * MIB, 0L)), ok("nvmlDeviceGetAttributes_v2", 16L));
        NvmlSnapshot.Device mig = new NvmlSnapshot.Device(0, base.handle(), base.name(), base.uuid(), base.serial(),
                base.boardPartNumber(), base.pci(), base.memory(), base.computeCapability(), base.architecture(),
                base.brand(), base.powerLimitMilliwatts(), base.eccMode(), base.eccUncorrectedAggregate(),
                ok("nvmlDeviceGetMigMode", new NvmlSnapshot.Modes(true, true)), ok("nvmlDeviceGetMaxMigDeviceCount", 7),
                List.of(slice), null, null, null, null, null, null, null, null, null, null, null, null, null, null, null);
        Gpu g = NvmlGpus.interpret(host(mig), "nvml.json").gpus().get(0);

        assertEquals(Boolean.TRUE, g.partitioning().enabled());
        assertEquals(List.of(new Partition("1g.10gb", 9, 0, 9984L, 16, "MIG-1a2b3c4d-0000-1111-2222-333344445555")),
                g.partitioning().instances());
    }

    @Test
    void snapshotsSurviveTheirJsonForm() throws Exception {
        NvmlSnapshot s = host(h100(0, 0x18), h100(1, 0x2a, fails("nvmlDeviceGetName", 15, "GPU is lost"),
                fails("nvmlDeviceGetArchitecture", 13, "not exported")));
        String json = NvmlSnapshotJson.write(s);
        assertEquals(s, NvmlSnapshotJson.read(json));
        assertTrue(json.contains("\"status\" : \"NVML_ERROR_GPU_IS_LOST\""), json);
        assertEquals(NvmlSnapshot.unavailable("x"), NvmlSnapshotJson.read(NvmlSnapshotJson.write(NvmlSnapshot.unavailable("x"))));
    }

    @Test
    void aBrokenSnapshotInABundleIsAFailureWithItsLine(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("nvml.json"), "{\n  \"format\": 1,\n  \"devices\": [ {\"index\": \"zero\"} ]\n}\n");
        ProbeResult r = replayed(dir);

        assertEquals(ProbeResult.Outcome.FAILED, r.outcome());
        assertEquals(3, r.diagnostics().get(0).line());
        assertEquals("nvml.json", r.diagnostics().get(0).file());
        assertTrue(r.diagnostics().get(0).message().contains("'index': expected a whole number, found the string \"zero\""),
                r.diagnostics().get(0).message());
    }

    @Test
    void aSnapshotCutShortIsAFailureAtItsEndNamingTheObjectLeftOpen(@TempDir Path dir) throws Exception {
        // Line 3 opens the first device at column 16 and the file ends on line 4, before it is closed.
        Files.writeString(dir.resolve("nvml.json"), "{\n  \"format\": 1,\n  \"devices\": [ {\"index\": 0,\n");
        ProbeResult r = replayed(dir);

        assertEquals(ProbeResult.Outcome.FAILED, r.outcome());
        Diagnostic d = r.diagnostics().get(0);
        assertEquals("nvml.json", d.file());
        assertEquals(4, d.line());
        assertTrue(d.message().endsWith("the document ends before the object opened at line 3, column 16 is closed"),
                d.message());
        assertEquals(1, d.message().lines().count(), d.message());
    }

    @Test
    void aSnapshotNestedPastTheParsersLimitIsAFailureAtItsLine(@TempDir Path dir) throws Exception {
        // An unknown member is skipped, but jackson-core still counts its depth: 1000 levels at most.
        Files.writeString(dir.resolve("nvml.json"), "{\"format\": 1,\n \"future\": " + "[".repeat(5000) + "]".repeat(5000) + "}\n");
        ProbeResult r = replayed(dir);

        assertEquals(ProbeResult.Outcome.FAILED, r.outcome());
        Diagnostic d = r.diagnostics().get(0);
        assertEquals("nvml.json", d.file());
        assertEquals(2, d.line());
        assertTrue(d.message().endsWith("Document nesting depth (1001) exceeds the maximum allowed (1000)"), d.message());
    }

    private static ProbeResult replayed(Path bundle) throws Exception {
        return new NvmlProbe(() -> {
            throw new AssertionError("a bundle is never read through the library");
        }, Duration.ofSeconds(1)).probe(BundleSource.open(bundle));
    }

    @Test
    void aSnapshotValueOfTheWrongKindNamesItsCall() {
        String json = "{\"format\": 1,\n \"devices\": [ {\"index\": 0,\n  \"migMode\": {\"function\": \"nvmlDeviceGetMigMode\","
                + " \"returnCode\": 0, \"value\": {\"current\": \"yes\"}}} ]}";
        com.fasterxml.jackson.core.JsonProcessingException e = org.junit.jupiter.api.Assertions.assertThrows(
                com.fasterxml.jackson.core.JsonProcessingException.class, () -> NvmlSnapshotJson.read(json));
        assertEquals(3, e.getLocation().getLineNr());
        assertTrue(e.getOriginalMessage().equals("'migMode.value.current': expected true or false, found the string \"yes\""),
                e.getOriginalMessage());
    }

    @Test
    void aBundleWithoutSnapshotIsAbsent(@TempDir Path dir) throws Exception {
        ProbeResult r = new NvmlProbe(() -> NvmlSnapshot.unavailable("unused"),
                Duration.ofSeconds(1)).probe(BundleSource.open(dir));
        assertEquals(ProbeResult.Outcome.ABSENT, r.outcome());
    }

    @Test
    void aHungLibraryTimesOutInsteadOfBlockingThePass() {
        long start = System.nanoTime();
        ProbeResult r = new NvmlProbe(() -> {
            try {
                Thread.sleep(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return NvmlSnapshot.unavailable("too late");
        }, Duration.ofMillis(200)).probe(io.gpudetect.source.LiveSource.of(Duration.ofSeconds(1)));

        assertEquals(ProbeResult.Outcome.FAILED, r.outcome());
        assertTrue(r.diagnostics().get(0).message().startsWith("NVML did not answer within 200 ms"));
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() < 5_000);
    }

    @Test
    void aHungLibraryHoldsOneThreadHoweverManyPassesAskIt() throws Exception {
        java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        NvmlScope hung = new NvmlScope() {
            @Override
            public NvmlSnapshot snapshot() {
                asked.incrementAndGet();
                try {
                    never.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return NvmlSnapshot.unavailable("released");
            }
        };
        NvmlProbe probe = new NvmlProbe(hung, Duration.ofMillis(100));
        io.gpudetect.source.LiveSource host = io.gpudetect.source.LiveSource.of(Duration.ofSeconds(1));
        java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
        try {
            for (int pass = 0; pass < 5; pass++) {
                assertTrue(probe.pulse(host).orElseThrow().problem().startsWith("no answer within 100 ms"));
            }
            long made = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("nvml-probe") && !before.contains(t)).count();

            assertEquals(1, made, "the passes after the hung call wait for its thread instead of each making one");
            assertEquals(1, asked.get(), "a pass that gave up is taken off the queue: the library is asked once");
        } finally {
            never.countDown();
        }
    }

    @Test
    void aScopeThatThrowsIsAFailureNotAnException() {
        ProbeResult r = new NvmlProbe(() -> {
            throw new IllegalStateException("boom");
        }, Duration.ofSeconds(5)).probe(io.gpudetect.source.LiveSource.of(Duration.ofSeconds(1)));
        assertEquals(ProbeResult.Outcome.FAILED, r.outcome());
        assertTrue(r.diagnostics().stream().map(Diagnostic::message).collect(Collectors.joining()).contains("boom"));
    }
}
