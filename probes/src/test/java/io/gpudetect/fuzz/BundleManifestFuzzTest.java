package io.gpudetect.fuzz;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.gpudetect.probe.Probes;
import io.gpudetect.probe.ToolProbe;
import io.gpudetect.source.BundleException;
import io.gpudetect.source.BundleManifest;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.ToolCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code bundle.json} in any shape: the bundle opens, or {@link BundleSource#open} refuses it with a
 * one-line {@link BundleException} naming the file. Whatever the manifest says about a tool run
 * (status, exit code, duration), replaying that tool answers.
 */
class BundleManifestFuzzTest {

    private static final List<ToolCommand> COMMANDS = Probes.defaults().stream()
            .filter(ToolProbe.class::isInstance).map(p -> ((ToolProbe) p).command()).toList();

    @FuzzTest
    void manifest(byte[] json) throws IOException {
        Path dir = BundleText.write(new byte[0]);
        try {
            Files.write(dir.resolve(BundleManifest.FILE_NAME), json);
            Files.writeString(dir.resolve(Probes.NVIDIA_SMI_LIST.bundleFile()), "GPU 0: NVIDIA A10G (UUID: GPU-x)\n");
            BundleSource source;
            try {
                source = BundleSource.open(dir);
            } catch (BundleException e) {
                assertTrue(e.getMessage().contains(BundleManifest.FILE_NAME), () -> "unclear refusal: " + e.getMessage());
                assertTrue(e.getMessage().lines().count() == 1, () -> "not one line: " + e.getMessage());
                return;
            }
            assertNotNull(source.manifest().commands());
            for (ToolCommand command : COMMANDS) {
                assertNotNull(source.run(command));
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } finally {
            BundleText.delete(dir);
        }
    }
}
