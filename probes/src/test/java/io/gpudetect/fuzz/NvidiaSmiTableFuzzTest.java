package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Any output of the plain nvidia-smi table. Seeds: {@code NvidiaSmiTableFuzzTestInputs/output/}, from test-fixtures. */
class NvidiaSmiTableFuzzTest {

    @FuzzTest
    void output(byte[] output) {
        ToolOutputFuzzing.check("nvidia-smi-table", output);
    }
}
