package io.gpudetect.source;

import java.time.Duration;

/** What came of asking a {@link Source} for a tool's output. */
public sealed interface ToolResult {

    /** The tool ran to the end (or the bundle held its output). */
    record Completed(String stdout, String stderr, int exitCode, boolean truncated) implements ToolResult {
    }

    /**
     * The tool is not installed on this host, or the bundle does not hold its output. {@code reason} is null when
     * there is nothing to say: a recorded bundle lacks, by design, the formats {@code record} never writes.
     */
    record Absent(String reason) implements ToolResult {
    }

    /** The tool ran past its time limit and was killed; {@code partialStdout} is what it had printed. */
    record TimedOut(Duration limit, String partialStdout) implements ToolResult {
    }

    /** The tool could not be started or its output could not be read. */
    record Failed(String reason) implements ToolResult {
    }
}
