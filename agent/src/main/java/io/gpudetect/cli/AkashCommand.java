package io.gpudetect.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpudetect.akash.AkashForecast;
import io.gpudetect.akash.AkashGpuTable;
import io.gpudetect.akash.AkashReport;
import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.akash.InventoryOperatorConfig;
import io.gpudetect.akash.NodeInput;
import io.gpudetect.akash.RecordNodes;
import io.gpudetect.inventory.Detector;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.match.CapacityRecordOffers;
import io.gpudetect.match.InvalidInputException;
import io.gpudetect.probe.Probes;
import io.gpudetect.source.BundleException;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.Source;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gpu-detect akash}: the labels Akash's inventory operator will write on this host, a bundle's host or every
 * node of a cluster, and each card it will not bid with, with the reason. Exit status 0 every card is bid on, 1
 * some card is not, 2 invalid input.
 */
@Command(name = "akash", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false,
        description = "Predicts the labels Akash's inventory operator writes and lists every card the provider will "
                + "not bid with, and why (docs/akash.md).",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:every card is bid on (checks the input cannot support are listed, not counted)",
                "1:some card will not be bid on", "2:invalid input (bundle, records, Akash GPU table)"})
public final class AkashCommand implements Callable<Integer> {

    /** How long fetching {@code --akash-table URL} may take. */
    static final Duration TABLE_FETCH_TIMEOUT = Duration.ofSeconds(20);

    @Spec
    CommandSpec spec;

    @Option(names = "--records", paramLabel = "FILE",
            description = "GpuCapacity records (kubectl get gpucapacities,nodes -o yaml) instead of this host.")
    Path records;

    @Mixin
    ClusterOption cluster = new ClusterOption();

    @Option(names = "--akash-table", paramLabel = "FILE|URL",
            description = "Akash's GPU table (gpus.json), or the provider-configs URL given to the operator's "
                    + "--provider-configs-url (read at <URL>/devices/gpus); default: the copy shipped with gpu-detect.")
    String akashTable;

    @Option(names = "--akash-inventory-config", paramLabel = "FILE",
            description = "The inventory operator's configuration (its config.yaml, or the ConfigMap holding it: "
                    + "inventory-configmap or operator-inventory in akash-services), for the nodes its exclude.nodes "
                    + "rules leave out.")
    Path inventoryConfig;

    @Mixin
    DetectionOptions detection;

    @Mixin
    OutputOption output;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        AkashForecast forecast;
        try {
            AkashGpuTable table = akashTable == null ? AkashGpuTable.shipped() : AkashGpuTable.load(akashTable, TABLE_FETCH_TIMEOUT);
            int given = (records != null ? 1 : 0) + (cluster.chosen() ? 1 : 0) + (detection.replay != null ? 1 : 0);
            if (given > 1) {
                throw new InvalidInputException(null, null, null, "give one of --records, --cluster and --replay");
            }
            InventoryOperatorConfig config = inventoryConfig == null ? null : InventoryOperatorConfig.load(inventoryConfig);
            if (records != null) {
                CapacityRecordOffers.RecordStore store = CapacityRecordOffers.file(records);
                forecast = AkashForecast.of(store.describe(), table, RecordNodes.read(store), config);
            } else if (cluster.chosen()) {
                try (KubernetesClient client = cluster.connect()) {
                    CapacityRecordOffers.RecordStore store = CapacityRecordOffers.cluster(client);
                    forecast = AkashForecast.of(store.describe(), table, RecordNodes.read(store), config);
                }
            } else {
                forecast = fromHost(table, config);
            }
        } catch (InvalidInputException e) {
            err.println("gpu-detect akash: " + e.getMessage());
            err.flush();
            return MatchCommand.EXIT_INVALID_INPUT;
        }
        output.print(out, () -> AkashReport.json(forecast), () -> AkashReport.table(forecast));
        return forecast.everyCardBidOn() ? MatchCommand.EXIT_FITS : MatchCommand.EXIT_DOES_NOT_FIT;
    }

    /** This host or a bundle: detection plus the DRM cards, read through the same source. */
    private AkashForecast fromHost(AkashGpuTable table, InventoryOperatorConfig config) throws InvalidInputException {
        Source source;
        try {
            source = detection.source();
        } catch (BundleException e) {
            throw new InvalidInputException(null, "--replay", null, e.getMessage());
        }
        Inventory inventory = new Detector(Probes.defaults(detection.probeSettings())).detect(source);
        DrmCards drm = DrmCards.read(source);
        String node = OfferOptions.nodeName(source, detection.replay);
        NodeInput input = new NodeInput(node, inventory.realGpus(), drm, null,
                "a host on its own does not know its node's allocatable nvidia.com/gpu or amd.com/gpu; "
                        + "use --records or --cluster", null,
                "a host on its own does not know its Node's Ready condition or cordon; use --records or --cluster",
                source.describe());
        return AkashForecast.of(inventory.source(), table, List.of(input), config);
    }
}
