package io.gpudetect.akash;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;
import java.util.Locale;

/**
 * The operator's view of every node read, with where the facts and the table came from.
 *
 * @param verdict    the exit status' question, answered only as far as the input tells it
 * @param cannotTell what the input could not tell, in the words the closing line prints ({@code 2 cards cannot be
 *                   told (no PCI ids in the input): ...}); null when every card was judged
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AkashForecast(String input, String table, Verdict verdict, String cannotTell, List<NodeForecast> nodes) {

    /** The whole input's answer; a card that cannot be told is never counted as bid on, nor as not bid on. */
    public enum Verdict {
        /** Every card was judged and is bid on (mislabelled or skipped ones included), and no node has a problem. */
        EVERY_CARD_BID_ON,
        /** Some card is known not to be bid on, or a node problem limits the units (whatever else is unknown). */
        SOME_CARD_NOT_BID_ON,
        /** No card is known not to be bid on, but some card cannot be told from the input. */
        CANNOT_TELL;

        @JsonValue
        public String id() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    public AkashForecast {
        nodes = List.copyOf(nodes);
    }

    /**
     * @param config the inventory operator's configuration, for its node exclusions; null when not given
     * @param hint   what gives the missing facts (run on the node itself), for a card that cannot be told; null for none
     */
    public static AkashForecast of(String input, AkashGpuTable table, List<NodeInput> nodes,
                                   InventoryOperatorConfig config, String hint) {
        return fromForecasts(input, table, nodes.stream().map(n -> OperatorRules.forecast(n, table, config)).toList(),
                hint);
    }

    /** The whole input's answer from each node's forecast ({@code out}, in the order to report). */
    static AkashForecast fromForecasts(String input, AkashGpuTable table, List<NodeForecast> out, String hint) {
        long unknown = out.stream().flatMap(n -> n.cards().stream())
                .filter(c -> c.verdict() == CardVerdict.Verdict.unknown).count();
        Verdict verdict = !out.stream().allMatch(NodeForecast::noCardKnownNotBidOn) ? Verdict.SOME_CARD_NOT_BID_ON
                : unknown > 0 ? Verdict.CANNOT_TELL : Verdict.EVERY_CARD_BID_ON;
        // A card is unknown only for want of its PCI vendor and device id (OperatorRules): the table's key.
        String cannotTell = unknown == 0 ? null : unknown + (unknown == 1 ? " card cannot" : " cards cannot")
                + " be told (no PCI ids in the input)" + (hint == null ? "" : ": " + hint);
        return new AkashForecast(input, table.origin(), verdict, cannotTell, out);
    }
}
