package io.gpudetect.match;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.gpudetect.model.PcieLink;
import java.util.ArrayList;
import java.util.List;

/**
 * What a workload needs of a GPU's driver stack and slot, beyond its model: {@code driver>=550.54},
 * {@code cuda>=12.8} (or {@code rocm>=6.2}), {@code pcie>=gen4x16}, {@code link=full}. Null parts do not filter. A
 * part asked of a GPU whose node did not publish the fact (a record from an agent older than these fields) fails
 * with that said, never passes unseen.
 *
 * @param minDriver    the lowest driver version, dotted ({@code 550.54}); compared part by part as numbers
 * @param minRuntime   the lowest CUDA (NVIDIA) or ROCm (AMD) version the driver stack supports ({@code 12.8})
 * @param runtimeName  {@code CUDA} or {@code ROCm}, as reasons name the runtime; null with {@code minRuntime}
 * @param minLinkGen   the lowest PCIe generation the GPU's link can train to ({@code pcieLink.maxGen})
 * @param minLinkWidth the fewest lanes the link runs on now ({@code pcieLink.currentWidth})
 * @param fullLink     true: the link must run on every lane the device has (not {@code pcieLink.degraded})
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record GpuFloor(String minDriver, String minRuntime, String runtimeName, Integer minLinkGen,
                       Integer minLinkWidth, boolean fullLink) {

    /** Asks nothing. */
    public static final GpuFloor NONE = new GpuFloor(null, null, null, null, null, false);

    @JsonIgnore
    public boolean isNone() {
        return equals(NONE);
    }

    /** {@code driver>=550.54/cuda>=12.8/pcie>=gen4x16/link=full}: the parts asked, for the output. */
    public String describe() {
        List<String> parts = new ArrayList<>();
        if (minDriver != null) {
            parts.add("driver>=" + minDriver);
        }
        if (minRuntime != null) {
            parts.add(runtimeName.toLowerCase(java.util.Locale.ROOT) + ">=" + minRuntime);
        }
        if (minLinkGen != null || minLinkWidth != null) {
            parts.add("pcie>=" + (minLinkGen == null ? "" : "gen" + minLinkGen)
                    + (minLinkWidth == null ? "" : "x" + minLinkWidth));
        }
        if (fullLink) {
            parts.add("link=full");
        }
        return String.join("/", parts);
    }

    /**
     * Why {@code gpu} falls short of this floor, the first part it fails: {@code driver 535.104.05 below 550.54},
     * {@code GPU 0000:1b:00.0 link x8 of x16}, {@code driver version not published (agent too old?)}; null when
     * it meets every part.
     */
    public String shortfall(OfferedGpu gpu) {
        OfferedGpu.Platform p = gpu.platform() == null ? OfferedGpu.Platform.UNKNOWN : gpu.platform();
        if (minDriver != null) {
            String why = below("driver", p.driverVersion(), minDriver);
            if (why != null) {
                return why;
            }
        }
        if (minRuntime != null) {
            String why = below(runtimeName, p.runtimeVersion(), minRuntime);
            if (why != null) {
                return why;
            }
        }
        PcieLink link = p.pcieLink();
        String gpuName = "GPU " + (p.pciAddress() == null ? gpu.describe() : p.pciAddress());
        if (minLinkGen != null) {
            if (link == null || link.maxGen() == null) {
                return "PCIe link generation not published (agent too old?)";
            }
            if (link.maxGen() < minLinkGen) {
                return gpuName + " link gen" + link.maxGen() + " at most, gen" + minLinkGen + " asked";
            }
        }
        if (minLinkWidth != null) {
            if (link == null || link.currentWidth() == null) {
                return "PCIe link width not published (agent too old?)";
            }
            if (link.currentWidth() < minLinkWidth) {
                return gpuName + " link x" + link.currentWidth()
                        + (link.maxWidth() == null ? "" : " of x" + link.maxWidth()) + ", x" + minLinkWidth + " asked";
            }
        }
        if (fullLink) {
            if (link == null || link.degraded() == null) {
                return "PCIe link width not published (agent too old?)";
            }
            if (link.degraded()) {
                return gpuName + " link x" + link.currentWidth() + " of x" + link.maxWidth();
            }
        }
        return null;
    }

    /** {@code driver 535.104.05 below 550.54}; null when {@code have} is at least {@code floor}. */
    private static String below(String what, String have, String floor) {
        if (have == null || have.isBlank()) {
            return what + " version not published (agent too old?)";
        }
        int[] haveParts = DottedVersion.parts(have);
        if (haveParts == null) {
            return what + " version '" + have + "' is not dotted numbers, " + floor + " asked";
        }
        return DottedVersion.compare(haveParts, DottedVersion.parts(floor)) < 0 ? what + " " + have + " below " + floor
                : null;
    }
}
