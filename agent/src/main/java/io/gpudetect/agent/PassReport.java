package io.gpudetect.agent;

import io.gpudetect.k8s.LabelChange;

/**
 * What one pass did. {@code outcome} is {@code complete}, {@code incomplete} (a probe failed: labels kept)
 * or {@code error} (the API server could not be reached or refused; retried with backoff).
 */
public record PassReport(String outcome, int gpus, LabelChange labelChange, int apiWrites, String error) {

    public boolean failed() {
        return error != null;
    }
}
