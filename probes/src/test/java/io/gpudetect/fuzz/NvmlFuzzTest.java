package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** A replayed {@code nvml.json} in any shape. Seeds: bundles holding the fixtures' nvml.json files. */
class NvmlFuzzTest {

    @FuzzTest
    void bundle(byte[] bundle) {
        ProbeFuzzing.checkOverBundle("nvml", bundle);
    }
}
