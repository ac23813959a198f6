package io.gpudetect.match;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * The answer to "can these nodes serve this deployment?": {@code fits} when every replica of every placement
 * found a node, with all of one replica's units on that node.
 *
 * @param demand   what was asked (the SDL file or {@code --gpu})
 * @param offers   what was matched against (records file, bundle, this host)
 * @param warnings the demand's warnings ({@link Demand#warnings}), then each node's ({@link NodeOffer#warnings})
 */
public record MatchResult(String demand, String offers, boolean fits, List<PlacementMatch> placements,
                          @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> warnings) {

    public MatchResult {
        placements = List.copyOf(placements);
        warnings = List.copyOf(warnings);
    }
}
