package io.gpudetect.record;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One attribute value as a Kubernetes DRA device carries it ({@code resource.k8s.io} {@code DeviceAttribute}):
 * exactly one of a string, an integer, a boolean or a semantic version ({@code 580.159.4}), so that a CEL
 * selector written against a DRA driver's ResourceSlice ({@code device.attributes["gpu.nvidia.com"].driverVersion})
 * reads the record's value with the same type.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record DeviceAttribute(String string, @JsonProperty("int") Long integer, Boolean bool, String version) {

    public static DeviceAttribute ofString(String value) {
        return new DeviceAttribute(value, null, null, null);
    }

    public static DeviceAttribute ofInt(long value) {
        return new DeviceAttribute(null, value, null, null);
    }

    public static DeviceAttribute ofVersion(String semver) {
        return new DeviceAttribute(null, null, null, semver);
    }
}
