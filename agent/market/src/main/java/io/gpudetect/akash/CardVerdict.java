package io.gpudetect.akash;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * What becomes of one card on Akash.
 *
 * @param pciId      {@code 10de:2684}, the key the operator looks the card up by; null when not known
 * @param counted    how many times the operator counts it in its labels (one per DRM card; 0 when skipped)
 * @param reasons    why it is not bid on, or what is wrong with it, word for word as printed
 * @param tableEntry the gpus.json text to add for a card the table lacks
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CardVerdict(String pciAddress, String name, String pciId, Verdict verdict, int counted,
                          List<String> reasons, String tableEntry) {

    public CardVerdict {
        reasons = List.copyOf(reasons);
    }

    /** The fate of a card, from best to worst as far as the exit status goes. */
    public enum Verdict {
        /** Counted by the operator and bid on with the right labels. */
        bid,
        /** Bid on, but under labels that do not describe it (the table's memory size differs from the card's). */
        mislabelled,
        /** The input cannot tell whether the operator counts it (no PCI ids). */
        unknown,
        /**
         * Not a card to bid with: an integrated GPU that the table does not list. The operator skips it and no
         * deployment asks for it, so nothing is lost.
         */
        skipped,
        /** Not bid on: the operator skips it, or the bid engine cannot give it out. */
        dropped
    }
}
