package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Any output of nvidia-smi --query-gpu CSV. Seeds: {@code NvidiaSmiCsvFuzzTestInputs/output/}, from test-fixtures. */
class NvidiaSmiCsvFuzzTest {

    @FuzzTest
    void output(byte[] output) {
        ToolOutputFuzzing.check("nvidia-smi-csv", output);
    }
}
