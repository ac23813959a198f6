package io.gpudetect.akash;

import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.match.KubeNode;
import io.gpudetect.model.Gpu;
import io.gpudetect.record.dra.NodeHandout;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What is known of one node for predicting Akash's inventory operator.
 *
 * @param gpus        the node's real GPUs (emulated display adapters left out)
 * @param drm         its DRM cards, or why they are not known
 * @param allocatable the node's GPU extended resources ({@code nvidia.com/gpu: 8}); null when not known
 * @param allocatableNotKnown why {@code allocatable} is null
 * @param state       its Node object's Ready condition and cordon; null when no Node object was read
 * @param stateNotKnown why {@code state} is null, or says nothing of readiness
 * @param source      what the facts were read from, for messages
 * @param handout     how the record says the GPUs are handed out (device plugin, DRA driver); null when it does not
 *                    say (an older agent's record, a host on its own)
 * @param fabric      the node's RDMA fabric; null when not known
 */
public record NodeInput(String node, List<Gpu> gpus, DrmCards drm, Map<String, Long> allocatable,
                        String allocatableNotKnown, KubeNode state, String stateNotKnown, String source,
                        NodeHandout handout, io.gpudetect.record.FabricSpec fabric) {

    /** A node whose RDMA fabric is not known. */
    public NodeInput(String node, List<Gpu> gpus, DrmCards drm, Map<String, Long> allocatable, String allocatableNotKnown,
                     KubeNode state, String stateNotKnown, String source, NodeHandout handout) {
        this(node, gpus, drm, allocatable, allocatableNotKnown, state, stateNotKnown, source, handout, null);
    }

    public NodeInput {
        gpus = List.copyOf(gpus);
        allocatable = allocatable == null ? null : Collections.unmodifiableMap(new TreeMap<>(allocatable));
    }
}
