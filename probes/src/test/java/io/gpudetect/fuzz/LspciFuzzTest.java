package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Any output of lspci -nn / -vmm as people paste it. Seeds: {@code LspciFuzzTestInputs/output/}, from test-fixtures. */
class LspciFuzzTest {

    @FuzzTest
    void output(byte[] output) {
        ToolOutputFuzzing.check("lspci", output);
    }
}
