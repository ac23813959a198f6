package io.gpudetect.cli;

import io.gpudetect.probe.ProbeSettings;
import io.gpudetect.probe.Probes;
import io.gpudetect.source.BundleException;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.LiveSource;
import io.gpudetect.source.Source;
import io.gpudetect.source.ToolSearch;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/** Where detection reads from, shared by every command that detects: this host, or a recorded bundle. */
public final class DetectionOptions {

    /** Defaults, shared with {@link PlainArguments}, which reads plain {@code gpu-detect} without picocli. */
    static final String DEFAULT_TIMEOUT = "5s";
    static final String DEFAULT_HOST_ROOT = "/";
    static final String DRIVER_ROOT_VARIABLE = "GPU_DETECT_DRIVER_ROOT";

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

    /** The folders tools are looked for in, after the driver root's: {@code PATH}. */
    private String pathVariable = System.getenv("PATH");

    /** For picocli, which sets the fields. */
    public DetectionOptions() {
    }

    DetectionOptions(Path replay, Duration timeout, Path hostRoot, Path driverRoot, String pathVariable) {
        this.replay = replay;
        this.timeout = timeout;
        this.hostRoot = hostRoot;
        this.driverRoot = driverRoot;
        this.pathVariable = pathVariable;
    }

    /** What the probes are told beyond the source: the driver root. */
    public ProbeSettings probeSettings() {
        return ProbeSettings.defaults().withDriverRoot(driverRoot);
    }

    /**
     * The source to detect from; a bundle that cannot be opened, or a folder that holds no bundle file, is a
     * one-line error for the user.
     */
    public Source source() throws BundleException {
        if (replay != null) {
            return BundleSource.open(replay, Probes.bundleFiles(Probes.defaults(probeSettings())));
        }
        return live();
    }

    public LiveSource live() {
        return new LiveSource(hostRoot, ToolSearch.of(driverRoot, pathVariable), timeout, LiveSource.DEFAULT_MAX_OUTPUT_BYTES);
    }
}
