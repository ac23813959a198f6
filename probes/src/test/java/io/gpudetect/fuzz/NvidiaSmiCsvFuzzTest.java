package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Timeout;

/** Any output of nvidia-smi --query-gpu CSV. Seeds: {@code NvidiaSmiCsvFuzzTestInputs/output/}, from test-fixtures. */
class NvidiaSmiCsvFuzzTest {

    @Timeout(10)
    @FuzzTest
    void output(byte[] output) {
        ToolOutputFuzzing.check("nvidia-smi-csv", output);
    }
}
