package io.gpudetect.nvml;

import com.sun.jna.Pointer;
import com.sun.jna.PointerType;

/** {@code nvmlDevice_t}: an opaque handle to a GPU or a MIG device, typed so it cannot be mixed up with other pointers. */
public final class NvmlDevice extends PointerType {

    public NvmlDevice() {
    }

    public NvmlDevice(Pointer p) {
        super(p);
    }
}
