package io.gpudetect.testing;

import io.gpudetect.tables.AkashGpus;
import io.gpudetect.tables.TableException;
import io.gpudetect.tables.Tables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * Third-party data the tests read from {@code ../shared/} beside the checkout (never committed here): found by
 * walking up from the module's folder. Where it is absent a test that needs it is skipped with one line.
 */
public final class SharedData {

    private SharedData() {
    }

    /** {@code shared/data/akash-gpus.json} (provider-configs devices/pcie/gpus.json), when some folder above has it. */
    public static Optional<Path> akashTableFile() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path file = dir.resolve("shared/data/akash-gpus.json");
            if (Files.isRegularFile(file)) {
                return Optional.of(file);
            }
        }
        return Optional.empty();
    }

    /** The shared copy's path, for {@code --akash-table}; skips the test without it. */
    public static String akashTableOption() {
        Optional<Path> file = akashTableFile();
        Assumptions.assumeTrue(file.isPresent(), "skipped: no shared/data/akash-gpus.json above " + Path.of("").toAbsolutePath());
        return file.get().toString();
    }

    /** Akash's table from the shared copy, read as production reads a {@code --akash-table} file; skips the test without it. */
    public static AkashGpus akashGpus() {
        Optional<Path> file = akashTableFile();
        Assumptions.assumeTrue(file.isPresent(), "skipped: no shared/data/akash-gpus.json above " + Path.of("").toAbsolutePath());
        try {
            return AkashGpus.parse(Files.readString(file.get()), file.get().toString());
        } catch (java.io.IOException | TableException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** The jar's pci.ids and amdgpu.ids with the shared Akash table, as a replay reads them; skips without it. */
    public static Tables replayTables() {
        AkashGpus akash = akashGpus();
        return Tables.shipped(() -> akash);
    }
}
