package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Any output of nvidia-smi -q -x. Seeds: {@code NvidiaSmiXmlFuzzTestInputs/output/}, from test-fixtures. */
class NvidiaSmiXmlFuzzTest {

    @FuzzTest
    void output(byte[] output) {
        ToolOutputFuzzing.check("nvidia-smi-xml", output);
    }
}
