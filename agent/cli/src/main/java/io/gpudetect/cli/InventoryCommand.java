package io.gpudetect.cli;

import io.gpudetect.match.CapacityRecordOffers;
import io.gpudetect.match.ClusterInventory;
import io.gpudetect.match.InvalidInputException;
import io.gpudetect.match.InventoryReport;
import io.gpudetect.match.NodeOffer;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gpu-detect inventory --records FILE}: what the cluster holds per vendor and model, and which nodes'
 * records are stale or missing. Exit status 0 all nodes current, 1 some node flagged, 2 invalid input or a cluster
 * that cannot be read (one line that names the server and the cause: {@link io.gpudetect.k8s.ClusterErrors}).
 */
@Command(name = "inventory", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false,
        description = "Sums GpuCapacity records per vendor and model (nodes, GPUs, allocatable, in use, free) and "
                + "flags nodes whose record is stale or missing.",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:every node has a current record", "1:some node is stale, missing or never had a good pass",
                "2:invalid input, or the cluster cannot be read: no kubeconfig, connection refused, unknown host, "
                        + "TLS failure, 401/403 (RBAC), GpuCapacity CRD not installed"})
public final class InventoryCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--records", paramLabel = "FILE",
            description = "GpuCapacity records, and optionally the cluster's Node objects "
                    + "(kubectl get gpucapacities,nodes -o yaml), so that nodes without a record show as missing.")
    Path records;

    @Mixin
    ClusterOption cluster = new ClusterOption();

    @Option(names = "--stale-after", paramLabel = "DURATION", defaultValue = "10m", converter = DurationConverter.class,
            description = "A record whose last good pass is older than this is stale (default: ${DEFAULT-VALUE}).")
    Duration staleAfter;

    @Option(names = "--now", paramLabel = "TIME", hidden = true,
            description = "The time to judge staleness at (ISO-8601); for reproducible output.")
    String now;

    @Mixin
    OutputOption output;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ClusterInventory inventory;
        try {
            Instant at = now();
            if ((records == null) == !cluster.chosen()) {
                throw new InvalidInputException(null, null, null, "give --records FILE or --cluster");
            }
            try (RecordInput input = RecordInput.open(records, cluster)) {
                inventory = inventory(new CapacityRecordOffers(input.store()), at);
            }
        } catch (InvalidInputException e) {
            err.println("gpu-detect inventory: " + e.getMessage());
            err.flush();
            return MatchCommand.EXIT_INVALID_INPUT;
        }
        output.print(out, () -> InventoryReport.json(inventory), () -> InventoryReport.table(inventory));
        return inventory.flaggedNodes() == 0 ? 0 : 1;
    }

    private ClusterInventory inventory(CapacityRecordOffers source, Instant at) throws InvalidInputException {
        List<NodeOffer> offers = source.offers();
        return ClusterInventory.of(source.describe(), offers, at, staleAfter);
    }

    private Instant now() throws InvalidInputException {
        if (now == null) {
            return Instant.now();
        }
        try {
            return Instant.parse(now);
        } catch (DateTimeParseException e) {
            throw new InvalidInputException(null, "--now", null, "'" + now + "' is not a time such as 2026-05-01T10:00:00Z");
        }
    }
}
