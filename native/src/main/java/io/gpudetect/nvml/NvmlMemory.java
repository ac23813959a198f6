package io.gpudetect.nvml;

import com.sun.jna.Structure;
import com.sun.jna.Structure.FieldOrder;

/** {@code nvmlMemory_t}, filled by {@code nvmlDeviceGetMemoryInfo}: bytes. */
@FieldOrder({"total", "free", "used"})
public final class NvmlMemory extends Structure {
    public long total;
    public long free;
    public long used;
}
