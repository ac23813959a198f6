package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A GPU's PCIe link: the generation and lane count it runs at now and the most it can train to. Read from
 * sysfs for every vendor ({@code current_link_speed}, {@code max_link_speed}, {@code current_link_width},
 * {@code max_link_width} in the function's folder), or from NVML / nvidia-smi ({@code max_link_gen},
 * {@code current_link_gen}, {@code max_link_width}, {@code current_link_width}). Each part is null when the
 * source did not say it (sysfs {@code Unknown}, width {@code 0} or {@code 255}: no link).
 *
 * @param currentGen   PCIe generation the link runs at now (1 for 2.5 GT/s, 3 for 8 GT/s, 5 for 32 GT/s)
 * @param maxGen       the highest generation the device (NVML: device and host together) can train to
 * @param currentWidth lanes the link runs on now
 * @param maxWidth     lanes the device can use
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(value = "degraded", allowGetters = true, ignoreUnknown = true)
public record PcieLink(Integer currentGen, Integer maxGen, Integer currentWidth, Integer maxWidth) {

    /**
     * Whether the link runs below what it can, by the one rule that reads right on an idle GPU: fewer lanes
     * than the device has. A lower generation is no sign: NVIDIA and AMD GPUs drop their link to Gen1 when idle
     * (ASPM, dynamic speed switching) and go back up under load, so a speed read on an idle node would report
     * every healthy GPU as degraded; and a Gen5 card in a Gen4 slot never reaches its own maximum. Lanes do not
     * change with load: a x16 card at x8 was seated badly, has a failing retimer or sits in a x8 slot, all of
     * which a scheduler needs to know. Null when either width is unknown.
     */
    @JsonProperty("degraded")
    public Boolean degraded() {
        if (currentWidth == null || maxWidth == null) {
            return null;
        }
        return currentWidth < maxWidth;
    }

    /**
     * The generation of a transfer rate in GT/s per lane as the kernel writes it ({@code 2.5}, {@code 5.0},
     * {@code 8.0}, {@code 16.0}, {@code 32.0}, {@code 64.0}, {@code 128.0}); null for any other rate.
     */
    public static Integer generationOf(double gigaTransfers) {
        double[] rates = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0, 128.0};
        for (int i = 0; i < rates.length; i++) {
            if (Math.abs(rates[i] - gigaTransfers) < 0.01) {
                return i + 1;
            }
        }
        return null;
    }

    /** True when no part is known: such a link is left out of a GPU rather than written empty. */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean isEmpty() {
        return currentGen == null && maxGen == null && currentWidth == null && maxWidth == null;
    }
}
