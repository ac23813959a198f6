package io.gpudetect.nvml;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DynamicLinkerViewTest {

    @TempDir
    Path dir;

    /** The shape of glibc's cache: a header, then NUL-terminated names and paths. */
    private Path cacheListing(String... names) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write("glibc-ld.so.cache1.1".getBytes(StandardCharsets.US_ASCII));
        bytes.write(new byte[] {0, 0, 0, 3, 0x7f});
        for (String name : names) {
            bytes.write((name + "\0/usr/lib/x86_64-linux-gnu/" + name + "\0").getBytes(StandardCharsets.US_ASCII));
        }
        Path cache = dir.resolve("ld.so.cache");
        Files.write(cache, bytes.toByteArray());
        return cache;
    }

    @Test
    void aLibraryInTheCacheMayBeFound() throws Exception {
        DynamicLinkerView linker = new DynamicLinkerView(cacheListing("libc.so.6", "libnvidia-ml.so.1"), Map.of());
        assertTrue(linker.mayFind("libnvidia-ml.so.1"));
    }

    @Test
    void aLibraryNeitherCachedNorOnLdLibraryPathCannot() throws Exception {
        DynamicLinkerView linker = new DynamicLinkerView(cacheListing("libc.so.6", "xlibnvidia-ml.so.1", "libnvidia-ml.so.10"),
                Map.of("LD_LIBRARY_PATH", dir.resolve("empty") + "::/nonexistent"));
        assertFalse(linker.mayFind("libnvidia-ml.so.1"));
    }

    @Test
    void ldLibraryPathIsLookedInFirst() throws Exception {
        Path libs = Files.createDirectories(dir.resolve("libs"));
        Files.writeString(libs.resolve("libnvidia-ml.so.1"), "");
        DynamicLinkerView linker = new DynamicLinkerView(cacheListing("libc.so.6"), Map.of("LD_LIBRARY_PATH", "/x:" + libs));
        assertTrue(linker.mayFind("libnvidia-ml.so.1"));
    }

    @Test
    void withoutAReadableCacheTheLinkerIsAsked() {
        assertTrue(new DynamicLinkerView(dir.resolve("no-cache"), Map.of()).mayFind("libnvidia-ml.so.1"));
        assertTrue(new DynamicLinkerView(dir, Map.of()).mayFind("libnvidia-ml.so.1"));
    }

    @Test
    void anUnlistedLibraryIsUnavailableBeforeTheLinkerIsAsked() throws Exception {
        DynamicLinkerView linker = new DynamicLinkerView(cacheListing("libc.so.6"), Map.of());
        NvmlUnavailableException e = assertThrows(NvmlUnavailableException.class,
                () -> NvmlLibrary.open(List.of("libnvidia-ml.so.1"), linker));
        assertTrue(e.getMessage().contains("libnvidia-ml.so.1 not found"), e.getMessage());
        assertTrue(e.getMessage().contains("LD_LIBRARY_PATH and /etc/ld.so.cache"), e.getMessage());
        // Had the linker been asked, JNA's own failure for the bare name would be among the notes.
        assertFalse(e.getMessage().contains("libnvidia-ml.so.1: "), e.getMessage());
    }
}
