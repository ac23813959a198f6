package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Why a GPU is not {@code ok}, one vocabulary for every vendor, each with the state it leads to. The codes are
 * written as Kubernetes condition reasons (UpperCamelCase) so the Node condition, Events and metrics can use
 * them as they are; the worst reason of a GPU decides its {@link Health.Status}.
 */
public enum HealthReason {
    /** Off the bus, NVML's {@code GPU_IS_LOST}, a tool reading {@code [GPU requires reset]}, the PCI function gone. */
    GPU_LOST("GpuLost", Health.Status.LOST),
    /** The driver reported an Xid that is the GPU's fault, not an application's (NVML event or kernel log). */
    XID_CRITICAL("XidCritical", Health.Status.FAILED),
    /** Uncorrectable (double-bit) ECC errors since the driver loaded. */
    UNCORRECTABLE_ECC("UncorrectableEcc", Health.Status.FAILED),
    /** The GPU ran out of spare rows: a row it had to remap could not be remapped. */
    ROW_REMAP_FAILURE("RowRemapFailure", Health.Status.FAILED),
    /** AMD RAS: an uncorrectable error count above zero in a block of the device's {@code ras/} folder. */
    RAS_UNCORRECTABLE("RasUncorrectable", Health.Status.FAILED),
    /** Uncorrectable ECC errors over the GPU's lifetime (NVML's aggregate counter), none since the driver loaded. */
    PAST_UNCORRECTABLE_ECC("PastUncorrectableEcc", Health.Status.DEGRADED),
    /** Correctable errors (ECC, AMD RAS) past the threshold. */
    CORRECTABLE_ERRORS("CorrectableErrors", Health.Status.DEGRADED),
    /** Pages retired but waiting for a GPU reset to take effect (older GPUs' page retirement). */
    PAGES_PENDING_RETIREMENT("PagesPendingRetirement", Health.Status.DEGRADED),
    /** Rows remapped but waiting for a GPU reset to take effect (Ampere and later). */
    ROWS_PENDING_REMAP("RowsPendingRemap", Health.Status.DEGRADED),
    /** The PCIe link runs on fewer lanes than the device has. */
    PCIE_LINK_DEGRADED("PcieLinkDegraded", Health.Status.DEGRADED),
    /** Clocks held down by a hardware slowdown (thermal, power brake), not by the application or a setting. */
    HARDWARE_SLOWDOWN("HardwareSlowdown", Health.Status.DEGRADED);

    private final String code;
    private final Health.Status leadsTo;

    HealthReason(String code, Health.Status leadsTo) {
        this.code = code;
        this.leadsTo = leadsTo;
    }

    /** The condition-style reason, e.g. {@code GpuLost}. */
    @JsonValue
    public String code() {
        return code;
    }

    /** The state a GPU with this reason is in (at least). */
    public Health.Status leadsTo() {
        return leadsTo;
    }

    /** The reason for a code as {@link #code()} writes it; null for any other text. */
    public static HealthReason fromCode(String code) {
        for (HealthReason r : values()) {
            if (r.code.equals(code)) {
                return r;
            }
        }
        return null;
    }
}
