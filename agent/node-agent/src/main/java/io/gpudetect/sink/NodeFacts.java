package io.gpudetect.sink;

import io.gpudetect.k8s.health.HealthMarks;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a pass reads about its Node before it decides anything: the labels and annotations Akash's coexistence
 * is judged from, and the GPU resources the record publishes. Plain values: the Node object itself stays with
 * the targets that write it.
 *
 * @param allocatable the Node's allocatable GPU resources
 * @param requested   what the pods bound to the Node request of them
 * @param health      the agent's health condition and taint as the Node holds them
 * @param bootId      the node's boot id as the kubelet reports it ({@code status.nodeInfo.bootID}); null when not known
 */
public record NodeFacts(String uid, Map<String, String> labels, Map<String, String> annotations,
                        SortedMap<String, Long> allocatable, SortedMap<String, Long> requested, HealthMarks health,
                        String bootId) {

    public NodeFacts {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
        allocatable = new TreeMap<>(allocatable);
        requested = new TreeMap<>(requested);
    }

    /** No Node read: a dry run without a cluster. Every label shows as new. */
    public static final NodeFacts NONE = new NodeFacts(null, Map.of(), Map.of(), new TreeMap<>(), new TreeMap<>(),
            HealthMarks.NONE, null);
}
