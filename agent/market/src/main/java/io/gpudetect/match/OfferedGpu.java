package io.gpudetect.match;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.model.Partition;
import io.gpudetect.model.PcieLink;
import io.gpudetect.model.Vendor;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One GPU of a node as matching sees it.
 *
 * @param model         Akash model slug, null when the card is unknown to the tables
 * @param memoryGi      VRAM as Akash counts it (marketed size)
 * @param interfaceType {@code pcie}, {@code sxm} (SXM2 to SXM5 folded into it), {@code oam}, ...
 * @param migEnabled    true when the card is split into MIG slices (or AMD partitions): it then serves only slice
 *                      requests, as NVIDIA's device plugin offers a MIG-enabled card only as slices
 * @param profiles      the profile of each slice that exists ({@code 1g.10gb} twice for two such slices)
 * @param platform      the driver stack and slot it runs with, what {@code driver>=}, {@code cuda>=} and
 *                      {@code pcie>=} are checked against, and its links, which {@code nvlink=all} is; null when
 *                      nothing says
 * @param health        the GPU's state as its node saw it ({@code ok}, {@code degraded}, {@code failed}, {@code lost});
 *                      null when no tool said (an older agent's record): such a GPU counts as healthy
 * @param healthReasons why it is not ok, as the record's {@code healthReasons} codes ({@code XidCritical},
 *                      {@code GpuLost}); empty when the record gives none. Said where a GPU is not counted as free.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record OfferedGpu(Vendor vendor, String model, Integer memoryGi,
                         @JsonProperty("interface") String interfaceType, boolean migEnabled, List<String> profiles,
                         Platform platform, Health.Status health,
                         @com.fasterxml.jackson.annotation.JsonIgnore List<String> healthReasons) {

    /** A GPU whose health is not known: it counts as healthy, as before health was recorded. */
    public OfferedGpu(Vendor vendor, String model, Integer memoryGi, String interfaceType, boolean migEnabled,
                      List<String> profiles, Platform platform) {
        this(vendor, model, memoryGi, interfaceType, migEnabled, profiles, platform, null);
    }

    /** A GPU whose health has no reason codes. */
    public OfferedGpu(Vendor vendor, String model, Integer memoryGi, String interfaceType, boolean migEnabled,
                      List<String> profiles, Platform platform, Health.Status health) {
        this(vendor, model, memoryGi, interfaceType, migEnabled, profiles, platform, health, List.of());
    }

    /**
     * A GPU's driver stack and slot as its node published them; each part null when not published (a record
     * from an agent older than these fields, a host whose driver tool did not run).
     *
     * @param pciAddress     to name the GPU in a reason ({@code GPU 0000:1b:00.0 link x8 of x16})
     * @param driverVersion  as the driver prints it ({@code 580.159.04})
     * @param runtimeVersion the CUDA (NVIDIA) or ROCm (AMD) version
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Platform(String pciAddress, String driverVersion, String runtimeVersion, PcieLink pcieLink,
                           @com.fasterxml.jackson.annotation.JsonIgnore io.gpudetect.model.GpuLinks links) {

        /** Nothing published. */
        public static final Platform UNKNOWN = new Platform(null, null, null, null, null);

        public static Platform of(Gpu gpu) {
            return new Platform(gpu.pciAddress() == null ? null : gpu.pciAddress().toString(), gpu.driverVersion(),
                    gpu.runtimeVersion(), gpu.pcieLink(), gpu.links());
        }
    }

    public OfferedGpu {
        Objects.requireNonNull(vendor, "vendor");
        model = model == null || model.isBlank() ? null : model.toLowerCase(Locale.ROOT);
        interfaceType = foldInterface(interfaceType);
        profiles = profiles == null ? List.of() : List.copyOf(profiles);
        healthReasons = healthReasons == null ? List.of() : List.copyOf(healthReasons);
    }

    /** The matching view of a detected GPU: MIG slices without a profile name count as slices of an unknown profile. */
    public static OfferedGpu of(Gpu gpu) {
        boolean mig = gpu.partitioning() != null && Boolean.TRUE.equals(gpu.partitioning().enabled());
        List<String> profiles = mig
                ? gpu.partitioning().instances().stream().map(Partition::profile).filter(Objects::nonNull).toList()
                : List.of();
        return of(gpu, mig, profiles);
    }

    /** The matching view of {@code gpu} with the slices a record lists for it. */
    public static OfferedGpu of(Gpu gpu, boolean migEnabled, List<String> profiles) {
        return new OfferedGpu(gpu.vendor() == null ? Vendor.OTHER : gpu.vendor(), gpu.model(), gpu.memoryGi(),
                gpu.interfaceType() == null ? null : gpu.interfaceType().id(), migEnabled, profiles,
                Platform.of(gpu), gpu.health() == null ? null : gpu.health().status(),
                gpu.health() == null ? List.of() : gpu.health().reasons().stream().map(HealthReason::code).toList());
    }

    /**
     * False for a failed or lost GPU: work on it fails, so it is no free unit, whatever the Node's allocatable says
     * (the device plugin may not have marked it unhealthy yet). A degraded GPU still works and counts.
     */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean healthy() {
        return health != Health.Status.FAILED && health != Health.Status.LOST;
    }

    /** Lower case, with {@code sxm2}..{@code sxm5} as {@code sxm}: the provider compares interfaces that way. */
    static String foldInterface(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.strip().toLowerCase(Locale.ROOT);
        // Digits checked by hand: String.matches compiles its pattern at every call, once per GPU of every record.
        if (!v.startsWith("sxm")) {
            return v;
        }
        for (int i = 3; i < v.length(); i++) {
            if (v.charAt(i) < '0' || v.charAt(i) > '9') {
                return v;
            }
        }
        return "sxm";
    }

    /** {@code a100 80Gi sxm}, for reasons in the output. */
    public String describe() {
        return (model == null ? "unknown " + vendor.id() + " model" : model)
                + (memoryGi == null ? "" : " " + memoryGi + "Gi")
                + (interfaceType == null ? "" : " " + interfaceType);
    }
}
