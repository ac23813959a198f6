package io.gpudetect.cli;

import io.gpudetect.render.OutputFormat;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The arguments of plain {@code gpu-detect} (detect and print, no subcommand), read without picocli.
 *
 * <p>Why: building picocli's model by reflection costs about 40 ms of a 33 ms JVM start even for a one-option
 * command (docs/performance.md, "Start-up and footprint tricks", row "plain arguments without picocli"),
 * and plain detection is what people run by hand and what scripts run in loops. So the common forms are read
 * here, and everything else (a subcommand, help, version, an unknown or repeated option, any value picocli
 * would reject or read differently) is declined and left to picocli, which then gives the one place for
 * usage errors and help. {@code PlainArgumentsTest} checks that whatever this accepts, picocli reads to the same values.
 *
 * <p>Accepted: {@code --replay DIR}, {@code --timeout DURATION}, {@code --host-root DIR}, {@code
 * --driver-root DIR}, {@code --akash-table FILE|URL}, {@code -o/--output table|json|yaml}, each at most once, as {@code --name value} or
 * {@code --name=value}, and {@code -v/--verbose}.
 */
record PlainArguments(Path replay, Duration timeout, Path hostRoot, Path driverRoot, String akashTable,
                      OutputFormat format, boolean verbose, String pathVariable) {

    /** The subcommands' names: picocli refuses one as an option's value, so this declines it too. */
    static final Set<String> SUBCOMMANDS = Set.of("record", "agent", "match", "inventory", "akash", "nfd-dir");

    /** The arguments, or empty when picocli should read them. {@code env} supplies the driver root default. */
    static Optional<PlainArguments> parse(String[] args, Map<String, String> env) {
        String replay = null, timeout = null, hostRoot = null, driverRoot = null, akashTable = null, output = null;
        boolean verbose = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("-v") || arg.equals("--verbose")) {
                if (verbose) {
                    return Optional.empty();
                }
                verbose = true;
                continue;
            }
            int eq = arg.indexOf('=');
            String name = eq > 0 && arg.startsWith("--") ? arg.substring(0, eq) : arg;
            String value;
            if (eq > 0 && arg.startsWith("--")) {
                value = arg.substring(eq + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                return Optional.empty();
            }
            // A value that looks like an option or a subcommand, or an empty one, is for picocli to judge.
            if (value.isEmpty() || value.startsWith("-") || SUBCOMMANDS.contains(value)) {
                return Optional.empty();
            }
            switch (name) {
                case "--replay" -> { if (replay != null) return Optional.empty(); replay = value; }
                case "--timeout" -> { if (timeout != null) return Optional.empty(); timeout = value; }
                case "--host-root" -> { if (hostRoot != null) return Optional.empty(); hostRoot = value; }
                case "--driver-root" -> { if (driverRoot != null) return Optional.empty(); driverRoot = value; }
                case "--akash-table" -> { if (akashTable != null) return Optional.empty(); akashTable = value; }
                case "-o", "--output" -> { if (output != null) return Optional.empty(); output = value; }
                default -> {
                    return Optional.empty();
                }
            }
        }
        if (driverRoot == null) {
            driverRoot = env.get(HostOptions.DRIVER_ROOT_VARIABLE);
            if (driverRoot != null && driverRoot.isBlank()) {
                return Optional.empty();
            }
        }
        if (akashTable == null) {
            akashTable = env.get(HostOptions.AKASH_TABLE_VARIABLE);
        }
        OutputFormat format = output == null ? OutputFormat.table : outputFormat(output);
        Duration limit = Durations.parse(timeout == null ? HostOptions.DEFAULT_TIMEOUT : timeout);
        if (format == null || limit == null || limit.isZero()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new PlainArguments(replay == null ? null : Path.of(replay), limit,
                    Path.of(hostRoot == null ? HostOptions.DEFAULT_HOST_ROOT : hostRoot), driverRoot == null ? null : Path.of(driverRoot),
                    akashTable, format, verbose, env.get("PATH")));
        } catch (InvalidPathException e) {
            return Optional.empty();
        }
    }

    private static OutputFormat outputFormat(String value) {
        for (OutputFormat f : OutputFormat.values()) {
            if (f.name().equals(value)) {
                return f;
            }
        }
        return null;
    }

    DetectionOptions detectionOptions() {
        return new DetectionOptions(replay, timeout, hostRoot, driverRoot, akashTable, pathVariable);
    }
}
