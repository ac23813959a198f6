package io.gpudetect.source;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A test host with tools and nothing else: a tool prints what {@code outputs} holds for its command line and exits
 * 0, or is absent; no file, folder or link exists. Each command line run is kept in {@link #calls()}, so a test can
 * say which tools a pass cost. Live or recorded, as the test needs: the probes ask which before running a tool.
 */
public final class ToolsOnlySource implements Source {

    private final Map<String, String> outputs;
    private final boolean recorded;
    private final String description;
    private final List<String> calls = new ArrayList<>();

    private ToolsOnlySource(Map<String, String> outputs, boolean recorded, String description) {
        this.outputs = Map.copyOf(outputs);
        this.recorded = recorded;
        this.description = description;
    }

    /** A live host ({@code this host}) whose tools print {@code outputs} by command line. */
    public static ToolsOnlySource live(Map<String, String> outputs) {
        return new ToolsOnlySource(outputs, false, "this host");
    }

    /** A recording, described as {@code description}, that holds {@code outputs} by command line. */
    public static ToolsOnlySource recorded(Map<String, String> outputs, String description) {
        return new ToolsOnlySource(outputs, true, description);
    }

    /** The command lines run, in order. */
    public List<String> calls() {
        return List.copyOf(calls);
    }

    @Override
    public ToolResult run(ToolCommand command) {
        calls.add(command.commandLine());
        String out = outputs.get(command.commandLine());
        String tool = command.argv().isEmpty() ? command.bundleFile() : command.argv().get(0);
        return out == null ? new ToolResult.Absent(tool + " is not installed")
                : new ToolResult.Completed(out, "", 0, false);
    }

    @Override
    public Optional<String> readFile(String path) {
        return Optional.empty();
    }

    @Override
    public Optional<byte[]> readBytes(String path, int maxBytes) {
        return Optional.empty();
    }

    @Override
    public List<String> list(String directory) {
        return List.of();
    }

    @Override
    public Optional<String> readLink(String path) {
        return Optional.empty();
    }

    @Override
    public boolean exists(String path) {
        return false;
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public boolean isRecorded() {
        return recorded;
    }
}
