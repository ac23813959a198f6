package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Help that can be copied (issue 35): at any width a person reads it, a URL, a path or an example is never broken
 * across lines; only prose wraps, at spaces. picocli alone broke {@code https://provider-configs.akash.} /
 * {@code network/devices/gpus}, {@code ~/.} / {@code cache/gpu-detect} and {@code driver>=550.} / {@code 54}.
 */
class CopyableHelpTest {

    private static final List<String> COMMANDS = List.of("", "record", "agent", "match", "inventory", "akash", "nfd-dir");

    /** As a user types it: {@code gpu-detect [COMMAND] --help}, at the default width (80 where no terminal says). */
    private static String typed(String command) {
        StringWriter out = new StringWriter();
        String[] args = command.isEmpty() ? new String[] {"--help"} : new String[] {command, "--help"};
        assertEquals(0, GpuDetectCommand.run(args, new PrintWriter(out), new PrintWriter(new StringWriter()), Map.of()));
        return out.toString();
    }

    /** The same help at a given width. */
    private static String at(String command, int width) {
        CommandLine cli = GpuDetectCommand.newCommandLine();
        CommandLine c = command.isEmpty() ? cli : cli.getSubcommands().get(command);
        c.setUsageHelpAutoWidth(false);
        c.setUsageHelpWidth(width);
        return c.getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    private static List<String> words(String text) {
        List<String> words = new ArrayList<>(Arrays.asList(text.strip().split("\\s+")));
        words.sort(null);
        return words;
    }

    /**
     * Every word of the help, read at a width where nothing needs to wrap, is a word of the help at the widths people
     * read: a word cut across two lines would be two other words.
     */
    @Test
    void noWordIsCutAtTheDefaultWidthNorAtEightyOrMoreColumns() {
        for (String command : COMMANDS) {
            List<String> whole = words(at(command, 1000));
            assertEquals(whole, words(typed(command)), "gpu-detect " + command + " --help at the default width:\n" + typed(command));
            for (int width : new int[] {80, 100, 120, 160}) {
                assertEquals(whole, words(at(command, width)), "gpu-detect " + command + " --help at " + width
                        + " columns:\n" + at(command, width));
            }
        }
    }

    /** The three the issue quoted, each on one line as it is copied. */
    @Test
    void theUrlThePathAndTheExampleTheIssueQuotedAreEachOnOneLine() {
        assertTrue(typed("").matches("(?s).*\\shttps://provider-configs\\.akash\\.network\\s.*"), typed(""));
        assertTrue(typed("").contains("~/.cache/gpu-detect/"), typed(""));
        assertTrue(typed("match").contains("driver>=550.54,"), typed("match"));
        for (String command : COMMANDS) {
            for (String line : typed(command).split("\n")) {
                assertTrue(line.length() <= 80, "longer than 80 columns: " + line);
            }
        }
    }

    /** Wrapping keeps picocli's look: continuation lines of a description two columns further in. */
    @Test
    void continuationLinesAreIndentedAsPicocliIndentsThem() {
        String help = typed("");
        assertTrue(help.contains("  -v, --verbose            Also print informational messages (tools not\n"
                + "                             installed, ...).\n"), help);
        assertTrue(help.contains("  record     Detect as a live pass does"), help);
    }
}
