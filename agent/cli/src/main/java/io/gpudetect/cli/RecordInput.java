package io.gpudetect.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpudetect.match.CapacityRecordOffers;
import io.gpudetect.match.InvalidInputException;
import io.gpudetect.match.RecordSet;
import java.nio.file.Path;

/**
 * The capacity records a command reads: the file {@code --records} names, else the cluster's with {@code --cluster}.
 * Holds the cluster client, if one was opened, until {@link #close}.
 */
final class RecordInput implements AutoCloseable {

    /** How many MiB a YAML records file may hold, when not the default. */
    static final String YAML_LIMIT_VARIABLE = "GPU_DETECT_YAML_LIMIT_MIB";

    private final CapacityRecordOffers.RecordStore store;
    private final KubernetesClient client;

    private RecordInput(CapacityRecordOffers.RecordStore store, KubernetesClient client) {
        this.store = store;
        this.client = client;
    }

    /**
     * The records from {@code records} when it is given, else from the cluster when {@code --cluster} is; null when
     * neither is (try-with-resources accepts it). A kubeconfig that cannot be used is invalid input. A cluster's list
     * that stands still for {@link ClusterOption#stallLimit} is given up ({@link ListingWatch}).
     */
    static RecordInput open(Path records, ClusterOption cluster) throws InvalidInputException {
        if (records != null) {
            return new RecordInput(CapacityRecordOffers.file(records, yamlLimit(System.getenv(YAML_LIMIT_VARIABLE))),
                    null);
        }
        if (cluster.chosen()) {
            ListingWatch watch = new ListingWatch(cluster.stallLimit);
            KubernetesClient client = cluster.connect(watch);
            return new RecordInput(watch.guard(CapacityRecordOffers.cluster(client), client.getMasterUrl().toString()),
                    client);
        }
        return null;
    }

    /** The most characters a YAML records file may have: {@code GPU_DETECT_YAML_LIMIT_MIB} MiB, when it is set. */
    static long yamlLimit(String mib) throws InvalidInputException {
        if (mib == null || mib.isBlank()) {
            return RecordSet.DEFAULT_YAML_LIMIT;
        }
        if (!mib.strip().matches("[1-9]\\d{0,6}")) {
            throw new InvalidInputException(null, null, null, "GPU_DETECT_YAML_LIMIT_MIB: expected a whole number of "
                    + "MiB such as 1024, found '" + mib + "'");
        }
        return Long.parseLong(mib.strip()) << 20;
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
