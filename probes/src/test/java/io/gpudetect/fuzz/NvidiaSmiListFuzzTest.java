package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Any output of nvidia-smi -L. Seeds: {@code NvidiaSmiListFuzzTestInputs/output/}, from test-fixtures. */
class NvidiaSmiListFuzzTest {

    @FuzzTest
    void output(byte[] output) {
        ToolOutputFuzzing.check("nvidia-smi-list", output);
    }
}
