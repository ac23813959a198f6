package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Timeout;

/** Any output of the plain nvidia-smi table. Seeds: {@code NvidiaSmiTableFuzzTestInputs/output/}, from test-fixtures. */
class NvidiaSmiTableFuzzTest {

    @Timeout(10)
    @FuzzTest
    void output(byte[] output) {
        ToolOutputFuzzing.check("nvidia-smi-table", output);
    }
}
