package io.gpudetect.nvml;

import com.sun.jna.Structure;
import com.sun.jna.Structure.FieldOrder;

/**
 * {@code nvmlPciInfo_t} as {@code nvmlDeviceGetPciInfo_v2} and {@code _v3} fill it. The v1 call writes a
 * shorter struct whose first 16 bytes are the bus id and whose ids sit at the same offsets, so one
 * struct serves all three: after a v1 call the bus id is in {@code busIdLegacy}.
 */
@FieldOrder({"busIdLegacy", "domain", "bus", "device", "pciDeviceId", "pciSubSystemId", "busId"})
public final class NvmlPciInfo extends Structure {
    /** {@code NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE}: {@code %04X:%02X:%02X.0}. */
    public byte[] busIdLegacy = new byte[16];
    public int domain;
    public int bus;
    public int device;
    /** Device id in the high 16 bits, vendor id in the low 16 bits. */
    public int pciDeviceId;
    /** Subsystem device id in the high 16 bits, subsystem vendor id in the low 16 bits. */
    public int pciSubSystemId;
    /** {@code NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE}: {@code %08X:%02X:%02X.0}. */
    public byte[] busId = new byte[32];
}
