package io.gpudetect.sink;

import io.fabric8.kubernetes.api.model.Node;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.record.GpuCapacityStatus;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * What one pass produced, rendered once and handed to every sink.
 *
 * @param nodeName     the node the agent runs on
 * @param node         the Node as the agent last saw it; null in a dry run without a cluster
 * @param labels       the labels the enabled profiles produced, the Akash operator's keys left out where it runs
 * @param complete     false when a probe failed: label outputs then keep what they hold, the record its spec
 * @param recordSpec   the {@code GpuCapacity} spec
 * @param recordStatus the record's status given the status it holds now (null when none is known)
 */
public record PassOutput(String nodeName, Node node, SortedMap<String, String> labels, boolean complete,
                         GpuCapacitySpec recordSpec, UnaryOperator<GpuCapacityStatus> recordStatus) {

    public PassOutput {
        labels = Collections.unmodifiableSortedMap(new TreeMap<>(labels));
    }

    /** The same output against the Node as read again. */
    public PassOutput withNode(Node fresh) {
        return new PassOutput(nodeName, fresh, labels, complete, recordSpec, recordStatus);
    }
}
