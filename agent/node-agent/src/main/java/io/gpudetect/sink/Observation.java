package io.gpudetect.sink;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.record.GpuCapacitySpec;

/**
 * What one pass saw of the host, read together through one source: the inventory, the DRM cards (nvidia_drm may
 * be loaded while the agent runs) and the host's facts.
 *
 * @param drmCards  {@link DrmCards.NotKnown} leaves the record's {@code sysClassDrm} and {@code drmCards} out
 * @param hostFacts the record's {@code host}; null when not known (a replayed bundle)
 */
public record Observation(Inventory inventory, DrmCards drmCards, GpuCapacitySpec.HostFacts hostFacts) {
}
