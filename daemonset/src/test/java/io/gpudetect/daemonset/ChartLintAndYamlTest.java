package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.marcnuri.helm.LintResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** {@code helm lint --strict} on the chart, and every YAML file in {@code daemonset/} parses. */
class ChartLintAndYamlTest {

    @Test
    void chartPassesStrictLint() {
        LintResult lint = Chart.lint(true);
        assertFalse(lint.isFailed(), String.join("\n", lint.getMessages()));
        assertTrue(lint.getMessages().stream().noneMatch(m -> m.startsWith("[ERROR]") || m.startsWith("[WARNING]")),
                String.join("\n", lint.getMessages()));
    }

    @Test
    void everyYamlFileParses() throws IOException {
        ObjectReader reader = new ObjectMapper(new YAMLFactory()).reader();
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(Chart.MODULE)) {
            walk.filter(Files::isRegularFile)
                    .filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml"))
                    // Templates are Go templates, checked by rendering them; target/ is build output.
                    .filter(f -> !f.startsWith(Chart.DIR.resolve("templates")) && !f.startsWith(Chart.MODULE.resolve("target")))
                    .forEach(files::add);
        }
        assertTrue(files.size() >= 6, "found " + files);
        for (Path file : files) {
            try (MappingIterator<Object> documents = reader.forType(Object.class).readValues(file.toFile())) {
                assertFalse(documents.readAll().isEmpty(), file + " holds no YAML document");
            } catch (IOException e) {
                throw new AssertionError(file + ": " + e.getMessage(), e);
            }
        }
    }
}
