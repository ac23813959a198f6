package io.gpudetect.record;

import java.util.Locale;

/**
 * How a pass went, decided in one place ({@code DesiredState.of}) and read by everything after it: the label
 * outputs (an incomplete pass changes no label), the record (its spec kept, its status saying so, its
 * {@code lastGoodPass} not advanced), the pass's report, log line and metrics.
 */
public enum PassOutcome {
    /** Every present probe answered and the profiles agreed on the labels. */
    COMPLETE,
    /** A probe failed or timed out, or two profiles produced the same key: labels and spec are kept as they are. */
    INCOMPLETE;

    /** As the record's {@code lastPassOutcome}, the log and the metrics say it. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
