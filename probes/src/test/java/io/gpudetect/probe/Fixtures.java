package io.gpudetect.probe;

import io.gpudetect.model.Diagnostic;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The real recordings under test-fixtures/hosts, read as the parsers see them. */
public final class Fixtures {

    private Fixtures() {
    }

    public static String host(String host, String file) {
        try {
            return Files.readString(Path.of("..", "test-fixtures", "hosts", host, file), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The diagnostics of a severity, as one line each, for assertion messages and contains-checks. */
    public static List<String> lines(List<Diagnostic> diagnostics, Diagnostic.Severity severity) {
        return diagnostics.stream().filter(d -> d.severity() == severity).map(Diagnostic::oneLine).toList();
    }
}
