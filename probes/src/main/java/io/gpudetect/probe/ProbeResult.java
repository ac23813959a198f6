package io.gpudetect.probe;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonValue;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import java.util.List;
import java.util.Locale;

/** What one probe saw: its GPUs (partial facts, merged later) and what went wrong. */
public record ProbeResult(String probe, Outcome outcome, List<Gpu> gpus, List<Diagnostic> diagnostics) {

    public enum Outcome {
        /** The source answered and everything in it was understood. */
        OK,
        /** The source is not on this host (tool not installed, file not in the bundle): nothing to say. */
        ABSENT,
        /** The source answered, but part of what it said could not be used. */
        PARTIAL,
        /** The source was there and failed: timeout, crash, unreadable output. */
        FAILED,
        /** Not consulted: the pass's probe plan had no need of it (no GPU it could describe on the bus). */
        SKIPPED;

        @JsonValue
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public ProbeResult {
        gpus = List.copyOf(gpus);
        diagnostics = List.copyOf(diagnostics);
    }

    /** @param why what to tell a person; null when there is nothing to say (a format a recording never holds) */
    public static ProbeResult absent(String probe, Diagnostic why) {
        return new ProbeResult(probe, Outcome.ABSENT, List.of(), why == null ? List.of() : List.of(why));
    }

    public static ProbeResult skipped(String probe) {
        return new ProbeResult(probe, Outcome.SKIPPED, List.of(), List.of());
    }

    public static ProbeResult failed(String probe, Diagnostic why) {
        return new ProbeResult(probe, Outcome.FAILED, List.of(), List.of(why));
    }

    /** OK, PARTIAL or FAILED from what a parser produced. */
    public static ProbeResult of(String probe, List<Gpu> gpus, List<Diagnostic> diagnostics) {
        boolean errors = false;
        boolean warnings = false;
        for (Diagnostic d : diagnostics) {
            errors |= d.severity() == Diagnostic.Severity.ERROR;
            warnings |= d.severity() != Diagnostic.Severity.INFO;
        }
        Outcome outcome = errors && gpus.isEmpty() ? Outcome.FAILED : warnings ? Outcome.PARTIAL : Outcome.OK;
        return new ProbeResult(probe, outcome, gpus, diagnostics);
    }

    /** False when this probe may have missed GPUs that are there: a pass with such a probe is incomplete. */
    @JsonIgnore
    public boolean isComplete() {
        return outcome == Outcome.OK || outcome == Outcome.ABSENT || outcome == Outcome.SKIPPED;
    }
}
