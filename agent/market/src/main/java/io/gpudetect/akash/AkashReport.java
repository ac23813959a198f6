package io.gpudetect.akash;

import com.fasterxml.jackson.core.JsonGenerator;
import io.gpudetect.render.InventoryDocument;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.List;
import java.util.Map;

/** An {@link AkashForecast} for a person (a block per node) or as JSON. */
public final class AkashReport {

    private AkashReport() {
    }

    public static String json(AkashForecast forecast) {
        StringWriter out = new StringWriter();
        json(forecast, out);
        return out.toString();
    }

    /**
     * The JSON written to {@code out} as it is made, which stays open: at 10,000 nodes the report as one string (some
     * 22 MB, its characters held twice over while it was made) no longer fitted the command's heap beside the
     * forecasts.
     */
    public static void json(AkashForecast forecast, Writer out) {
        try {
            InventoryDocument.jsonMapper().writer().without(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
                    .writeValue(out, forecast);
            out.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String table(AkashForecast forecast) {
        StringBuilder out = new StringBuilder();
        out.append("What Akash's inventory operator sees, from ").append(forecast.input()).append(", with Akash's GPU table from ")
                .append(forecast.table()).append("\n");
        int dropped = 0;
        for (NodeForecast n : forecast.nodes()) {
            out.append("\nnode ").append(n.node()).append(": ");
            out.append(n.cards().isEmpty() ? "no GPUs" : n.cards().size() + (n.cards().size() == 1 ? " card: " : " cards: ")
                    + OperatorRules.summary(n.cards())).append('\n');
            if (n.excluded() != null) {
                out.append("  left out: ").append(n.excluded()).append('\n');
            }
            out.append(n.labels().isEmpty() ? "  labels the operator writes: none\n" : "  labels the operator writes:\n");
            for (Map.Entry<String, String> l : n.labels().entrySet()) {
                out.append("    ").append(l.getKey()).append('=').append(l.getValue()).append('\n');
            }
            // A reason every card of the node has is said once, for the node (eight identical lines tell no more);
            // the reason the whole node is left out is said above, under "left out".
            List<String> shared = n.cards().size() < 2 ? List.of() : shared(n.cards());
            List<String> everyCard = shared.stream().filter(r -> !r.equals(n.excluded())).toList();
            list(out, "  every card:", everyCard);
            for (CardVerdict c : n.cards()) {
                if (c.verdict() == CardVerdict.Verdict.dropped) {
                    dropped++;
                }
                out.append("  card ").append(c.pciAddress() == null ? "(address unknown)" : c.pciAddress())
                        .append("  ").append(c.pciId() == null ? "????:????" : c.pciId())
                        .append("  ").append(c.name() == null ? "(unnamed)" : c.name())
                        .append(": ").append(words(c.verdict())).append('\n');
                for (String r : c.reasons()) {
                    if (!shared.contains(r)) {
                        out.append("    - ").append(r).append('\n');
                    }
                }
                if (c.tableEntry() != null) {
                    out.append("    gpus.json entry to add: ").append(c.tableEntry()).append('\n');
                }
            }
            if (n.interconnect() != null) {
                out.append("  GPU interconnect capabilities the provider could declare: ").append(n.interconnect().isEmpty()
                        ? "none (no active InfiniBand or RoCE port)" : String.join(", ", n.interconnect())).append('\n');
            }
            list(out, "  problems:", n.problems());
            list(out, "  warnings:", n.warnings());
            list(out, "  not checked:", n.notChecked());
        }
        out.append('\n').append(closing(forecast, dropped)).append('\n');
        return out.toString();
    }

    /**
     * The last line: only what is known. A card that cannot be told is neither bid on nor not bid on, so "every
     * card is bid on" is said only when every card was judged.
     */
    private static String closing(AkashForecast forecast, int dropped) {
        String notBid = "Some cards will not be bid on (" + dropped + " card" + (dropped == 1 ? "" : "s") + " dropped"
                + (forecast.nodes().stream().anyMatch(n -> !n.problems().isEmpty()) ? ", and node problems above" : "") + ")";
        return switch (forecast.verdict()) {
            case EVERY_CARD_BID_ON -> "Every card is bid on";
            case CANNOT_TELL -> forecast.cannotTell();
            case SOME_CARD_NOT_BID_ON -> forecast.cannotTell() == null ? notBid : notBid + "; " + forecast.cannotTell();
        };
    }

    /** The reasons every one of {@code cards} gives, in the first card's order. */
    private static List<String> shared(List<CardVerdict> cards) {
        return cards.get(0).reasons().stream().distinct()
                .filter(r -> cards.stream().allMatch(c -> c.reasons().contains(r))).toList();
    }

    private static void list(StringBuilder out, String title, List<String> lines) {
        if (lines.isEmpty()) {
            return;
        }
        out.append(title).append('\n');
        for (String l : lines) {
            out.append("    - ").append(l).append('\n');
        }
    }

    private static String words(CardVerdict.Verdict v) {
        return switch (v) {
            case bid -> "bid on";
            case mislabelled -> "bid on, mislabelled";
            case unknown -> "cannot tell";
            case skipped -> "not offered";
            case dropped -> "NOT bid on";
        };
    }
}
