package io.gpudetect.probe;

import io.gpudetect.source.Source;

/**
 * One way of seeing GPUs: a tool, a library or a file tree. A probe reads only through the
 * {@link Source} it is given and never throws: whatever went wrong is in the result's diagnostics.
 */
public interface Probe {

    /** Stable name used in diagnostics and in each field's provenance: {@code nvidia-smi-xml}. */
    String name();

    ProbeResult probe(Source source);
}
