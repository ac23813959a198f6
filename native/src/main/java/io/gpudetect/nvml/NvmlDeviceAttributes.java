package io.gpudetect.nvml;

import com.sun.jna.Memory;

/**
 * {@code nvmlDeviceAttributes_t}, filled by {@code nvmlDeviceGetAttributes_v2}: eight unsigned ints
 * ({@code multiprocessorCount} first, then the shared engine and slice counts) and an unsigned long long
 * {@code memorySizeMB}. Read here for a MIG device's share of the GPU. Native memory at fixed offsets, as
 * {@link NvmlPciInfo} says why.
 */
final class NvmlDeviceAttributes {

    private static final int MULTIPROCESSOR_COUNT = 0;
    static final int SIZE = 40;

    final Memory memory = new Memory(SIZE);

    NvmlDeviceAttributes() {
        memory.clear();
    }

    int multiprocessorCount() {
        return memory.getInt(MULTIPROCESSOR_COUNT);
    }
}
