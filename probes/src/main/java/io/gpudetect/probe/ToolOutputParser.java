package io.gpudetect.probe;

/**
 * A pure function from a tool's text to GPUs. {@code file} is the bundle file name, used in every
 * diagnostic so that a user knows which input was wrong. It may throw on input it does not expect;
 * {@link ToolProbe} turns that into a diagnostic.
 */
@FunctionalInterface
public interface ToolOutputParser {
    ParsedOutput parse(String text, String file);
}
