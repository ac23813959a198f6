package io.gpudetect.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The JNA bindings against a real compiled shared library (the fake), so struct layouts and symbol fallbacks are exercised. */
class JnaNvmlScopeTest {

    private static final long MIB = 1024L * 1024L;

    @TempDir
    Path dir;

    private NvmlSnapshot snapshot(String variant, String scenario) throws IOException {
        return new JnaNvmlScope(Optional.of(FakeNvml.driverRoot(dir, variant, scenario)), JnaNvmlScope.Session.PER_SNAPSHOT).snapshot();
    }

    @Test
    void readsOneH100ThroughTheNewestSymbols() throws Exception {
        NvmlSnapshot s = snapshot("current", "h100");

        assertEquals(dir.resolve("usr/lib64/libnvidia-ml.so.1").toRealPath().toString(), Path.of(s.library()).toRealPath().toString());
        assertEquals("nvmlInit_v2", s.init().function());
        assertEquals("550.54.15", s.driverVersion().get());
        assertEquals("12.550.54.15", s.nvmlVersion().get());
        assertEquals(12040, s.cudaDriverVersion().get());
        assertEquals("nvmlSystemGetCudaDriverVersion_v2", s.cudaDriverVersion().function());
        assertEquals("nvmlDeviceGetCount_v2", s.deviceCount().function());
        assertEquals(1, s.devices().size());
        NvmlSnapshot.Device d = s.devices().get(0);
        assertEquals("nvmlDeviceGetHandleByIndex_v2", d.handle().function());
        assertEquals("NVIDIA H100 80GB HBM3", d.name().get());
        assertTrue(d.uuid().get().matches("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), d.uuid().value());
        assertEquals("nvmlDeviceGetPciInfo_v3", d.pci().function());
        assertEquals(new NvmlSnapshot.Pci("00000000:18:00.0", 0, 0x18, 0, "233010de", "16c110de"), d.pci().get());
        assertEquals("nvmlDeviceGetMemoryInfo_v2", d.memory().function());
        assertEquals(new NvmlSnapshot.Memory(81559 * MIB, 328 * MIB), d.memory().get());
        assertEquals(new NvmlSnapshot.ComputeCapability(9, 0), d.computeCapability().get());
        assertEquals(9L, d.architecture().get());
        assertEquals(14L, d.brand().get());
        assertEquals(700000L, d.powerLimitMilliwatts().get());
        assertEquals(new NvmlSnapshot.Modes(true, true), d.eccMode().get());
        assertEquals(0L, d.eccUncorrectedAggregate().get());
        assertEquals(new NvmlSnapshot.Modes(false, false), d.migMode().get());
        assertTrue(d.migDevices().isEmpty());
        assertTrue(s.shutdown().ok(), "every init is paired with a shutdown");
    }

    @Test
    void enumeratesMigDevicesOnlyWhereMigIsOn() throws Exception {
        NvmlSnapshot s = snapshot("current", "8xa100-mig");

        assertEquals(8, s.devices().size());
        List<Integer> buses = s.devices().stream().map(d -> d.pci().value().bus()).toList();
        assertEquals(List.of(0x07, 0x0f, 0x47, 0x4e, 0x87, 0x90, 0xb7, 0xbd), buses);
        NvmlSnapshot.Device first = s.devices().get(0);
        assertEquals(7, first.maxMigDevices().get());
        assertEquals(7, first.migDevices().size());
        NvmlSnapshot.MigDevice slice = first.migDevices().get(2);
        assertEquals("NVIDIA A100-SXM4-80GB MIG 1g.10gb", slice.name().get());
        assertTrue(slice.uuid().get().startsWith("MIG-"));
        assertEquals(9L, slice.gpuInstanceId().get());
        assertEquals(0L, slice.computeInstanceId().get());
        assertEquals(9728 * MIB, slice.memory().get().total());
        assertEquals(14L, slice.multiprocessors().get());
        assertEquals(List.of(1L, 2L), s.devices().get(1).migDevices().stream().map(m -> m.gpuInstanceId().value()).toList());
        NvmlSnapshot.Device pendingOnly = s.devices().get(2);
        assertEquals(new NvmlSnapshot.Modes(false, true), pendingOnly.migMode().get());
        assertNull(pendingOnly.maxMigDevices(), "no MIG enumeration while MIG is off");
        assertTrue(pendingOnly.migDevices().isEmpty());
    }

    @Test
    void unsupportedFeaturesAreReturnCodesNotFailures() throws Exception {
        NvmlSnapshot s = snapshot("current", "mixed");

        NvmlSnapshot.Device rtx = s.devices().get(1);
        assertEquals("NVIDIA GeForce RTX 4090", rtx.name().get());
        assertEquals(NvmlReturn.ERROR_NOT_SUPPORTED, rtx.eccMode().returnCode());
        assertEquals("Not Supported", rtx.eccMode().error());
        assertNull(rtx.eccUncorrectedAggregate(), "no ECC counter read where ECC is unsupported");
        assertEquals(NvmlReturn.ERROR_NOT_SUPPORTED, rtx.migMode().returnCode());
        assertEquals("268410de", rtx.pci().value().pciDeviceId());
        assertEquals("40bf1458", rtx.pci().value().pciSubSystemId());
        NvmlSnapshot.Device a100 = s.devices().get(2);
        assertEquals(1L, a100.pci().value().domain());
        assertEquals("00000001:81:00.0", a100.pci().value().busId());
        assertEquals(3L, a100.eccUncorrectedAggregate().get());
    }

    @Test
    void aLostGpuDoesNotHideTheOthers() throws Exception {
        NvmlSnapshot s = snapshot("current", "lost");

        assertEquals(4, s.devices().size());
        NvmlSnapshot.Device lost = s.devices().get(1);
        assertTrue(lost.handle().ok());
        assertEquals(NvmlReturn.ERROR_GPU_IS_LOST, lost.name().returnCode());
        assertEquals("GPU is lost", lost.name().error());
        NvmlException e = assertThrows(NvmlException.class, () -> lost.memory().get());
        assertEquals(NvmlReturn.ERROR_GPU_IS_LOST, e.returnCode());
        assertTrue(e.getMessage().contains("NVML_ERROR_GPU_IS_LOST (GPU is lost)"), e.getMessage());
        assertEquals(0x3b, lost.pci().get().bus(), "the address is still known");
        NvmlSnapshot.Device noHandle = s.devices().get(3);
        assertEquals(NvmlReturn.ERROR_UNKNOWN, noHandle.handle().returnCode());
        assertEquals("Unknown Error", noHandle.handle().error());
        assertNull(noHandle.name());
        assertEquals("NVIDIA H100 80GB HBM3", s.devices().get(2).name().get());
        assertTrue(s.shutdown().ok());
    }

    @Test
    void anOldLibraryAnswersThroughTheUnversionedSymbols() throws Exception {
        NvmlSnapshot s = snapshot("old", "h100");

        assertEquals("nvmlInit", s.init().function());
        assertEquals("nvmlSystemGetCudaDriverVersion", s.cudaDriverVersion().function());
        assertEquals(10010, s.cudaDriverVersion().get());
        assertEquals("nvmlDeviceGetCount", s.deviceCount().function());
        NvmlSnapshot.Device d = s.devices().get(0);
        assertEquals("nvmlDeviceGetHandleByIndex", d.handle().function());
        assertEquals("nvmlDeviceGetPciInfo", d.pci().function());
        // The v1 struct: bus id in the first 16 bytes, ids at the same offsets as in v3.
        assertEquals(new NvmlSnapshot.Pci("0000:18:00.0", 0, 0x18, 0, "233010de", "16c110de"), d.pci().get());
        assertEquals("nvmlDeviceGetMemoryInfo", d.memory().function());
        assertEquals(new NvmlSnapshot.Memory(81559 * MIB, null), d.memory().get());
        assertEquals(NvmlReturn.ERROR_FUNCTION_NOT_FOUND, d.architecture().returnCode());
        assertEquals("nvmlDeviceGetArchitecture", d.architecture().function());
        assertEquals(NvmlReturn.ERROR_FUNCTION_NOT_FOUND, d.migMode().returnCode());
        assertEquals(new NvmlSnapshot.ComputeCapability(9, 0), d.computeCapability().get());
    }

    @ParameterizedTest(name = "nvmlInit returns {0}")
    @CsvSource({
            "9, NVML_ERROR_DRIVER_NOT_LOADED, Driver Not Loaded",
            "4, NVML_ERROR_NO_PERMISSION, Insufficient Permissions",
            "18, NVML_ERROR_LIB_RM_VERSION_MISMATCH, RM has detected an NVML/RM version mismatch.",
            "12, NVML_ERROR_LIBRARY_NOT_FOUND, NVML Shared Library Not Found",
            "999, NVML_ERROR_UNKNOWN, Unknown Error"})
    void aFailingInitIsRecordedWithItsCode(int code, String name, String text) throws Exception {
        NvmlSnapshot s = snapshot("current", "init-error-" + code);

        assertEquals(code, s.init().returnCode());
        assertEquals(name, s.init().status());
        assertEquals(text, s.init().error());
        assertNull(s.deviceCount());
        assertTrue(s.devices().isEmpty());
        NvmlException e = assertThrows(NvmlException.class, () -> s.init().get());
        assertEquals("nvmlInit_v2 returned " + name + " (" + text + ")", e.getMessage());
    }

    @Test
    void aScopeCanBeAskedAgainAfterShutdown() throws Exception {
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(FakeNvml.driverRoot(dir, "current", "mixed")), JnaNvmlScope.Session.PER_SNAPSHOT);
        NvmlSnapshot first = scope.snapshot();
        NvmlSnapshot second = scope.snapshot();

        assertEquals(3, first.devices().size());
        assertEquals(first, second);
    }

    @Test
    void aMissingLibraryIsUnavailableWithWhereItWasLooked() {
        Path nowhere = dir.resolve("driver");
        NvmlUnavailableException e = assertThrows(NvmlUnavailableException.class,
                () -> NvmlLibrary.open(List.of(nowhere.resolve("usr/lib64/libnvidia-ml.so.1").toString())));
        assertTrue(e.getMessage().contains("libnvidia-ml.so.1 not found"), e.getMessage());
        assertTrue(e.getMessage().contains(nowhere.resolve("usr/lib64").toString()), e.getMessage());
    }

    @Test
    void aFileThatIsNotALibraryIsReportedNotThrown() throws Exception {
        Path fake = dir.resolve("libnvidia-ml.so.1");
        Files.writeString(fake, "not an ELF file");
        NvmlUnavailableException e = assertThrows(NvmlUnavailableException.class,
                () -> NvmlLibrary.open(List.of(fake.toString())));
        assertTrue(e.getMessage().contains(fake.toString() + ": "), e.getMessage());
    }

    @Test
    void aRelativeDriverRootIsFoundFromTheWorkingFolder() throws Exception {
        Path relative = Path.of("").toAbsolutePath().relativize(FakeNvml.driverRoot(dir, "current", "h100"));
        assertFalse(relative.isAbsolute());

        NvmlSnapshot s = new JnaNvmlScope(Optional.of(relative), JnaNvmlScope.Session.PER_SNAPSHOT).snapshot();

        assertNull(s.unavailable());
        assertEquals(dir.resolve("usr/lib64/libnvidia-ml.so.1").toRealPath(), Path.of(s.library()).toRealPath());
        assertEquals("NVIDIA H100 80GB HBM3", s.devices().get(0).name().get());
    }

    @Test
    void theDriverRootIsSearchedBeforeTheSystem() {
        List<String> c = NvmlLocator.candidates(Optional.of(Path.of("/run/nvidia/driver")));
        assertEquals("/run/nvidia/driver/usr/lib64/libnvidia-ml.so.1", c.get(0));
        assertTrue(c.indexOf("libnvidia-ml.so.1") > c.indexOf("/run/nvidia/driver/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"));
        assertFalse(NvmlLocator.candidates(Optional.empty()).get(0).startsWith("/run"));
    }

    /** The stand-in's own count of outstanding inits (not an NVML call). */
    private static int initCount(Path driverRoot) {
        return com.sun.jna.NativeLibrary.getInstance(driverRoot.resolve("usr/lib64/libnvidia-ml.so.1").toString())
                .getFunction("fakeNvmlInitCount").invokeInt(new Object[0]);
    }

    @Test
    void aHeldSessionStaysInitialisedBetweenSnapshotsAndAnotherSessionDoesNot() throws Exception {
        Path held = FakeNvml.driverRoot(dir.resolve("held"), "current", "h100");
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(held), JnaNvmlScope.Session.HELD);
        assertEquals(1, scope.snapshot().devices().size());
        assertEquals(1, initCount(held), "the session's own init outlives the snapshot");
        NvmlSnapshot again = scope.snapshot();
        assertTrue(again.init().ok() && again.shutdown().ok(), "a snapshot still pairs its own init and shutdown");
        assertEquals(1, initCount(held), "and takes no second hold");

        Path perSnapshot = FakeNvml.driverRoot(dir.resolve("per-snapshot"), "current", "h100");
        new JnaNvmlScope(Optional.of(perSnapshot), JnaNvmlScope.Session.PER_SNAPSHOT).snapshot();
        assertEquals(0, initCount(perSnapshot));
    }

    @Test
    void aSessionUntilExitNeverShutsDown() throws Exception {
        Path root = FakeNvml.driverRoot(dir.resolve("until-exit"), "current", "h100");
        NvmlSnapshot s = new JnaNvmlScope(Optional.of(root), JnaNvmlScope.Session.UNTIL_EXIT).snapshot();
        assertEquals(1, s.devices().size());
        assertTrue(s.init().ok());
        assertNull(s.shutdown(), "no shutdown was called, so the snapshot shows none");
        assertEquals(1, initCount(root), "the init is left for the process's exit");
    }

    @Test
    void aHeldSessionIsGivenUpWhenAGpuIsLost() throws Exception {
        Path lost = FakeNvml.driverRoot(dir.resolve("lost"), "current", "lost");
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(lost), JnaNvmlScope.Session.HELD);
        scope.snapshot();
        assertEquals(0, initCount(lost), "the next snapshot starts on whatever driver is there then");
    }

    /** The steady pass compares pulses: the few calls of a held session must see what a whole snapshot shows. */
    @ParameterizedTest
    @CsvSource({"h100", "8xa100-mig", "mixed", "empty"})
    void aHeldSessionsPulseIsTheOneItsSnapshotShows(String scenario) throws Exception {
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(FakeNvml.driverRoot(dir, "current", scenario)),
                JnaNvmlScope.Session.HELD);
        NvmlSnapshot snapshot = scope.snapshot();
        NvmlPulse pulse = scope.pulse();
        assertEquals(NvmlPulse.of(snapshot), pulse);
        assertNull(pulse.problem());
        assertEquals(snapshot.devices().size(), pulse.devices().size());
    }

    private static int maxMigDeviceCountCalls(Path driverRoot) {
        return com.sun.jna.NativeLibrary.getInstance(driverRoot.resolve("usr/lib64/libnvidia-ml.so.1").toString())
                .getFunction("fakeNvmlMaxMigDeviceCountCalls").invokeInt(new Object[0]);
    }

    @Test
    void aHeldSessionAsksAGpuItsMostMigDevicesOnceForAllItsPulses() throws Exception {
        Path root = FakeNvml.driverRoot(dir, "current", "8xa100-mig");
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(root), JnaNvmlScope.Session.HELD);
        NvmlSnapshot snapshot = scope.snapshot();
        long migOn = snapshot.devices().stream().filter(d -> d.migMode().ok() && d.migMode().value().current()).count();
        int before = maxMigDeviceCountCalls(root);

        NvmlPulse first = scope.pulse();
        int afterFirst = maxMigDeviceCountCalls(root);
        for (int pass = 0; pass < 3; pass++) {
            assertEquals(first, scope.pulse(), "later pulses see what the first saw");
        }

        assertTrue(migOn > 0, "the scenario has GPUs in MIG mode");
        assertEquals(migOn, afterFirst - before, "the first pulse asks each GPU in MIG mode");
        assertEquals(afterFirst, maxMigDeviceCountCalls(root), "and the pulses after it ask none again");
        assertEquals(NvmlPulse.of(snapshot), first);
    }

    private static int modeCalls(Path driverRoot) {
        return com.sun.jna.NativeLibrary.getInstance(driverRoot.resolve("usr/lib64/libnvidia-ml.so.1").toString())
                .getFunction("fakeNvmlModeCalls").invokeInt(new Object[0]);
    }

    @Test
    void aHeldSessionsPulseAsksTheModesOfOneGpuAndASnapshotOfEvery() throws Exception {
        Path root = FakeNvml.driverRoot(dir, "current", "8xa100-mig");
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(root), JnaNvmlScope.Session.HELD);
        int start = modeCalls(root);
        NvmlSnapshot snapshot = scope.snapshot();
        assertEquals(8, snapshot.devices().size());
        assertEquals(16, modeCalls(root) - start, "a snapshot reads every GPU's MIG and ECC mode");
        for (int pass = 0; pass < 10; pass++) {
            int before = modeCalls(root);
            assertEquals(NvmlPulse.of(snapshot), scope.pulse(), "the known modes are the snapshot's");
            assertEquals(2, modeCalls(root) - before, "a pulse reads the MIG and ECC mode of one GPU");
        }
        int beforeSecond = modeCalls(root);
        scope.snapshot();
        assertEquals(16, modeCalls(root) - beforeSecond, "and the next snapshot every GPU's again");
    }

    private static int fakeCounter(Path driverRoot, String counter) {
        return com.sun.jna.NativeLibrary.getInstance(driverRoot.resolve("usr/lib64/libnvidia-ml.so.1").toString())
                .getFunction(counter).invokeInt(new Object[0]);
    }

    /**
     * The stand-in's A100s remap rows and retire no pages (NVML: Not Supported, as on an H100): a held session's pulse
     * asks every GPU's rows, and the pages only of the GPU whose turn it is; and after its first failure of a kind it
     * asks no error text again. The pulse reads as the snapshot does.
     */
    @Test
    void aHeldSessionsPulseTakesAMemoryRepairCallAGpuDoesNotSupportAsKnownUntilItsTurn() throws Exception {
        Path root = FakeNvml.driverRoot(dir, "current", "8xa100-mig");
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(root), JnaNvmlScope.Session.HELD);
        int start = fakeCounter(root, "fakeNvmlMemoryRepairCalls");
        NvmlSnapshot snapshot = scope.snapshot();
        assertEquals(16, fakeCounter(root, "fakeNvmlMemoryRepairCalls") - start, "a snapshot asks both of every GPU");
        assertTrue(snapshot.devices().stream().allMatch(d -> d.retiredPagesPending().returnCode()
                == NvmlReturn.ERROR_NOT_SUPPORTED && d.remappedRows().ok()), "A100s: rows, no pages");
        scope.pulse();
        int errorTexts = fakeCounter(root, "fakeNvmlErrorStringCalls");
        for (int pass = 0; pass < 10; pass++) {
            int before = fakeCounter(root, "fakeNvmlMemoryRepairCalls");
            assertEquals(NvmlPulse.of(snapshot), scope.pulse(), "pages rc=3 and the rows as the snapshot read them");
            assertEquals(9, fakeCounter(root, "fakeNvmlMemoryRepairCalls") - before,
                    "eight GPUs' rows and the pages of the one whose turn it is");
        }
        assertEquals(errorTexts, fakeCounter(root, "fakeNvmlErrorStringCalls"),
                "the empty MIG slots' Not Found and the pages' Not Supported: their texts are known");
    }

    /**
     * A pulse equal to the last is that very object, so that the steady pass's comparison ends at once; one GPU's
     * double-bit ECC error makes the next pulse differ in that GPU's health, and the other GPUs are the last pulse's.
     */
    @Test
    void aHeldSessionsUnchangedPulseIsTheLastOneAndAChangedGpuIsSeenAtTheNext() throws Exception {
        Path root = FakeNvml.driverRoot(dir, "current", "8xa100-mig");
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(root), JnaNvmlScope.Session.HELD);
        NvmlSnapshot snapshot = scope.snapshot();
        NvmlPulse first = scope.pulse();
        assertEquals(NvmlPulse.of(snapshot), first);
        for (int pass = 0; pass < 3; pass++) {
            assertSame(first, scope.pulse(), "nothing changed");
        }

        Files.writeString(root.resolve("usr/lib64/fake-nvml-events"), "dbe 3\n");
        NvmlPulse after = scope.pulse();
        assertNotEquals(first, after);
        assertEquals("ecc=1 pages=rc=3 rows=0/0/false/false slowdown=0", after.devices().get(3).health());
        assertEquals("ecc=0 pages=rc=3 rows=0/0/false/false slowdown=0", first.devices().get(3).health());
        for (int i = 0; i < 8; i++) {
            if (i != 3) {
                assertSame(first.devices().get(i), after.devices().get(i), "GPU " + i + " is as it was");
            }
        }
        assertEquals(NvmlPulse.of(scope.snapshot()), after, "as a snapshot reads it");
        assertSame(after, scope.pulse(), "and the pulse after it is the same again");
    }

    /** NVML's current mode changes with nothing else it shows changing: the pulse sees it when the GPU's turn comes. */
    @ParameterizedTest
    @CsvSource({"mig 2 1 1, 2, true/true, migMode", "mig 0 1 0, 0, true/false, migMode", "ecc 5 0 0, 5, false/false, eccMode",
            "ecc 7 1 0, 7, true/false, eccMode"})
    void aModeThatChangesAloneIsSeenWithinAsManyPulsesAsTheHostHasGpus(String injected, int gpu, String now, String mode)
            throws Exception {
        Path root = FakeNvml.driverRoot(dir, "current", "8xa100-mig");
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(root), JnaNvmlScope.Session.HELD);
        NvmlPulse before = NvmlPulse.of(scope.snapshot());
        java.util.function.Function<NvmlPulse, String> read = p -> mode.equals("migMode")
                ? p.devices().get(gpu).migMode() : p.devices().get(gpu).eccMode();
        assertFalse(now.equals(read.apply(before)), before.toString());
        // Some pulses first, so that the change lands anywhere in the turn.
        for (int pass = 0; pass < gpu + 3; pass++) {
            assertEquals(before, scope.pulse());
        }

        Files.writeString(root.resolve("usr/lib64/fake-nvml-events"), injected + "\n");
        int pulses = 0;
        NvmlPulse pulse;
        do {
            pulse = scope.pulse();
            pulses++;
        } while (!now.equals(read.apply(pulse)) && pulses < 20);
        assertEquals(now, read.apply(pulse), "not seen in 20 pulses");
        assertTrue(pulses <= 8, "seen at pulse " + pulses + ", not within 8 (one a GPU)");
        for (int pass = 0; pass < 8; pass++) {
            assertEquals(now, read.apply(scope.pulse()), "and kept");
        }
        assertEquals(now, read.apply(NvmlPulse.of(scope.snapshot())), "as a snapshot reads it");
    }

    @Test
    void aPulseWhereAGpuIsLostDiffersAndGivesTheSessionUp() throws Exception {
        Path lost = FakeNvml.driverRoot(dir, "current", "lost");
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(lost), JnaNvmlScope.Session.HELD);
        NvmlPulse pulse = NvmlPulse.of(scope.snapshot());
        assertTrue(pulse.devices().stream().anyMatch(d -> ("rc=" + NvmlReturn.ERROR_GPU_IS_LOST).equals(d.uuid())
                || !"ok".equals(d.handle())), pulse.toString());
        assertEquals(0, initCount(lost));
    }

    /**
     * A held session's pulse asks the handle and UUID of the GPU whose turn it is and holds the others' (old code: 16
     * a pulse on eight GPUs); a GPU lost between two pulses still shows in the next, as its UUID's GPU_IS_LOST, and the
     * session is given up in that pulse.
     */
    @Test
    void aHeldSessionsPulseAsksHandleAndUuidOfOneGpuAndALostGpuStillShowsInTheNextPulse() throws Exception {
        Path root = FakeNvml.driverRoot(dir, "current", "8xa100-mig");
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(root), JnaNvmlScope.Session.HELD);
        NvmlSnapshot snapshot = scope.snapshot();
        NvmlPulse first = scope.pulse(); // after a snapshot every GPU's handle and UUID are asked again
        assertEquals(NvmlPulse.of(snapshot), first);
        for (int pass = 0; pass < 10; pass++) {
            int before = fakeCounter(root, "fakeNvmlIdentityCalls");
            assertSame(first, scope.pulse(), "nothing changed");
            assertEquals(2, fakeCounter(root, "fakeNvmlIdentityCalls") - before, "the turn's GPU's handle and UUID");
        }

        Files.writeString(root.resolve("usr/lib64/fake-nvml-events"), "lost 5\n");
        NvmlPulse lost = scope.pulse();
        assertEquals("rc=" + NvmlReturn.ERROR_GPU_IS_LOST, lost.devices().get(5).uuid(), lost.toString());
        assertEquals("ok", lost.devices().get(5).handle(), "NVML still gives the lost GPU's handle");
        // Read as before: a UUID its modes were not read with, so they are asked (and fail) too.
        assertEquals("rc=15", lost.devices().get(5).migMode());
        assertEquals("rc=15", lost.devices().get(5).eccMode());
        assertEquals("ecc=null pages=rc=15 rows=rc=15 slowdown=rc=15", lost.devices().get(5).health());
        for (int i = 0; i < 8; i++) {
            if (i != 5) {
                assertSame(first.devices().get(i), lost.devices().get(i), "GPU " + i + " is as it was");
            }
        }
        assertEquals(0, initCount(root), "the pulse that saw it gave the session up");
    }

    /**
     * The MIG slots of a GPU in MIG mode are walked at its turn and after a MIG configuration change event, which the
     * held session registers for: a pulse otherwise polls its event set once (old code: 14 slot calls a pulse on the
     * two MIG GPUs). A re-layout (GPU 1: two MIG devices to one, then three) shows in the next pulse whatever the turn.
     */
    @Test
    void aHeldSessionWalksMigSlotsAtTheTurnAndOnAMigConfigurationEvent() throws Exception {
        Path root = FakeNvml.driverRoot(dir, "current", "8xa100-mig");
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(root), JnaNvmlScope.Session.HELD);
        scope.snapshot();
        NvmlPulse first = scope.pulse();
        assertEquals(2, first.devices().get(1).migDevices());
        int walks = 0;
        for (int pass = 0; pass < 16; pass++) {
            int slots = fakeCounter(root, "fakeNvmlMigHandleCalls");
            int waits = fakeCounter(root, "fakeNvmlEventWaitCalls");
            assertSame(first, scope.pulse(), "nothing changed");
            int asked = fakeCounter(root, "fakeNvmlMigHandleCalls") - slots;
            assertTrue(asked == 0 || asked == 7, "no slot, or the seven of the turn's MIG GPU: " + asked);
            walks += asked / 7;
            assertEquals(1, fakeCounter(root, "fakeNvmlEventWaitCalls") - waits, "one poll of the event set");
        }
        assertEquals(4, walks, "GPUs 0 and 1 at their turn, twice in 16 pulses");

        for (int[] layout : new int[][] {{1, 1}, {1, 3}}) {
            Files.writeString(root.resolve("usr/lib64/fake-nvml-events"), "migs " + layout[0] + " " + layout[1] + "\n",
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            NvmlPulse after = scope.pulse();
            assertEquals(layout[1], after.devices().get(1).migDevices(), after.toString());
            assertEquals(NvmlPulse.of(scope.snapshot()), after, "as a snapshot reads it");
        }
    }

    /** Where the library gives no events, the MIG slots are walked at every pulse, as before. */
    @Test
    void withoutEventsAHeldSessionWalksMigSlotsAtEveryPulse() throws Exception {
        Path root = FakeNvml.driverRoot(dir, "current", "8xa100-mig-noevents");
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(root), JnaNvmlScope.Session.HELD);
        scope.snapshot();
        NvmlPulse first = scope.pulse();
        for (int pass = 0; pass < 4; pass++) {
            int slots = fakeCounter(root, "fakeNvmlMigHandleCalls");
            assertSame(first, scope.pulse());
            assertEquals(14, fakeCounter(root, "fakeNvmlMigHandleCalls") - slots, "both MIG GPUs' seven slots");
        }
        Files.writeString(root.resolve("usr/lib64/fake-nvml-events"), "migs 0 3\n");
        assertEquals(3, scope.pulse().devices().get(0).migDevices());
    }

    /**
     * The lifetime ECC count is asked at the GPU's turn and with a new error since the driver loaded (old code: every
     * GPU at every pulse): a double-bit error on GPU 3 shows in both counts at the next pulse; the lifetime count
     * changing alone is seen within as many pulses as the host has GPUs. The driver's version is asked once a round.
     */
    @Test
    void aHeldSessionAsksTheLifetimeEccCountAtTheTurnAndWithANewError() throws Exception {
        Path root = FakeNvml.driverRoot(dir, "current", "8xa100-mig");
        Path events = root.resolve("usr/lib64/fake-nvml-events");
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(root), JnaNvmlScope.Session.HELD);
        scope.snapshot();
        NvmlPulse first = scope.pulse();
        for (int pass = 0; pass < 8; pass++) {
            int before = fakeCounter(root, "fakeNvmlEccCountCalls");
            assertSame(first, scope.pulse());
            assertEquals(9, fakeCounter(root, "fakeNvmlEccCountCalls") - before,
                    "eight GPUs' count since the driver loaded and the turn's GPU's lifetime count");
        }

        Files.writeString(events, "dbe 3\n");
        int before = fakeCounter(root, "fakeNvmlEccCountCalls");
        NvmlPulse after = scope.pulse();
        assertEquals("1", after.devices().get(3).eccErrors(), after.toString());
        assertTrue(after.devices().get(3).health().startsWith("ecc=1 "));
        assertTrue(fakeCounter(root, "fakeNvmlEccCountCalls") - before >= 10, "GPU 3's lifetime count asked too");
        assertEquals(NvmlPulse.of(scope.snapshot()), after, "as a snapshot reads it");

        scope.pulse();
        Files.writeString(events, "lifetime 6 2\n", java.nio.file.StandardOpenOption.APPEND);
        int pulses = 0;
        NvmlPulse pulse;
        do {
            pulse = scope.pulse();
            pulses++;
        } while (!"2".equals(pulse.devices().get(6).eccErrors()) && pulses < 20);
        assertEquals("2", pulse.devices().get(6).eccErrors(), "not seen in 20 pulses");
        assertTrue(pulses <= 8, "seen at pulse " + pulses + ", not within 8 (one a GPU)");
        assertEquals(NvmlPulse.of(scope.snapshot()), pulse, "as a snapshot reads it");
    }
}
