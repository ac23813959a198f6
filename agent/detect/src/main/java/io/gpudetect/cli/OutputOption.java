package io.gpudetect.cli;

import io.gpudetect.render.OutputFormat;
import picocli.CommandLine.Option;

/** {@code -o, --output table|json|yaml}: the same option, default and help on every command that prints a result. */
public final class OutputOption {

    @Option(names = {"-o", "--output"}, defaultValue = "table", paramLabel = "FORMAT",
            description = "table, json or yaml (default: ${DEFAULT-VALUE}).")
    OutputFormat format;

    public OutputFormat format() {
        return format;
    }

    /** Prints a report in the chosen format: its JSON, that JSON as YAML, or its table. */
    void print(java.io.PrintWriter out, java.util.function.Supplier<String> json,
               java.util.function.Supplier<String> table) {
        switch (format) {
            case json -> out.print(json.get());
            case yaml -> out.print(Yaml.fromJson(json.get()));
            default -> out.print(table.get());
        }
        out.flush();
    }
}
