package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Any output of clinfo. Seeds: {@code ClinfoFuzzTestInputs/output/}, from test-fixtures. */
class ClinfoFuzzTest {

    @FuzzTest
    void output(byte[] output) {
        ToolOutputFuzzing.check("clinfo", output);
    }
}
