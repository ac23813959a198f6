package io.gpudetect.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading host files under a {@link LiveSource} root: a file that never answers must not hold up a pass. */
class LiveSourceFileReadTest {

    private static final Duration READ_LIMIT = Duration.ofMillis(300);

    @TempDir
    Path root;

    private LiveSource source() {
        return new LiveSource(root, Duration.ofSeconds(5), LiveSource.DEFAULT_MAX_OUTPUT_BYTES, READ_LIMIT);
    }

    @Test
    void aFileThatBlocksOnReadGivesUpAtTheLimitNamingTheFile() throws Exception {
        Path dir = Files.createDirectories(root.resolve("sys/bus/pci/devices/0000:01:00.0"));
        Assumptions.assumeTrue(BundleSourceTest.mkfifo(dir.resolve("config")), "mkfifo is not available");
        LiveSource live = source();
        long start = System.nanoTime();
        IOException e = assertTimeoutPreemptively(Duration.ofSeconds(5),
                () -> assertThrows(IOException.class, () -> live.readFile("/sys/bus/pci/devices/0000:01:00.0/config")));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(e.getMessage().startsWith("/sys/bus/pci/devices/0000:01:00.0/config: no answer within 300 ms"),
                e.getMessage());
        assertTrue(ms >= 300 && ms < 3000, "gave up after " + ms + " ms");
        // The abandoned reader was let go: the same pipe blocks the next read the same way, no worse.
        assertThrows(IOException.class, () -> live.readFile("/sys/bus/pci/devices/0000:01:00.0/config"));
        // Bytes are read under the same limit.
        IOException bytes = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> assertThrows(IOException.class,
                () -> live.readBytes("/sys/bus/pci/devices/0000:01:00.0/config", 256)));
        assertTrue(bytes.getMessage().contains("no answer within 300 ms"), bytes.getMessage());
    }

    @Test
    void ordinaryFilesStillReadFast() throws Exception {
        Path dir = Files.createDirectories(root.resolve("sys/bus/pci/devices/0000:01:00.0"));
        for (int i = 0; i < 500; i++) {
            Files.writeString(dir.resolve("attr" + i), "0x10de\n");
        }
        LiveSource live = source();
        long start = System.nanoTime();
        for (int i = 0; i < 500; i++) {
            assertEquals(Optional.of("0x10de\n"), live.readFile("/sys/bus/pci/devices/0000:01:00.0/attr" + i));
        }
        long us = (System.nanoTime() - start) / 1000 / 500;
        start = System.nanoTime();
        for (int i = 0; i < 500; i++) {
            Files.readString(dir.resolve("attr" + i));
        }
        long direct = (System.nanoTime() - start) / 1000 / 500;
        // A sysfs pass reads a few hundred attributes: well under a millisecond each keeps it instant.
        assertTrue(us < 2000, us + " µs per file");
        System.out.println("LiveSource.readFile: " + us + " µs per small file; Files.readString: " + direct + " µs");
    }

    @Test
    void missingFilesAndFoldersAreEmptyNotErrors() throws Exception {
        Files.createDirectories(root.resolve("sys/class/kfd"));
        assertEquals(Optional.empty(), source().readFile("/sys/class/kfd"));
        assertEquals(Optional.empty(), source().readFile("/sys/nothing/here"));
    }

    @Test
    void foldersAreListedInOrderAndLinksReadAsTheyWere() throws Exception {
        // What the steady pass's fingerprint reads: the bus listed (sorted, unmodifiable, nothing for what is not a
        // folder), and each GPU's driver link (its target; nothing for a plain file, a folder or nothing there).
        Path bus = Files.createDirectories(root.resolve("sys/bus/pci/devices"));
        Files.createDirectories(root.resolve("sys/bus/pci/drivers/nvidia"));
        for (String f : new String[] {"0000:b7:00.0", "0000:07:00.0", "0000:0f:00.0", "0000:00:00.0"}) {
            Files.createDirectories(bus.resolve(f));
        }
        Files.createSymbolicLink(bus.resolve("0000:07:00.0/driver"), Path.of("../../../bus/pci/drivers/nvidia"));
        Files.writeString(bus.resolve("0000:0f:00.0/driver"), "not a link");
        LiveSource live = source();
        var listed = live.list("/sys/bus/pci/devices");
        assertEquals(java.util.List.of("0000:00:00.0", "0000:07:00.0", "0000:0f:00.0", "0000:b7:00.0"), listed);
        assertThrows(UnsupportedOperationException.class, () -> listed.add("0000:ff:00.0"));
        assertEquals(java.util.List.of(), live.list("/sys/bus/pci/devices/0000:0f:00.0/driver"), "a file");
        assertEquals(java.util.List.of(), live.list("/sys/bus/pci/nothing"));
        assertEquals(Optional.of("../../../bus/pci/drivers/nvidia"), live.readLink("/sys/bus/pci/devices/0000:07:00.0/driver"));
        assertEquals(Optional.empty(), live.readLink("/sys/bus/pci/devices/0000:0f:00.0/driver"), "a plain file");
        assertEquals(Optional.empty(), live.readLink("/sys/bus/pci/devices/0000:b7:00.0/driver"), "nothing there");
        assertEquals(Optional.empty(), live.readLink("/sys/bus/pci/devices/0000:b7:00.0"), "a folder");
    }

    @Test
    void aFolderListedAgainAnswersWhatItHoldsNowAndTheSameListWhileUnchanged() throws Exception {
        // Each folder's last listing is kept (LiveSource.list): an unchanged folder answers the very list of last time,
        // and any change, the count kept or not, is seen at the next listing.
        Path bus = Files.createDirectories(root.resolve("sys/bus/pci/devices"));
        Files.createDirectories(bus.resolve("0000:b7:00.0"));
        Files.createDirectories(bus.resolve("0000:07:00.0"));
        LiveSource live = source();
        var first = live.list("/sys/bus/pci/devices");
        assertEquals(List.of("0000:07:00.0", "0000:b7:00.0"), first);
        assertSame(first, live.list("/sys/bus/pci/devices"), "unchanged: the same list");

        Files.delete(bus.resolve("0000:b7:00.0"));
        Files.createDirectories(bus.resolve("0000:0f:00.0"));
        assertEquals(List.of("0000:07:00.0", "0000:0f:00.0"), live.list("/sys/bus/pci/devices"),
                "a function gone and another come: the count is the same, the names are not");
        Files.createDirectories(bus.resolve("0000:00:00.0"));
        assertEquals(List.of("0000:00:00.0", "0000:07:00.0", "0000:0f:00.0"), live.list("/sys/bus/pci/devices"));

        for (String f : List.of("0000:00:00.0", "0000:07:00.0", "0000:0f:00.0")) {
            Files.delete(bus.resolve(f));
        }
        Files.delete(bus);
        assertEquals(List.of(), live.list("/sys/bus/pci/devices"), "the folder gone");
        Files.createDirectories(bus.resolve("0000:47:00.0"));
        assertEquals(List.of("0000:47:00.0"), live.list("/sys/bus/pci/devices"), "and back with one function");
    }

    @Test
    void aModulesAttributesAreReadOnTheCallersThreadAsAnyFileIsRead() throws Exception {
        // /sys/module is read without the file-read thread (LiveSource.read): the same answers as every other file.
        Path module = Files.createDirectories(root.resolve("sys/module/nvidia"));
        Files.writeString(module.resolve("version"), "550.54.15\n");
        LiveSource live = source();
        assertEquals(Optional.of("550.54.15\n"), live.readFile("/sys/module/nvidia/version"));
        assertEquals("550", new String(live.readBytes("/sys/module/nvidia/version", 3).orElseThrow()), "at most what was asked");
        assertEquals(Optional.empty(), live.readFile("/sys/module/amdgpu/version"), "a module not loaded");
        assertEquals(Optional.empty(), live.readFile("/sys/module/nvidia"), "a folder");
    }

    @Test
    void aPathAskedForAgainIsReadAgainWhetherItsPathIsKeptOrNot() throws Exception {
        // LiveSource keeps the Path of the host paths last asked for (LiveSource.resolve): the Path, never what was read
        // through it. A link re-pointed, a file rewritten, a file gone: each is read as it is now, for a path whose Path
        // is kept and for one pushed out by more paths than are kept.
        Path drm = Files.createDirectories(root.resolve("sys/class/drm"));
        Files.createSymbolicLink(drm.resolve("card1"), Path.of("../../devices/pci0000:00/0000:07:00.0/drm/card1"));
        Path module = Files.createDirectories(root.resolve("sys/module/nvidia"));
        Files.writeString(module.resolve("version"), "550.54.15\n");
        LiveSource live = source();
        assertEquals(Optional.of("../../devices/pci0000:00/0000:07:00.0/drm/card1"), live.readLink("/sys/class/drm/card1"));
        assertEquals(Optional.of("550.54.15\n"), live.readFile("/sys/module/nvidia/version"));

        Files.delete(drm.resolve("card1"));
        Files.createSymbolicLink(drm.resolve("card1"), Path.of("../../devices/pci0000:00/0000:0f:00.0/drm/card1"));
        Files.writeString(module.resolve("version"), "560.35.03\n");
        assertEquals(Optional.of("../../devices/pci0000:00/0000:0f:00.0/drm/card1"), live.readLink("/sys/class/drm/card1"));
        assertEquals(Optional.of("560.35.03\n"), live.readFile("/sys/module/nvidia/version"));

        for (int i = 0; i <= LiveSource.RESOLVED_KEPT; i++) {
            assertEquals(Optional.empty(), live.readLink("/sys/class/drm/card" + (100 + i)));
        }
        Files.delete(drm.resolve("card1"));
        Files.createSymbolicLink(drm.resolve("card1"), Path.of("../../devices/pci0000:00/0000:47:00.0/drm/card1"));
        assertEquals(Optional.of("../../devices/pci0000:00/0000:47:00.0/drm/card1"), live.readLink("/sys/class/drm/card1"));
        Files.delete(module.resolve("version"));
        assertEquals(Optional.empty(), live.readFile("/sys/module/nvidia/version"));
        assertTrue(live.exists("/sys/class/drm/card1"));
        Files.delete(drm.resolve("card1"));
        assertEquals(Optional.empty(), live.readLink("/sys/class/drm/card1"));
        assertFalse(live.exists("/sys/class/drm/card1"));
        // exists: a file, a folder and a link are there, a link to nothing too (it is not followed).
        Files.createSymbolicLink(drm.resolve("card1"), Path.of("../../devices/pci0000:00/0000:47:00.0/drm/card1"));
        assertTrue(live.exists("/sys/class/drm/card1"), "a link to nothing");
        assertTrue(live.exists("/sys/class/drm"), "a folder");
        assertTrue(live.exists("/sys/module/nvidia"));
        Files.writeString(module.resolve("version"), "560.35.03\n");
        assertTrue(live.exists("/sys/module/nvidia/version"), "a file");
    }

    @Test
    void readsFromManyThreadsAtOnceEachGetTheirOwnFile() throws Exception {
        // The file-read threads take reads handed over by any caller (FileReaders): each caller gets its own file's
        // bytes, the missing ones nothing, however the reads and threads meet.
        Path dir = Files.createDirectories(root.resolve("sys/bus/pci/devices/0000:01:00.0"));
        for (int i = 0; i < 40; i++) {
            Files.writeString(dir.resolve("attr" + i), "value " + i + "\n");
        }
        LiveSource live = source();
        List<java.util.concurrent.Callable<List<String>>> callers = new java.util.ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int first = t;
            callers.add(() -> {
                List<String> wrong = new java.util.ArrayList<>();
                for (int k = 0; k < 200; k++) {
                    int i = (first * 7 + k) % 50;
                    Optional<String> read = live.readFile("/sys/bus/pci/devices/0000:01:00.0/attr" + i);
                    Optional<String> expected = i < 40 ? Optional.of("value " + i + "\n") : Optional.empty();
                    if (!read.equals(expected)) {
                        wrong.add("attr" + i + ": " + read);
                    }
                }
                return wrong;
            });
        }
        var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            for (var result : assertTimeoutPreemptively(Duration.ofSeconds(30), () -> pool.invokeAll(callers))) {
                assertEquals(List.of(), result.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aReadLeftToAThreadStuckInItDoesNotHoldUpTheNextRead() throws Exception {
        // A named pipe whose writer holds it open and writes nothing: the read waits for ever, and opening the pipe for
        // writing again (LiveSource.releaseBlockedPipe) does not end it. The next read, of another file, gets a thread
        // of its own and answers at once; the stuck one finishes when the writer goes.
        Path dir = Files.createDirectories(root.resolve("sys/bus/pci/devices/0000:01:00.0"));
        Path fifo = dir.resolve("config");
        Assumptions.assumeTrue(BundleSourceTest.mkfifo(fifo), "mkfifo is not available");
        Files.writeString(dir.resolve("vendor"), "0x1002\n");
        LiveSource live = source();
        var writer = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return Files.newOutputStream(fifo);   // opens when the reader does
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try {
            IOException e = assertTimeoutPreemptively(Duration.ofSeconds(5),
                    () -> assertThrows(IOException.class, () -> live.readBytes("/sys/bus/pci/devices/0000:01:00.0/config", 4)));
            assertTrue(e.getMessage().contains("no answer within 300 ms"), e.getMessage());
            assertEquals(Optional.of("0x1002\n"), assertTimeoutPreemptively(Duration.ofSeconds(1),
                    () -> live.readFile("/sys/bus/pci/devices/0000:01:00.0/vendor")));
        } finally {
            writer.get(5, java.util.concurrent.TimeUnit.SECONDS).close();
        }
        assertEquals(Optional.of("0x1002\n"), live.readFile("/sys/bus/pci/devices/0000:01:00.0/vendor"));
    }
}
