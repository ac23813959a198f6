package io.gpudetect.nvml;

import com.sun.jna.Structure;
import com.sun.jna.Structure.FieldOrder;

/**
 * {@code nvmlMemory_v2_t}, filled by {@code nvmlDeviceGetMemoryInfo_v2}: bytes, with the memory the driver
 * reserves. The caller sets {@code version} to {@code NVML_STRUCT_VERSION(Memory, 2)}, the struct's size
 * with the version in the top byte; the library refuses any other value.
 */
@FieldOrder({"version", "total", "reserved", "free", "used"})
public final class NvmlMemoryV2 extends Structure {
    public int version;
    public long total;
    public long reserved;
    public long free;
    public long used;

    public NvmlMemoryV2() {
        version = size() | (2 << 24);
    }
}
