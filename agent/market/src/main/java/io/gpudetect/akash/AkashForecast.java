package io.gpudetect.akash;

import java.util.List;

/**
 * The operator's view of every node read, with where the facts and the table came from.
 *
 * @param everyCardBidOn the exit status' question: no card dropped and no node problem (unknowns do not count)
 */
public record AkashForecast(String input, String table, boolean everyCardBidOn, List<NodeForecast> nodes) {

    public AkashForecast {
        nodes = List.copyOf(nodes);
    }

    /**
     * @param config the inventory operator's configuration, for its node exclusions; null when not given
     */
    public static AkashForecast of(String input, AkashGpuTable table, List<NodeInput> nodes,
                                   InventoryOperatorConfig config) {
        List<NodeForecast> out = nodes.stream().map(n -> OperatorRules.forecast(n, table, config)).toList();
        return new AkashForecast(input, table.origin(), out.stream().allMatch(NodeForecast::everyCardBidOn), out);
    }
}
