package io.gpudetect.cli;

import io.gpudetect.akash.AkashForecast;
import io.gpudetect.akash.AkashGpuTable;
import io.gpudetect.akash.AkashReport;
import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.akash.InventoryOperatorConfig;
import io.gpudetect.akash.NodeInput;
import io.gpudetect.akash.RecordNodes;
import io.gpudetect.inventory.Detector;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.match.InvalidInputException;
import io.gpudetect.probe.Probes;
import io.gpudetect.render.OutputFormat;
import io.gpudetect.source.BundleException;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.Source;
import io.gpudetect.tables.AkashGpus;
import io.gpudetect.tables.AkashTableReader;
import io.gpudetect.tables.TableException;
import io.gpudetect.tables.Tables;
import java.io.PrintWriter;
import java.nio.file.Path;
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
 * some card is not, 2 invalid input, 3 some card cannot be told from the input (and none is known not to be bid on).
 */
@Command(name = "akash", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false,
        description = "Predicts the labels Akash's inventory operator writes and lists every card the provider will "
                + "not bid with, and why (docs/akash.md).",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:every card is bid on (checks the input cannot support are listed, not counted)",
                "1:some card will not be bid on", "2:invalid input (bundle, records, Akash GPU table)",
                "3:some card cannot be told from the input (no PCI ids), and none is known not to be bid on"})
public final class AkashCommand implements Callable<Integer> {

    /**
     * Some card cannot be told from the input (no PCI ids: a pasted nvidia-smi table, a record without them) and no
     * card is known not to be bid on: neither "every card is bid on" (0) nor "some card is not" (1).
     */
    public static final int EXIT_CANNOT_TELL = 3;

    /** What gives the facts a card that cannot be told lacks, for input read away from the node. */
    static final String ON_THE_NODE = "run `gpu-detect akash` on the node itself";

    @Spec
    CommandSpec spec;

    @Option(names = "--records", paramLabel = "FILE",
            description = "GpuCapacity records (kubectl get gpucapacities,nodes -o yaml) instead of this host.")
    Path records;

    @Mixin
    ClusterOption cluster = new ClusterOption();

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
            // --akash-table (detection's option): the operator's own reading of the table first, so a table it would
            // refuse is reported in its terms; detection then names the cards from the same text.
            AkashTableReader.Text text = akashTableText();
            AkashGpuTable table = AkashGpuTable.parse(text.json(), text.origin());
            int given = (records != null ? 1 : 0) + (cluster.chosen() ? 1 : 0) + (detection.replay != null ? 1 : 0);
            if (given > 1) {
                throw new InvalidInputException(null, null, null, OfferOptions.ONLY_ONE_INPUT);
            }
            InventoryOperatorConfig config = inventoryConfig == null ? null : InventoryOperatorConfig.load(inventoryConfig);
            try (RecordInput input = RecordInput.open(records, cluster)) {
                forecast = input != null
                        ? RecordNodes.forecast(input.store(), table, config, ON_THE_NODE)
                        : fromHost(table, AkashGpus.parse(text.json(), text.origin()), config);
            }
        } catch (InvalidInputException | TableException e) {
            err.println("gpu-detect akash: " + e.getMessage());
            err.flush();
            return MatchCommand.EXIT_INVALID_INPUT;
        }
        if (output.format() == OutputFormat.json) {
            // Written as it is made: a cluster's report as one string did not fit the heap at 10,000 nodes.
            AkashReport.json(forecast, out);
            out.flush();
        } else {
            output.print(out, () -> AkashReport.json(forecast), () -> AkashReport.table(forecast));
        }
        return switch (forecast.verdict()) {
            case EVERY_CARD_BID_ON -> MatchCommand.EXIT_FITS;
            case SOME_CARD_NOT_BID_ON -> MatchCommand.EXIT_DOES_NOT_FIT;
            case CANNOT_TELL -> EXIT_CANNOT_TELL;
        };
    }

    /**
     * The table's text as {@code --akash-table} names it. A prediction needs one: without it (no network and nothing
     * cached, or {@code none}) this is invalid input with the reason, where detection would name cards by its own rules.
     */
    private AkashTableReader.Text akashTableText() throws InvalidInputException {
        AkashTableReader.Text text;
        try {
            text = detection.akashTableReader().text(detection.akashTable());
        } catch (TableException e) {
            throw new InvalidInputException(null, null, null, e.getMessage());
        }
        if (text.json() == null) {
            throw new InvalidInputException(null, "--akash-table", null, "no Akash GPU table (" + text.origin()
                    + "); the operator bids on no card without one: give --akash-table FILE|URL");
        }
        return text;
    }

    /** This host or a bundle: detection plus the DRM cards, read through the same source. */
    private AkashForecast fromHost(AkashGpuTable table, AkashGpus akash, InventoryOperatorConfig config)
            throws InvalidInputException {
        Source source;
        try {
            source = detection.source();
        } catch (BundleException e) {
            throw new InvalidInputException(null, "--replay", null, e.getMessage());
        }
        Inventory inventory = new Detector(Probes.defaults(detection.probeSettings()))
                .detect(source, Tables.forSource(source, () -> akash));
        if (inventory.failure() != null) {
            // Nothing was seen (a bundle nothing of which could be read, a host whose PCI bus cannot be read): no
            // card at all would read as "every card is bid on".
            throw new InvalidInputException(null, detection.replay == null ? null : "--replay", null, inventory.failure());
        }
        DrmCards drm = DrmCards.read(source);
        String node = OfferOptions.nodeName(source, detection.replay);
        NodeInput input = new NodeInput(node, inventory.realGpus(), drm, null,
                "a host on its own does not know its node's allocatable nvidia.com/gpu or amd.com/gpu; "
                        + "use --records or --cluster", null,
                "a host on its own does not know its Node's Ready condition or cordon; use --records or --cluster",
                source.describe(), null, io.gpudetect.record.FabricSpec.of(inventory.fabric()));
        return AkashForecast.of(inventory.source(), table, List.of(input), config,
                detection.replay == null ? null : ON_THE_NODE);
    }
}
