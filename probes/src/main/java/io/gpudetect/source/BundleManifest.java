package io.gpudetect.source;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code bundle.json}: what {@code gpu-detect record} knew about the host and about each tool it ran,
 * keyed by bundle file name. Optional: a bundle made by hand from a pasted output has none.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BundleManifest(String host, String recordedAt, String gpuDetectVersion, Map<String, Run> commands) {

    public static final String FILE_NAME = "bundle.json";

    public BundleManifest {
        commands = commands == null ? new TreeMap<>() : new TreeMap<>(commands);
    }

    /** One tool run: {@code status} is {@code completed}, {@code absent}, {@code timed-out} or {@code failed}. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Run(String command, String status, Integer exitCode, String stderr, String detail,
                      Long durationMs, Boolean truncated) {
    }
}
