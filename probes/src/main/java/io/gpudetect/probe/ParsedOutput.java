package io.gpudetect.probe;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import java.util.List;

/** A parser's answer for one tool output: the GPUs it read and the problems it met, with line numbers. */
public record ParsedOutput(List<Gpu> gpus, List<Diagnostic> diagnostics) {

    public ParsedOutput {
        gpus = List.copyOf(gpus);
        diagnostics = List.copyOf(diagnostics);
    }
}
