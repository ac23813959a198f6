package io.gpudetect.nvml;

import com.sun.jna.Memory;

/**
 * {@code nvmlMemory_t}, filled by {@code nvmlDeviceGetMemoryInfo}: bytes, three unsigned long longs. Native
 * memory at fixed offsets, as {@link NvmlPciInfo} says why.
 */
final class NvmlMemory {

    private static final int TOTAL = 0;
    static final int SIZE = 24;

    final Memory memory = new Memory(SIZE);

    NvmlMemory() {
        memory.clear();
    }

    long total() {
        return memory.getLong(TOTAL);
    }
}
