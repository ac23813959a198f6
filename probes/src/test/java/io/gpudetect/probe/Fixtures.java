package io.gpudetect.probe;

import io.gpudetect.model.Diagnostic;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * The real recordings, read as the parsers see them. They are tool output published by others, so they are not
 * in the project: they are read from the workspace's shared set, {@code shared/fixtures/hosts/} in a folder above
 * the module (or the folder {@code GPU_DETECT_SHARED} names); without it a test that reads one is skipped with
 * one line saying what is missing.
 */
public final class Fixtures {

    private Fixtures() {
    }

    public static String host(String host, String file) {
        Path recording = shared().map(s -> s.resolve("hosts").resolve(host).resolve(file)).filter(Files::isRegularFile)
                .orElse(null);
        Assumptions.assumeTrue(recording != null, () -> "skipped: needs shared/fixtures/hosts/" + host + "/" + file
                + " (the shared recordings), not found above " + Path.of("").toAbsolutePath() + " or in GPU_DETECT_SHARED");
        try {
            return Files.readString(recording, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The shared set's {@code fixtures} folder, when this workspace has it. */
    public static Optional<Path> shared() {
        String given = System.getenv("GPU_DETECT_SHARED");
        if (given != null && !given.isBlank()) {
            return Optional.of(Path.of(given).resolve("fixtures")).filter(Files::isDirectory);
        }
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("shared/fixtures/hosts"))) {
                return Optional.of(p.resolve("shared/fixtures"));
            }
        }
        return Optional.empty();
    }

    /** The diagnostics of a severity, as one line each, for assertion messages and contains-checks. */
    public static List<String> lines(List<Diagnostic> diagnostics, Diagnostic.Severity severity) {
        return diagnostics.stream().filter(d -> d.severity() == severity).map(Diagnostic::oneLine).toList();
    }

    /** The sub-folders of {@code dir}, sorted; none where it is not a folder. */
    public static List<Path> folders(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (java.util.stream.Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isDirectory).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
