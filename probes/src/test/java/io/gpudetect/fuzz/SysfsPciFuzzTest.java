package io.gpudetect.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * A recorded {@code sys/} tree in any shape: PCI functions, their attribute files and driver links
 * (pointing anywhere), KFD topology nodes. Seeds: the fixtures' {@code sys/} trees.
 */
class SysfsPciFuzzTest {

    @FuzzTest
    void bundle(byte[] bundle) {
        ProbeFuzzing.checkOverBundle("sysfs-pci", bundle);
    }
}
