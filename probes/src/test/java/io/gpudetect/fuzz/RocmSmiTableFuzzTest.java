package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Any output of the plain rocm-smi table. Seeds: {@code RocmSmiTableFuzzTestInputs/output/}, from test-fixtures. */
class RocmSmiTableFuzzTest {

    @FuzzTest
    void output(byte[] output) {
        ToolOutputFuzzing.check("rocm-smi-table", output);
    }
}
