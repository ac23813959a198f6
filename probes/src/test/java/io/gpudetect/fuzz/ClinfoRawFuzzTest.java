package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Any output of clinfo --raw. Seeds: {@code ClinfoRawFuzzTestInputs/output/}, from test-fixtures. */
class ClinfoRawFuzzTest {

    @FuzzTest
    void output(byte[] output) {
        ToolOutputFuzzing.check("clinfo-raw", output);
    }
}
