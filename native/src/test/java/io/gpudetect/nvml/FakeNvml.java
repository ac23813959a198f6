package io.gpudetect.nvml;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A driver root holding a copy of the fake {@code libnvidia-ml.so.1} (compiled from
 * {@code src/test/c/fake_nvml.c} by the build) that serves one scenario. Each root holds its own copy so
 * that the dynamic linker loads it apart from the others, with its own state.
 */
final class FakeNvml {

    private FakeNvml() {
    }

    static Path builtLibrary(String variant) {
        Path built = Path.of(System.getProperty("gpudetect.fakeNvml", "target/fake-nvml"))
                .resolve(variant).resolve("usr/lib64").resolve(NvmlLocator.LIBRARY_NAME);
        if (!Files.isRegularFile(built)) {
            throw new IllegalStateException("the fake NVML library is not built at " + built
                    + ": the Maven build compiles it with gcc (native/src/test/c/build-fake-nvml.sh); is gcc installed?");
        }
        return built;
    }

    /** {@code variant} is {@code current} or {@code old} (no _v2/_v3, MIG or architecture symbols). */
    static Path driverRoot(Path dir, String variant, String scenario) throws IOException {
        Path libDir = dir.resolve("usr/lib64");
        Files.createDirectories(libDir);
        Files.copy(builtLibrary(variant), libDir.resolve(NvmlLocator.LIBRARY_NAME));
        Files.writeString(libDir.resolve("fake-nvml-scenario"), scenario + "\n");
        return dir;
    }
}
