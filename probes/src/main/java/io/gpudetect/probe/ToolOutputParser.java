package io.gpudetect.probe;

/**
 * A pure function from a tool's text to GPUs. {@code file} is the bundle file name, used in every
 * diagnostic so that a user knows which input was wrong. It may throw on input it does not expect;
 * {@link ToolProbe} turns that into a diagnostic.
 */
@FunctionalInterface
public interface ToolOutputParser {
    ParsedOutput parse(String text, String file);

    /**
     * The same, given the command lines that were pasted with the output and taken off it (see {@link PastedText});
     * only a parser whose output can depend on its command line (a headerless {@code --query-gpu} CSV) reads them.
     */
    default ParsedOutput parse(String text, String file, java.util.List<PastedText.Command> pastedCommands) {
        return parse(text, file);
    }
}
