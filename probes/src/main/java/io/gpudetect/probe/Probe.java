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

    /** What this probe can describe: when a live pass consults it. */
    ProbeRole role();

    /** False for a probe that only reads a recorded bundle (a pasted table): a live pass never consults it. */
    default boolean runsOnLiveHost() {
        return true;
    }

    /**
     * False for a source that prints PCI addresses without their domain (rocminfo): its {@code 0000} is a
     * guess, so the inventory may match it to the same bus, device and function in another domain.
     */
    default boolean printsPciDomain() {
        return true;
    }
}
