package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Any output of rocminfo. Seeds: {@code RocminfoFuzzTestInputs/output/}, from test-fixtures. */
class RocminfoFuzzTest {

    @FuzzTest
    void output(byte[] output) {
        ToolOutputFuzzing.check("rocminfo", output);
    }
}
