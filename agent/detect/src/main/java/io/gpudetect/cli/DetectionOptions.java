package io.gpudetect.cli;

import io.gpudetect.inventory.Detector;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.nvml.JnaNvmlScope;
import io.gpudetect.probe.ProbeSettings;
import io.gpudetect.probe.Probes;
import io.gpudetect.source.BundleException;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.LiveSource;
import io.gpudetect.source.Source;
import io.gpudetect.source.ToolSearch;
import io.gpudetect.tables.AkashGpus;
import io.gpudetect.tables.AkashTableReader;
import io.gpudetect.tables.TableException;
import io.gpudetect.tables.Tables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import picocli.CommandLine.Option;

/** Where detection reads from, shared by every command that detects: this host, or a recorded bundle. */
public final class DetectionOptions {

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

    @Option(names = "--replay", paramLabel = "DIR",
            description = "Detect from a recorded bundle folder (written by 'gpu-detect record') instead of this host.")
    Path replay;

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
                    + ", else where the operator reads it (" + AkashTableReader.OPERATOR_PROVIDER_CONFIGS
                    + "/devices/gpus), cached a day in ~/.cache/gpu-detect. Without a table, models are named by "
                    + "gpu-detect's own rules.")
    String akashTable;

    /** The folders tools are looked for in, after the driver root's: {@code PATH}. */
    private String pathVariable = System.getenv("PATH");

    /** For picocli, which sets the fields. */
    public DetectionOptions() {
    }

    DetectionOptions(Path replay, Duration timeout, Path hostRoot, Path driverRoot, String akashTable, String pathVariable) {
        this.replay = replay;
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

    /**
     * The source to detect from; a bundle that cannot be opened, a folder that holds no bundle file, or a
     * {@code --host-root} that is no folder, is a one-line error for the user.
     */
    public Source source() throws BundleException {
        if (replay != null) {
            return BundleSource.open(replay, Probes.bundleFiles(Probes.defaults(probeSettings())));
        }
        if (!Files.isDirectory(hostRoot)) {
            // Said as what it is, before a pass that would find no PCI bus under it and blame a /sys not mounted.
            throw new BundleException("--host-root " + hostRoot + ": "
                    + (Files.exists(hostRoot) ? "not a folder" : "no such folder"));
        }
        return live();
    }

    /** What one detection reads: the source and the id tables for it. */
    public record Input(Source source, Tables tables) {
    }

    /** {@link #source} and {@link #tables} for it, each with its one-line error. */
    public Input input() throws BundleException, TableException {
        Source source = source();
        return new Input(source, tables(source));
    }

    /** One detection with the default probes under these options' settings; NVML is shut down after it. */
    public Inventory detect(Input input) {
        return detect(input, probeSettings());
    }

    /**
     * One detection in a process that ends after it (the plain command): NVML is left initialised, the exit closes
     * it ({@link JnaNvmlScope.Session#UNTIL_EXIT}).
     */
    public Inventory detectBeforeExit(Input input) {
        return detect(input, probeSettings().withNvmlSession(JnaNvmlScope.Session.UNTIL_EXIT));
    }

    private static Inventory detect(Input input, ProbeSettings settings) {
        return new Detector(Probes.defaults(settings)).detect(input.source(), input.tables());
    }

    public LiveSource live() {
        return new LiveSource(hostRoot, ToolSearch.of(driverRoot, pathVariable), timeout, LiveSource.DEFAULT_MAX_OUTPUT_BYTES);
    }
}
