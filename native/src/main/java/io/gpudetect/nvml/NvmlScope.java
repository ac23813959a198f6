package io.gpudetect.nvml;

/**
 * What the NVML probe needs of NVML: one consistent look at the library and its devices, taken between
 * one {@code nvmlInit} and its {@code nvmlShutdown}. {@link JnaNvmlScope} takes it from the real library;
 * a test hands the probe any snapshot it wants.
 */
@FunctionalInterface
public interface NvmlScope {

    /** Never throws: a library that is missing or failing is described in the snapshot. */
    NvmlSnapshot snapshot();

    /**
     * What can change while an agent runs ({@link NvmlPulse}), for its steady passes; never throws. This one reads
     * a whole snapshot; a scope that can do with fewer calls reads fewer.
     */
    default NvmlPulse pulse() {
        return NvmlPulse.of(snapshot());
    }
}
