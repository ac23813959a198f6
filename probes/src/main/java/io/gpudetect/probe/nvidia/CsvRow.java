package io.gpudetect.probe.nvidia;

import io.gpudetect.model.Gpu;
import java.util.List;

/** One CSV line: its 1-based line number, its values, and the GPU read from it once read (null before). */
record CsvRow(int line, List<String> values, Gpu gpu) {

    CsvRow {
        values = List.copyOf(values);
    }

    CsvRow with(Gpu read) {
        return new CsvRow(line, values, read);
    }
}
