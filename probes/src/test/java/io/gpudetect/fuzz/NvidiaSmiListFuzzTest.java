package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Timeout;

/** Any output of nvidia-smi -L. Seeds: {@code NvidiaSmiListFuzzTestInputs/output/}, from test-fixtures. */
class NvidiaSmiListFuzzTest {

    @Timeout(10)
    @FuzzTest
    void output(byte[] output) {
        ToolOutputFuzzing.check("nvidia-smi-list", output);
    }
}
