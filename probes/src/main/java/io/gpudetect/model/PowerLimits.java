package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The range a GPU's power cap may be set in, and the cap it ships with; the cap in force is
 * {@link Gpu#powerLimitWatts()}. From NVML ({@code nvmlDeviceGetPowerManagementLimitConstraints},
 * {@code nvmlDeviceGetPowerManagementDefaultLimit}), nvidia-smi ({@code min_power_limit},
 * {@code max_power_limit}, {@code default_power_limit}) or the kernel's hwmon ({@code power1_cap_min},
 * {@code power1_cap_max}, {@code power1_cap_default}). Each part is null when the source did not say it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record PowerLimits(Double minWatts, Double maxWatts, Double defaultWatts) {

    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean isEmpty() {
        return minWatts == null && maxWatts == null && defaultWatts == null;
    }
}
