package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Any output of rocm-smi --showallinfo --json. Seeds: {@code RocmSmiJsonFuzzTestInputs/output/}, from test-fixtures. */
class RocmSmiJsonFuzzTest {

    @FuzzTest
    void output(byte[] output) {
        ToolOutputFuzzing.check("rocm-smi-json", output);
    }
}
