package io.gpudetect.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The event watcher against the stand-in NVML: events injected through its control file while the watcher waits. */
class NvmlEventWatcherXidTest {

    @TempDir
    Path dir;

    /** What the listener heard, in order. */
    private final BlockingQueue<Object> heard = new LinkedBlockingQueue<>();

    private final NvmlEventWatcher.Listener listener = new NvmlEventWatcher.Listener() {
        @Override
        public void event(NvmlEventWatcher.HealthEvent event) {
            heard.add(event);
        }

        @Override
        public void armed(int gpus, List<String> notes) {
            heard.add("armed " + gpus + " " + notes);
        }

        @Override
        public void unsupported(String why) {
            heard.add("unsupported " + why);
        }

        @Override
        public void interrupted(String why) {
            heard.add("interrupted " + why);
        }
    };

    private Object next() throws InterruptedException {
        Object o = heard.poll(5, TimeUnit.SECONDS);
        assertNotNull(o, "nothing heard within 5 s");
        return o;
    }

    private void inject(String line) throws Exception {
        Files.writeString(dir.resolve("usr/lib64/fake-nvml-events"), line + "\n", StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    /** Both the _v2 wait and the unversioned one of an old library carry the device, the type and the Xid. */
    @ParameterizedTest
    @ValueSource(strings = {"current", "old"})
    void anXidReachesTheListenerAtOnce(String variant) throws Exception {
        Path root = FakeNvml.driverRoot(dir, variant, "mixed");
        try (NvmlEventWatcher w = NvmlEventWatcher.start(Optional.of(root), listener, 30_000, 100)) {
            assertEquals("armed 3 []", next());
            long start = System.nanoTime();
            inject("xid 1 79");
            NvmlEventWatcher.HealthEvent e = (NvmlEventWatcher.HealthEvent) next();
            long us = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
            long ms = us / 1000;
            System.out.println("XID " + variant + ": control file written to listener called in " + us + " us");
            assertTrue(e.xid());
            assertEquals(79, e.data());
            assertEquals(1, e.index());
            assertEquals(0x41, e.pciBus());
            assertTrue(ms < 1000, "the wait woke " + ms + " ms after the event");
            inject("dbe 2");
            NvmlEventWatcher.HealthEvent dbe = (NvmlEventWatcher.HealthEvent) next();
            assertTrue(dbe.doubleBitEcc());
            assertEquals(2, dbe.index());
            assertNull(heard.poll(200, TimeUnit.MILLISECONDS), "one event each");
        }
    }

    /** The RTX 4090 of the mixed host has no ECC: it is registered for Xids alone, and an ECC line for it is no event. */
    @Test
    void aGpuWithoutEccGetsNoEccEvents() throws Exception {
        Path root = FakeNvml.driverRoot(dir, "current", "mixed");
        try (NvmlEventWatcher w = NvmlEventWatcher.start(Optional.of(root), listener, 30_000, 100)) {
            assertEquals("armed 3 []", next());
            inject("dbe 1");
            inject("xid 1 48");
            NvmlEventWatcher.HealthEvent e = (NvmlEventWatcher.HealthEvent) next();
            assertEquals(48, e.data());
            assertTrue(e.xid());
        }
    }

    @Test
    void noEventsIsSaidOnceAndTheWatcherEnds() throws Exception {
        Path root = FakeNvml.driverRoot(dir, "current", "h100-noevents");
        NvmlEventWatcher w = NvmlEventWatcher.start(Optional.of(root), listener, 30_000, 100);
        assertEquals("unsupported nvmlEventSetCreate returned NVML_ERROR_NOT_SUPPORTED", next());
        w.close();
        for (int i = 0; i < 50 && w.running(); i++) {
            Thread.sleep(20);
        }
        assertFalse(w.running());
        assertNull(heard.poll(200, TimeUnit.MILLISECONDS));
    }
}
