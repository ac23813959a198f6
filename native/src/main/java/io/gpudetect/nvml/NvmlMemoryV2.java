package io.gpudetect.nvml;

import com.sun.jna.Memory;

/**
 * {@code nvmlMemory_v2_t}, filled by {@code nvmlDeviceGetMemoryInfo_v2}: bytes, with the memory the driver
 * reserves. An unsigned int {@code version}, four bytes of padding, then four unsigned long longs
 * ({@code total}, {@code reserved}, {@code free}, {@code used}). The caller sets {@code version} to
 * {@code NVML_STRUCT_VERSION(Memory, 2)}, the struct's size with the version in the top byte; the library
 * refuses any other value. Native memory at fixed offsets, as {@link NvmlPciInfo} says why.
 */
final class NvmlMemoryV2 {

    private static final int VERSION = 0;
    private static final int TOTAL = 8;
    private static final int RESERVED = 16;
    static final int SIZE = 40;

    final Memory memory = new Memory(SIZE);

    NvmlMemoryV2() {
        memory.clear();
        memory.setInt(VERSION, SIZE | (2 << 24));
    }

    long total() {
        return memory.getLong(TOTAL);
    }

    long reserved() {
        return memory.getLong(RESERVED);
    }
}
