package io.gpudetect.cli;

import io.gpudetect.inventory.Detector;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.nvml.JnaNvmlScope;
import io.gpudetect.probe.ProbeSettings;
import io.gpudetect.probe.Probes;
import io.gpudetect.source.LiveSource;
import io.gpudetect.source.Source;
import io.gpudetect.source.ToolSearch;
import io.gpudetect.tables.AkashGpus;
import io.gpudetect.tables.AkashTableReader;
import io.gpudetect.tables.TableException;
import io.gpudetect.tables.Tables;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * How detection reads this host: {@code --timeout}, {@code --host-root}, {@code --driver-root} and {@code
 * --akash-table}. Apart from {@link DetectionOptions} ({@code --replay} and these) so that a command that reads only
 * this host, {@code record}, neither shows nor accepts {@code --replay}.
 */
public final class HostOptions {
    /** Defaults, shared with {@link PlainArguments}, which reads plain {@code gpu-detect} without picocli. */
    static final String DEFAULT_TIMEOUT = "5s";
    static final String DEFAULT_HOST_ROOT = "/";
    static final String DRIVER_ROOT_VARIABLE = "GPU_DETECT_DRIVER_ROOT";
    static final String AKASH_TABLE_VARIABLE = "GPU_DETECT_AKASH_TABLE";
    /**
     * How long fetching Akash's table may take: a one-shot command waits this long at most once a day (the table
     * is cached), and a host without a network names its cards by gpu-detect's own rules after it.
     */
    static final Duration AKASH_TABLE_TIMEOUT = Duration.ofSeconds(3);

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = DEFAULT_TIMEOUT, converter = DurationConverter.class,
            description = "Time limit for each external tool; a tool still running is killed (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--host-root", paramLabel = "DIR", defaultValue = DEFAULT_HOST_ROOT,
            description = "Where the host's file system is mounted (a container mounting /sys elsewhere); default: ${DEFAULT-VALUE}.")
    Path hostRoot;

    @Option(names = "--driver-root", paramLabel = "DIR", defaultValue = "${env:" + DRIVER_ROOT_VARIABLE + "}",
            description = "Where the host's NVIDIA driver is mounted (/run/nvidia/driver, /host): libnvidia-ml.so.1 is "
                    + "looked for under its usr/lib64, usr/lib/x86_64-linux-gnu, ... before the system's library paths (default: $GPU_DETECT_DRIVER_ROOT).")
    Path driverRoot;

    @Option(names = "--akash-table", paramLabel = "FILE|URL|none", defaultValue = "${env:" + AKASH_TABLE_VARIABLE + "}",
            description = "Akash's GPU table (gpus.json), or a provider-configs URL as given to the inventory operator's "
                    + "--provider-configs-url (read at <URL>/devices/gpus), or 'none'. Default: $" + AKASH_TABLE_VARIABLE
                    + ", else the operator's own default URL " + AkashTableReader.OPERATOR_PROVIDER_CONFIGS
                    + " with a copy kept a day in ~/.cache/gpu-detect/ ($XDG_CACHE_HOME honoured). Without a table, "
                    + "models are named by gpu-detect's own rules.")
    String akashTable;

    /** The folders tools are looked for in, after the driver root's: {@code PATH}. */
    private String pathVariable = System.getenv("PATH");

    /** For picocli, which sets the fields. */
    public HostOptions() {
    }

    HostOptions(Duration timeout, Path hostRoot, Path driverRoot, String akashTable, String pathVariable) {
        this.timeout = timeout;
        this.hostRoot = hostRoot;
        this.driverRoot = driverRoot;
        this.akashTable = akashTable;
        this.pathVariable = pathVariable;
    }

    /** Reads Akash's table where {@code --akash-table} says, fetched tables cached in ~/.cache/gpu-detect. */
    AkashTableReader akashTableReader() {
        return new AkashTableReader(AkashTableReader.defaultCacheDir(System.getenv()), AKASH_TABLE_TIMEOUT, Clock.systemUTC());
    }

    /** {@code --akash-table}, null for the default (an empty variable counts as unset). */
    String akashTable() {
        return akashTable == null || akashTable.isBlank() ? null : akashTable;
    }

    /**
     * The id tables for passes over {@code source}. A named file is read now, so a wrong path is a one-line error
     * before anything runs; a URL (and the default address) when a card first needs it, so a host without GPUs
     * never waits on the network, and again when the copy is a day old (the agent runs for weeks); a fetch that
     * fails leaves the table absent with the reason, never an error.
     */
    public Tables tables(Source source) throws TableException {
        AkashTableReader reader = akashTableReader();
        String given = akashTable();
        if (given != null && !AkashTableReader.isUrl(given)) {
            AkashGpus table = reader.read(given);
            return Tables.forSource(source, () -> table);
        }
        return Tables.forSource(source, reader.refreshing(given));
    }

    /** What the probes are told beyond the source: the driver root. */
    public ProbeSettings probeSettings() {
        return ProbeSettings.defaults().withDriverRoot(driverRoot);
    }

    /** One detection with the default probes under these options' settings; NVML is shut down after it. */
    public Inventory detect(DetectionOptions.Input input) {
        return detect(input, probeSettings());
    }

    /**
     * One detection in a process that ends after it (the plain command): NVML is left initialised, the exit closes
     * it ({@link JnaNvmlScope.Session#UNTIL_EXIT}).
     */
    public Inventory detectBeforeExit(DetectionOptions.Input input) {
        return detect(input, probeSettings().withNvmlSession(JnaNvmlScope.Session.UNTIL_EXIT));
    }

    private static Inventory detect(DetectionOptions.Input input, ProbeSettings settings) {
        return new Detector(Probes.defaults(settings)).detect(input.source(), input.tables());
    }

    public LiveSource live() {
        return new LiveSource(hostRoot, ToolSearch.of(driverRoot, pathVariable), timeout, LiveSource.DEFAULT_MAX_OUTPUT_BYTES);
    }
}
