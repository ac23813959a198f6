package io.gpudetect.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpudetect.match.CapacityRecordOffers;
import io.gpudetect.match.InvalidInputException;
import java.nio.file.Path;

/**
 * The capacity records a command reads: the file {@code --records} names, else the cluster's with {@code --cluster}.
 * Holds the cluster client, if one was opened, until {@link #close}.
 */
final class RecordInput implements AutoCloseable {

    private final CapacityRecordOffers.RecordStore store;
    private final KubernetesClient client;

    private RecordInput(CapacityRecordOffers.RecordStore store, KubernetesClient client) {
        this.store = store;
        this.client = client;
    }

    /**
     * The records from {@code records} when it is given, else from the cluster when {@code --cluster} is; null when
     * neither is (try-with-resources accepts it). A kubeconfig that cannot be used is invalid input.
     */
    static RecordInput open(Path records, ClusterOption cluster) throws InvalidInputException {
        if (records != null) {
            return new RecordInput(CapacityRecordOffers.file(records), null);
        }
        if (cluster.chosen()) {
            KubernetesClient client = cluster.connect();
            return new RecordInput(CapacityRecordOffers.cluster(client), client);
        }
        return null;
    }

    CapacityRecordOffers.RecordStore store() {
        return store;
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
    }
}
