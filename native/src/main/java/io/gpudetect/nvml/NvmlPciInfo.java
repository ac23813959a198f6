package io.gpudetect.nvml;

import com.sun.jna.Memory;

/**
 * {@code nvmlPciInfo_t} as {@code nvmlDeviceGetPciInfo_v2} and {@code _v3} fill it. The v1 call writes a
 * shorter struct whose first 16 bytes are the bus id and whose ids sit at the same offsets, so one
 * block serves all three: after a v1 call the bus id is in {@link #busIdLegacy}.
 *
 * <p>A block of native memory read at {@code nvml.h}'s offsets (unsigned ints and chars only, so no
 * padding) rather than a JNA {@code Structure}, whose layout is worked out by reflection over the
 * fields and their {@code @FieldOrder} annotation (an annotation proxy, which JDK 17 cannot archive) at
 * every start (docs/performance.md, "Start-up and footprint tricks", row "NVML structs at fixed offsets").
 */
final class NvmlPciInfo {

    /** {@code NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE}: {@code %04X:%02X:%02X.0}. */
    private static final int BUS_ID_LEGACY = 0;
    private static final int BUS_ID_LEGACY_SIZE = 16;
    private static final int DOMAIN = 16;
    private static final int BUS = 20;
    private static final int DEVICE = 24;
    private static final int PCI_DEVICE_ID = 28;
    private static final int PCI_SUBSYSTEM_ID = 32;
    /** {@code NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE}: {@code %08X:%02X:%02X.0}. */
    private static final int BUS_ID = 36;
    private static final int BUS_ID_SIZE = 32;
    static final int SIZE = BUS_ID + BUS_ID_SIZE;

    final Memory memory = new Memory(SIZE);

    NvmlPciInfo() {
        memory.clear();
    }

    String busIdLegacy() {
        return NvmlApi.text(memory.getByteArray(BUS_ID_LEGACY, BUS_ID_LEGACY_SIZE));
    }

    String busId() {
        return NvmlApi.text(memory.getByteArray(BUS_ID, BUS_ID_SIZE));
    }

    int domain() {
        return memory.getInt(DOMAIN);
    }

    int bus() {
        return memory.getInt(BUS);
    }

    int device() {
        return memory.getInt(DEVICE);
    }

    /** Device id in the high 16 bits, vendor id in the low 16 bits. */
    int pciDeviceId() {
        return memory.getInt(PCI_DEVICE_ID);
    }

    /** Subsystem device id in the high 16 bits, subsystem vendor id in the low 16 bits. */
    int pciSubSystemId() {
        return memory.getInt(PCI_SUBSYSTEM_ID);
    }
}
