package io.gpudetect.match;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The answer for one placement: each node's verdict for one replica taken alone, and where the replicas went
 * when the whole demand was placed together ({@code assigned}, one node per placed replica).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PlacementMatch(String service, String placement, String profile, int replicas,
                             @JsonProperty("gpu") String request, int unitsPerReplica, List<GpuChoice> choices,
                             boolean fits, int placed, List<String> assigned, List<NodeVerdict> nodes) {

    public PlacementMatch {
        choices = List.copyOf(choices);
        assigned = List.copyOf(assigned);
        nodes = List.copyOf(nodes);
    }
}
