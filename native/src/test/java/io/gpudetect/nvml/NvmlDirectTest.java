package io.gpudetect.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Pointer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pulse's calls through JNA's direct mapping ({@link NvmlDirect}) answer as the same calls through JNA's
 * {@code Function} do, each library its own; a library that lacks one of their symbols keeps {@code Function}.
 */
class NvmlDirectTest {

    @TempDir
    Path dir;

    private static NvmlLibrary open(Path root) throws NvmlUnavailableException {
        return NvmlLibrary.open(List.of(root.resolve("usr/lib64/libnvidia-ml.so.1").toString()));
    }

    private static void inject(Path root, String line) throws Exception {
        Files.writeString(root.resolve("usr/lib64/fake-nvml-events"), line + "\n", StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    /**
     * Every answer of the pulse's calls, as compared: handles by their outcome (an address means nothing across two
     * copies of the library), every other call whole (its symbol, code, text and value), each copy's folder as ROOT.
     */
    private static List<String> answers(NvmlLibrary lib, Path root) {
        List<String> all = new ArrayList<>();
        for (Object answer : answers(lib)) {
            all.add(answer.toString().replace(root.toString(), "ROOT"));
        }
        return all;
    }

    private static List<Object> answers(NvmlLibrary lib) {
        List<Object> all = new ArrayList<>();
        NvmlCall<Integer> count = lib.deviceCount();
        all.add(count);
        for (int i = 0; count.ok() && i < count.value(); i++) {
            NvmlCall<NvmlDevice> handle = lib.deviceHandle(i);
            all.add(handle.outcome());
            if (!handle.ok()) {
                continue;
            }
            NvmlDevice d = handle.value();
            all.add(lib.uuid(d));
            all.add(lib.migMode(d));
            all.add(lib.eccMode(d));
            all.add(lib.eccUncorrectedAggregate(d));
            all.add(lib.eccUncorrectedVolatile(d));
            all.add(lib.retiredPagesPending(d));
            all.add(lib.remappedRows(d));
            all.add(lib.clocksEventReasons(d));
            for (int j = 0; j < 8; j++) {
                all.add(lib.migDeviceHandle(d, j).outcome());
            }
        }
        all.add(lib.driverVersion());
        return all;
    }

    @Test
    void aHeldLibrarysPulseCallsGoDirectlyAndAnswerAsThroughJnaFunctions() throws Exception {
        for (String scenario : List.of("health", "8xa100-mig", "v100-pages")) {
            Path direct = FakeNvml.driverRoot(dir.resolve(scenario + "-direct"), "current", scenario);
            Path function = FakeNvml.driverRoot(dir.resolve(scenario + "-function"), "current", scenario);
            NvmlLibrary a = open(direct);
            NvmlLibrary b = open(function);
            assertTrue(a.init().ok() && b.init().ok());
            assertTrue(a.callDirectly(), "a current library exports every symbol of the pulse's calls");
            assertEquals(answers(b, function), answers(a, direct), scenario);

            // What changes while a session is held: a count moving alone, a new error, the last GPU lost.
            int last = a.deviceCount().get() - 1;
            for (String line : List.of("lifetime 0 5", "dbe 0", "lost " + last)) {
                inject(direct, line);
                inject(function, line);
            }
            List<String> changed = answers(a, direct);
            assertEquals(answers(b, function), changed, scenario + " after errors and a lost GPU");
            assertTrue(changed.contains(NvmlCall.failure("nvmlDeviceGetUUID", NvmlReturn.ERROR_GPU_IS_LOST,
                    b.errorString(NvmlReturn.ERROR_GPU_IS_LOST)).toString()), "GPU " + last + " is lost: " + changed);
        }
    }

    @Test
    void anEventWaitAnswersDirectlyAsThroughJnaFunctions() throws Exception {
        Path direct = FakeNvml.driverRoot(dir.resolve("direct"), "current", "h100");
        Path function = FakeNvml.driverRoot(dir.resolve("function"), "current", "h100");
        List<NvmlEvent> events = new ArrayList<>();
        List<String> timeouts = new ArrayList<>();
        for (Path root : List.of(direct, function)) {
            NvmlLibrary lib = open(root);
            assertTrue(lib.init().ok());
            if (root == direct) {
                assertTrue(lib.callDirectly());
            }
            NvmlDevice gpu = lib.deviceHandle(0).get();
            Pointer set = lib.eventSetCreate().get();
            assertTrue(lib.registerEvents(gpu, NvmlEvent.DOUBLE_BIT_ECC, set).ok());
            com.sun.jna.Memory data = NvmlLibrary.eventData();
            NvmlCall<NvmlEvent> none = lib.eventSetWait(set, 0, data);
            timeouts.add(none.function() + " " + none.returnCode());
            inject(root, "dbe 0");
            NvmlEvent e = lib.eventSetWait(set, 2000, data).get();
            assertEquals(gpu, e.device(), "the event names the library's own handle");
            events.add(new NvmlEvent(null, e.type(), e.data()));
            assertTrue(lib.eventSetFree(set).ok());
        }
        assertEquals(List.of("nvmlEventSetWait_v2 " + NvmlReturn.ERROR_TIMEOUT,
                "nvmlEventSetWait_v2 " + NvmlReturn.ERROR_TIMEOUT), timeouts);
        assertEquals(events.get(1), events.get(0));
        assertEquals(NvmlEvent.DOUBLE_BIT_ECC, events.get(0).type());
    }

    /**
     * JNA binds a class's native methods for the whole JVM: two libraries bound through one class would both call the
     * one bound last. Each library's copy of the class keeps its own.
     */
    @Test
    void twoLibrariesHeldSideBySideEachAnswerForThemselves() throws Exception {
        Path one = FakeNvml.driverRoot(dir.resolve("one"), "current", "h100");
        Path eight = FakeNvml.driverRoot(dir.resolve("eight"), "current", "8xa100-mig");
        NvmlLibrary a = open(one);
        assertTrue(a.init().ok() && a.callDirectly());
        assertEquals(1, a.deviceCount().get());
        NvmlLibrary b = open(eight);
        assertTrue(b.init().ok() && b.callDirectly());
        assertEquals(8, b.deviceCount().get());
        assertEquals(1, a.deviceCount().get(), "the first library still answers for itself");
        inject(one, "lost 0");
        assertEquals(NvmlReturn.ERROR_GPU_IS_LOST, a.uuid(a.deviceHandle(0).get()).returnCode());
        assertTrue(b.uuid(b.deviceHandle(0).get()).ok(), "a GPU lost in one library is not lost in the other");
    }

    /** The old library has no {@code _v2} symbols and no MIG calls: its calls stay with JNA's Function, as before. */
    @Test
    void aLibraryWithoutTheNewerSymbolsKeepsItsCallsAsBefore() throws Exception {
        Path old = FakeNvml.driverRoot(dir.resolve("old"), "old", "h100");
        Path reference = FakeNvml.driverRoot(dir.resolve("old-reference"), "old", "h100");
        NvmlLibrary lib = open(old);
        assertTrue(lib.init().ok());
        assertFalse(lib.callDirectly(), "it lacks nvmlDeviceGetCount_v2 and the MIG calls");
        NvmlCall<Integer> count = lib.deviceCount();
        assertEquals("nvmlDeviceGetCount", count.function());
        NvmlDevice gpu = lib.deviceHandle(0).get();
        NvmlCall<NvmlSnapshot.Modes> mig = lib.migMode(gpu);
        assertEquals(NvmlReturn.ERROR_FUNCTION_NOT_FOUND, mig.returnCode(), "a missing call is a missing fact");
        assertEquals("nvmlDeviceGetMigMode", mig.function());
        NvmlLibrary unbound = open(reference);
        assertTrue(unbound.init().ok());
        assertEquals(answers(unbound, reference), answers(lib, old));
    }
}
