package io.gpudetect.match;

import java.util.List;

/** Where the nodes to match against come from: this host, a recorded bundle, a record file or a cluster. */
public interface OfferSource {

    /** The nodes, sorted by name. */
    List<NodeOffer> offers() throws InvalidInputException;

    /** What the offers were read from, for the output ({@code records.yaml}, {@code bundle DIR}). */
    String describe();
}
