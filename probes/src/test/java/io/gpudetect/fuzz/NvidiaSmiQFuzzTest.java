package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Any output of nvidia-smi -q (text). Seeds: {@code NvidiaSmiQFuzzTestInputs/output/}, from test-fixtures. */
class NvidiaSmiQFuzzTest {

    @FuzzTest
    void output(byte[] output) {
        ToolOutputFuzzing.check("nvidia-smi-q", output);
    }
}
