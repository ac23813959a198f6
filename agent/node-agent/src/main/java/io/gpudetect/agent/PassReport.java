package io.gpudetect.agent;

import io.gpudetect.record.PassOutcome;
import io.gpudetect.sink.Change;
import java.time.Duration;

/**
 * What one pass did. {@code outcome} is complete, or incomplete (a probe failed or the profiles disagreed:
 * labels kept); {@code error}, when not null, says why the pass failed (detection failed, the API server could
 * not be reached or refused; retried at the next interval).
 * {@code labelChange} is what the label output decided (null when the pass ended before it decided).
 * {@code retryAfter} is the longest delay the API server asked for during the pass (429 {@code Retry-After}),
 * zero when it asked for none.
 */
public record PassReport(PassOutcome outcome, int gpus, Change labelChange, int apiWrites, String error,
                         Duration retryAfter) {

    public PassReport(PassOutcome outcome, int gpus, Change labelChange, int apiWrites, String error) {
        this(outcome, gpus, labelChange, apiWrites, error, Duration.ZERO);
    }

    public boolean failed() {
        return error != null;
    }

    /**
     * The pass's own result, as the log and the metrics count it: {@code error} when it failed (the API server
     * down, say), else its detection's outcome. A complete detection that could not be written is not a complete pass.
     */
    public String result() {
        return failed() ? "error" : outcome.id();
    }

    PassReport withRetryAfter(Duration value) {
        return new PassReport(outcome, gpus, labelChange, apiWrites, error, value);
    }
}
