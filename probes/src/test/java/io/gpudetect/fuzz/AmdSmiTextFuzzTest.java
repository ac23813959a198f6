package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Any text output of amd-smi (static, list, metric). Seeds: {@code AmdSmiTextFuzzTestInputs/output/}, from test-fixtures. */
class AmdSmiTextFuzzTest {

    @FuzzTest
    void output(byte[] output) {
        ToolOutputFuzzing.check("amd-smi-text", output);
    }
}
