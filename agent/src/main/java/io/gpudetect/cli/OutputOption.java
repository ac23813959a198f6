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
}
