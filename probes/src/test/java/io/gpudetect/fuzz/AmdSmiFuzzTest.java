package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Any output of amd-smi static --json. Seeds: {@code AmdSmiFuzzTestInputs/output/}, from test-fixtures. */
class AmdSmiFuzzTest {

    @FuzzTest
    void output(byte[] output) {
        ToolOutputFuzzing.check("amd-smi", output);
    }
}
