package io.gpudetect.source;

import java.util.List;

/**
 * A tool a probe wants the output of: the command a live host runs, and the file that holds its output
 * in a recorded bundle. A command with an empty {@code argv} exists only in bundles: formats people paste
 * (the plain {@code nvidia-smi} table) that a live host never needs because a richer form is run instead.
 */
public record ToolCommand(String bundleFile, List<String> argv) {

    public ToolCommand {
        argv = List.copyOf(argv);
    }

    public static ToolCommand of(String bundleFile, String... argv) {
        return new ToolCommand(bundleFile, List.of(argv));
    }

    public static ToolCommand bundleOnly(String bundleFile) {
        return new ToolCommand(bundleFile, List.of());
    }

    public boolean runsOnLiveHost() {
        return !argv.isEmpty();
    }

    /** The command as a person would type it. */
    public String commandLine() {
        return String.join(" ", argv);
    }
}
