package io.gpudetect.akash;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The operator's view of one node: the labels it writes, each card's fate, the node's own problems (which fail
 * the check) and what the input could not tell (which does not).
 *
 * @param labels   every label the operator writes on the node, keys sorted, as {@code generateLabels} makes them
 * @param problems node-wide reasons some cards are not bid on (fewer allocatable units than cards, ...)
 * @param notChecked checks the input could not support, each with why
 * @param excluded  why the operator leaves the whole node out (not Ready, cordoned, or excluded by its
 *                  configuration), word for word; null when it does not, or when that is not known
 * @param interconnect the GPU interconnect capabilities the provider could declare for this node
 *                  ({@link InterconnectCapabilities}); empty when none, null when its fabric is not known
 * @param warnings  what the operator does that the provider should know but that leaves every card's fate as it is
 *                  (it would bid on a failed GPU the Node's allocatable still counts); they do not fail the check
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeForecast(String node, SortedMap<String, String> labels, List<CardVerdict> cards,
                           List<String> problems, List<String> notChecked, String excluded,
                           List<String> interconnect,
                           @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> warnings) {

    /** A forecast that says nothing of GPU interconnect. */
    public NodeForecast(String node, SortedMap<String, String> labels, List<CardVerdict> cards, List<String> problems,
                        List<String> notChecked, String excluded) {
        this(node, labels, cards, problems, notChecked, excluded, null, List.of());
    }

    /** A forecast without warnings. */
    public NodeForecast(String node, SortedMap<String, String> labels, List<CardVerdict> cards, List<String> problems,
                        List<String> notChecked, String excluded, List<String> interconnect) {
        this(node, labels, cards, problems, notChecked, excluded, interconnect, List.of());
    }

    public NodeForecast {
        interconnect = interconnect == null ? null : List.copyOf(interconnect);
        labels = Collections.unmodifiableSortedMap(new TreeMap<>(labels));
        cards = List.copyOf(cards);
        problems = List.copyOf(problems);
        notChecked = List.copyOf(notChecked);
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
    }

    /**
     * True when no card is known not to be bid on and the node has no problem. A card that cannot be told is not
     * counted either way: {@link AkashForecast#verdict()} says so apart.
     */
    boolean noCardKnownNotBidOn() {
        return problems.isEmpty() && cards.stream().noneMatch(c -> c.verdict() == CardVerdict.Verdict.dropped);
    }
}
