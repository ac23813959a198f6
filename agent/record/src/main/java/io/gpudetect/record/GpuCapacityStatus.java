package io.gpudetect.record;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/**
 * How the last pass went. Written only when the outcome or a diagnostic changes, or when
 * {@code lastGoodPass} is due a refresh (every few minutes, like a node Lease heartbeat), so that a
 * healthy node costs the API server nothing between heartbeats.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record GpuCapacityStatus(
        @JsonPropertyDescription("complete: every present probe answered; incomplete: one failed or timed out, labels were kept as they were.")
        String lastPassOutcome,
        @JsonPropertyDescription("Warnings and errors of the last pass (tools missing are not listed).")
        List<Problem> problems,
        @JsonPropertyDescription("When a complete pass last confirmed this record (RFC 3339), refreshed at most once per heartbeat interval.")
        String lastGoodPass,
        @JsonPropertyDescription("Who owns the node's akash.network* labels (and nvidia.com/gpu.present) when it is not the agent: "
                + "'owned by Akash inventory operator (how the agent knows)'; the agent then adds, changes and removes none of them.")
        String akashLabels) {

    public GpuCapacityStatus {
        problems = problems == null ? List.of() : List.copyOf(problems);
    }

    /** One diagnostic of the pass: which probe, which input, what went wrong. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Problem(String severity, String probe, String file, Integer line, String message) {
    }
}
