package io.gpudetect.nvml;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Whether the dynamic linker could find a library by its bare name, answered without asking it. Asking
 * means loading JNA, which unpacks its native part to a temporary file and runs {@code ldconfig -p}: tens
 * of milliseconds that every start of {@code gpu-detect} on a host without NVIDIA's driver (an AMD rig, a
 * CPU node) would pay to learn nothing (docs/performance.md, "Start-up and footprint tricks", row "NVML looked up
 * before JNA loads").
 *
 * <p>The linker looks in {@code LD_LIBRARY_PATH}, then its cache {@code /etc/ld.so.cache}, then the default
 * folders (which {@link NvmlLocator} lists as paths of their own). The cache holds each library's name as a
 * plain NUL-terminated string in both of glibc's formats, so a byte search answers "listed or not". Where
 * there is no readable cache (musl, a stripped container) the answer is "maybe", and the linker is asked.
 */
final class DynamicLinkerView {

    static final Path CACHE = Path.of("/etc/ld.so.cache");
    /** glibc's cache is tens of kB; anything far bigger is not one and is not searched. */
    private static final long MAX_CACHE_BYTES = 16L << 20;

    private final Path cache;
    private final Map<String, String> env;

    DynamicLinkerView(Path cache, Map<String, String> env) {
        this.cache = cache;
        this.env = env;
    }

    static DynamicLinkerView ofThisProcess() {
        return new DynamicLinkerView(CACHE, System.getenv());
    }

    /** False only when the linker certainly cannot find {@code name}: not in LD_LIBRARY_PATH, not in its cache. */
    boolean mayFind(String name) {
        String paths = env.get("LD_LIBRARY_PATH");
        if (paths != null) {
            for (String dir : paths.split(":")) {
                if (!dir.isEmpty() && Files.exists(Path.of(dir, name))) {
                    return true;
                }
            }
        }
        try {
            if (!Files.isRegularFile(cache) || Files.size(cache) > MAX_CACHE_BYTES) {
                return true;
            }
            return contains(Files.readAllBytes(cache), (name + "\0").getBytes(StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            // A whole name, not the tail of a longer one ("xlibnvidia-ml.so.1").
            if (i == 0 || haystack[i - 1] == 0 || haystack[i - 1] == '/') {
                return true;
            }
        }
        return false;
    }
}
