package io.gpudetect.cli;

import io.gpudetect.inventory.Detector;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.match.CapacityRecordOffers;
import io.gpudetect.match.InvalidInputException;
import io.gpudetect.match.InventoryOffers;
import io.gpudetect.match.OfferSource;
import io.gpudetect.probe.Probes;
import io.gpudetect.source.BundleException;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.Source;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The nodes {@code match} compares with: capacity records from a file, a recorded bundle, or this host. */
public final class OfferOptions {

    @Option(names = "--records", paramLabel = "FILE",
            description = "GpuCapacity records (JSON or YAML: a list, a kubectl List, or --- separated documents).")
    Path records;

    @Mixin
    DetectionOptions detection;

    /** Where to read offers from; a usage problem (both --records and --replay) is invalid input. */
    OfferSource source() throws InvalidInputException {
        if (records != null) {
            if (detection.replay != null) {
                throw new InvalidInputException(null, "--records", null, "give --records or --replay, not both");
            }
            return new CapacityRecordOffers(CapacityRecordOffers.file(records));
        }
        Source source;
        try {
            source = detection.source();
        } catch (BundleException e) {
            throw new InvalidInputException(null, "--replay", null, e.getMessage());
        }
        Inventory inventory = new Detector(Probes.defaults()).detect(source);
        if (source instanceof BundleSource bundle) {
            String host = bundle.manifest().host();
            String node = host == null || host.isBlank() ? bundleName(detection.replay) : host;
            return new InventoryOffers(node, inventory, recordedAt(bundle.manifest().recordedAt()));
        }
        return new InventoryOffers(hostName(), inventory, Instant.now());
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
