package io.gpudetect.sink;

import java.io.IOException;
import java.io.PrintWriter;

/** Carries out a {@link Sink}'s change: for real, or, in a dry run, by printing it. */
public sealed interface Applier {

    /** Returns how many API requests were sent. */
    <C extends Change> int apply(Sink<?, C> sink, C change) throws IOException;

    /** Writes. */
    record Live() implements Applier {
        @Override
        public <C extends Change> int apply(Sink<?, C> sink, C change) throws IOException {
            return change.writes() ? sink.apply(change) : 0;
        }
    }

    /** Prints what would be written and writes nothing. */
    record Printing(PrintWriter out) implements Applier {
        @Override
        public <C extends Change> int apply(Sink<?, C> sink, C change) {
            if (change.writes()) {
                out.println(change.preview());
                out.flush();
            }
            return 0;
        }
    }
}
