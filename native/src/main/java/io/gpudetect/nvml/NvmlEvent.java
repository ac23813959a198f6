package io.gpudetect.nvml;

/**
 * One {@code nvmlEventData_t}: the GPU it came from, its {@code nvmlEventType*} bit and its data (for an Xid
 * critical error, the Xid).
 */
public record NvmlEvent(NvmlDevice device, long type, long data) {

    /** {@code nvmlEventTypeSingleBitEccError}. */
    public static final long SINGLE_BIT_ECC = 0x1L;
    /** {@code nvmlEventTypeDoubleBitEccError}: an uncorrectable ECC error. */
    public static final long DOUBLE_BIT_ECC = 0x2L;
    /** {@code nvmlEventTypeXidCriticalError}: the data is the Xid. */
    public static final long XID_CRITICAL = 0x8L;
    /** {@code nvmlEventMigConfigChange}: a GPU's MIG devices were made or taken away. */
    public static final long MIG_CONFIG_CHANGE = 0x100L;
}
