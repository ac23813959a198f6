package io.gpudetect.cli;

import io.gpudetect.akash.InventoryOperatorConfig;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.match.CapacityRecordOffers;
import io.gpudetect.match.InvalidInputException;
import io.gpudetect.match.InventoryOffers;
import io.gpudetect.match.KubeNode;
import io.gpudetect.match.NodeOffer;
import io.gpudetect.match.OfferSource;
import io.gpudetect.source.BundleException;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.Source;
import io.gpudetect.tables.TableException;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The nodes {@code match} compares with: capacity records from a file or from the cluster, a recorded bundle, or
 * this host. Owns the cluster client when there is one: {@link #close} it after the offers are read.
 */
public final class OfferOptions implements AutoCloseable {

    @Option(names = "--records", paramLabel = "FILE",
            description = "GpuCapacity records (JSON or YAML: a list, a kubectl List, or --- separated documents).")
    Path records;

    @Mixin
    ClusterOption cluster = new ClusterOption();

    @Mixin
    DetectionOptions detection;

    @Option(names = "--akash-inventory-config", paramLabel = "FILE",
            description = "Akash's inventory operator configuration (its config.yaml, or the ConfigMap holding it): "
                    + "nodes its exclude.nodes rules leave out take no replica.")
    Path inventoryConfig;

    /** Said by every command that reads one of records, the cluster or a bundle when given more than one. */
    static final String ONLY_ONE_INPUT = "give only one of --records, --cluster and --replay";

    private RecordInput recordInput;

    /** Where to read offers from; a usage problem (both --records and --replay) is invalid input. */
    OfferSource source() throws InvalidInputException {
        int given = (records != null ? 1 : 0) + (cluster.chosen() ? 1 : 0) + (detection.replay != null ? 1 : 0);
        if (given > 1) {
            throw new InvalidInputException(null, null, null, ONLY_ONE_INPUT);
        }
        Function<String, String> exclusionRules = node -> null;
        if (inventoryConfig != null) {
            exclusionRules = InventoryOperatorConfig.load(inventoryConfig)::exclusionRule;
        }
        recordInput = RecordInput.open(records, cluster);
        if (recordInput != null) {
            return new CapacityRecordOffers(recordInput.store(), exclusionRules);
        }
        DetectionOptions.Input input;
        try {
            input = detection.input();
        } catch (BundleException e) {
            throw new InvalidInputException(null, "--replay", null, e.getMessage());
        } catch (TableException e) {
            throw new InvalidInputException(null, null, null, e.getMessage());
        }
        Source source = input.source();
        Inventory inventory = detection.detect(input);
        InventoryOffers host = source instanceof BundleSource bundle
                ? new InventoryOffers(nodeName(source, detection.replay), inventory, recordedAt(bundle.manifest().recordedAt()))
                : new InventoryOffers(nodeName(source, null), inventory, Instant.now());
        Function<String, String> rules = exclusionRules;
        return new OfferSource() {
            @Override
            public List<NodeOffer> offers() {
                NodeOffer offer = host.offer();
                return List.of(offer.judged(KubeNode.named(offer.node()), rules.apply(offer.node())));
            }

            @Override
            public String describe() {
                return host.describe();
            }
        };
    }

    /** The node a detection source stands for: a bundle's recorded host (else its folder's name), or this host. */
    static String nodeName(Source source, Path replay) {
        if (source instanceof BundleSource bundle) {
            String host = bundle.manifest().host();
            return host == null || host.isBlank() ? bundleName(replay) : host;
        }
        return hostName();
    }

    @Override
    public void close() {
        if (recordInput != null) {
            recordInput.close();
        }
    }

    private static String bundleName(Path dir) {
        Path name = dir.toAbsolutePath().normalize().getFileName();
        return name == null ? dir.toString() : name.toString();
    }

    private static Instant recordedAt(String text) {
        if (text == null) {
            return null;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** The node this runs on: {@code NODE_NAME} in a pod (downward API), else the host name. */
    private static String hostName() {
        String node = System.getenv("NODE_NAME");
        if (node != null && !node.isBlank()) {
            return node;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }
}
