package io.gpudetect.labels;

import io.gpudetect.inventory.Inventory;
import java.util.SortedMap;

/**
 * One family of node labels, rendered from a pass's inventory. A profile is a pure function: the same
 * inventory gives the same sorted map, whatever order the GPUs or probes came in, so a node never flaps.
 */
public interface LabelProfile {

    /** The name a provider uses to switch the profile on: {@code gpu-detect}, {@code nvidia}, {@code amd}, {@code akash}. */
    String name();

    /** Every label this profile wants on the node; keys and values already valid for Kubernetes. */
    SortedMap<String, String> labels(Inventory inventory);
}
