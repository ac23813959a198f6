package io.gpudetect.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Tool output as people paste it into a bug report, a forum post or an e-mail, made back into what the tool
 * printed: e-mail quoting ({@code > } before every line, at any depth) is taken off, Markdown fences
 * ({@code ```}) and the command lines that were pasted with the output ({@code user@host:~$ rocm-smi},
 * {@code PS C:\> nvidia-smi}, a notebook's {@code !rocm-smi --showproductname}, {@code lspci | grep VGA}) are
 * blanked, and indentation shared by every line (a Markdown code block) is removed. Lines are blanked, never
 * removed, so that a parser's line numbers still point into the file as the person pasted it.
 *
 * <p>Output straight from a tool has none of these, and is returned as it is after one pass over its line
 * starts.
 */
public final class PastedText {

    private PastedText() {
    }

    /** Compiled on first use: output straight from a tool (every live pass, most bundles) needs only the scan. */
    private static final class Patterns {

        /** The tools whose command lines people paste with the output. */
        private static final String TOOLS = "nvidia-smi|rocm-smi|amd-smi|rocminfo|clinfo|lspci|xpu-smi|rocm_smi\\.py";

        /**
         * A command line: an optional prompt ({@code (env) }, then {@code [user@host dir]$}, {@code PS C:\>}, anything
         * ending in {@code $ # % >} before a space, a themed shell's {@code ~ $}, or a notebook's {@code !}), {@code time},
         * {@code sudo}, {@code watch} and its options, a path, then one of the tools and its arguments.
         */
        private static final Pattern COMMAND = Pattern.compile("^\\s*(?:\\(\\S+\\)\\s+)?(?:\\[[^]]*]\\s?[$#%>]\\s*|PS [^>]*>\\s*|\\S*[$#%>]\\s+|~\\s[$#%]\\s+|!\\s*)?"
                + "(?:time\\s+)?(?:sudo\\s+(?:-\\S+\\s+)*)?(?:watch\\s+(?:-\\S+(?:\\s+[\\d.]+)?\\s+)*)?(?:\\S*[/\\\\])?(?:" + TOOLS
                + ")(?:\\.exe)?(?:[\\s|].*)?$");

        /**
         * The banner {@code watch} prints above each refresh ({@code Every 1.0s: nvidia-smi    host: Mon Jan  1 ...}):
         * blanked, and its command kept as a pasted command line.
         */
        private static final Pattern WATCH_BANNER = Pattern.compile("^\\s*Every\\s+[\\d.]+s:\\s+(.+?)(?:\\s{2,}.*)?$");

        /** A prompt with nothing after it: {@code user@host:~$}, {@code [root@node ~]#}, {@code PS C:\>}. */
        private static final Pattern BARE_PROMPT = Pattern.compile("^\\s*(?:\\S*@\\S*|\\[[^]]*]|PS \\S*|\\S*:\\\\\\S*)[$#%>]\\s*$");

        private static final Pattern FENCE = Pattern.compile("^\\s*(?:```|~~~)[\\w+.-]*\\s*$");

        /** A line pasted as Markdown inline code, {@code `01:00.0 3D controller: ...`}: one backtick either side. */
        private static final Pattern INLINE_CODE = Pattern.compile("^\\s*`([^`]+)`\\s*$");
    }

    /**
     * The text as the tool printed it, with a note for each kind of thing taken off (empty when none), and the
     * command lines that were blanked: a parser may need them ({@code --query-gpu=...} names the columns of a
     * CSV pasted without its header).
     */
    public record Cleaned(String text, List<String> notes, List<Command> commands) {

        public Cleaned {
            notes = List.copyOf(notes);
            commands = List.copyOf(commands);
        }

        public Cleaned(String text, List<String> notes) {
            this(text, notes, List.of());
        }
    }

    /** A command line pasted with the output, as it was pasted (after quoting came off), and its 1-based line. */
    public record Command(int line, String text) {
    }

    public static Cleaned clean(String text) {
        if (!looksPasted(text)) {
            return new Cleaned(text, List.of());
        }
        String[] lines = text.split("\n", -1);
        List<String> notes = new ArrayList<>();
        int depth = 0;
        while (everyLineQuoted(lines)) {
            for (int i = 0; i < lines.length; i++) {
                lines[i] = unquote(lines[i]);
            }
            depth++;
        }
        if (depth > 0) {
            notes.add("took off e-mail quoting ('> ' before every line" + (depth > 1 ? ", " + depth + " deep" : "") + ")");
        }
        int commands = 0;
        int fences = 0;
        List<Command> commandLines = new ArrayList<>();
        int inline = 0;
        for (int i = 0; i < lines.length; i++) {
            String line = stripCarriageReturn(lines[i]);
            java.util.regex.Matcher code = Patterns.INLINE_CODE.matcher(line);
            if (code.matches()) {
                // The backticks are Markdown's, not the tool's; what is inside may still be a command line.
                line = code.group(1);
                lines[i] = line;
                inline++;
            }
            if (Patterns.FENCE.matcher(line).matches()) {
                lines[i] = "";
                fences++;
            } else if (line.stripLeading().startsWith("Every ") && Patterns.WATCH_BANNER.matcher(line).matches()) {
                java.util.regex.Matcher banner = Patterns.WATCH_BANNER.matcher(line);
                banner.matches();
                commandLines.add(new Command(i + 1, banner.group(1).strip()));
                lines[i] = "";
                commands++;
            } else if (Patterns.COMMAND.matcher(line).matches() || Patterns.BARE_PROMPT.matcher(line).matches()) {
                if (Patterns.COMMAND.matcher(line).matches()) {
                    commandLines.add(new Command(i + 1, line.strip()));
                }
                lines[i] = "";
                commands++;
            }
        }
        if (commands > 0) {
            notes.add("blanked " + commands + " pasted command or prompt line" + (commands > 1 ? "s" : ""));
        }
        if (inline > 0) {
            notes.add("took the Markdown backticks off " + inline + " line" + (inline > 1 ? "s" : "") + " pasted as inline code");
        }
        if (fences > 0) {
            notes.add("blanked " + fences + " Markdown fence line" + (fences > 1 ? "s" : ""));
        }
        int indent = commonIndent(lines);
        if (indent > 0) {
            for (int i = 0; i < lines.length; i++) {
                lines[i] = lines[i].isBlank() ? lines[i] : lines[i].substring(indent);
            }
            notes.add("removed the " + indent + " characters of indentation every line had");
        }
        return notes.isEmpty() ? new Cleaned(text, List.of()) : new Cleaned(String.join("\n", lines), notes, commandLines);
    }

    /**
     * Whether any line starts with something a tool never prints first: a quote mark, a fence, a prompt or
     * shell-escape character, a command line, or indentation on the first line. One pass over the line starts;
     * the patterns run only on lines that name a tool or hold a prompt character.
     */
    private static boolean looksPasted(String text) {
        int start = 0;
        int n = text.length();
        boolean first = true;
        while (start < n) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                end = n;
            }
            int i = start;
            while (i < end && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
                i++;
            }
            if (i < end) {
                char c = text.charAt(i);
                if ((first && i > start) || "`~>!$#%([".indexOf(c) >= 0) {
                    return true;
                }
                // A command line can start with its path (/usr/bin/nvidia-smi, ./rocm-smi) as well as a name or prompt, and a
                // --query-gpu list of twenty fields runs to some 350 characters; longer lines are output, not commands.
                if ((Character.isLetter(c) || c == '/' || c == '.') && end - i < 1000) {
                    String line = text.substring(i, end);
                    if (c == 'E' && Patterns.WATCH_BANNER.matcher(line).matches()) {
                        return true;
                    }
                    if ((line.contains("smi") || line.contains("info") || line.contains("lspci") || line.indexOf('$') >= 0
                            || line.indexOf('@') >= 0 || line.indexOf('>') >= 0 || line.indexOf('#') >= 0)
                            && (Patterns.COMMAND.matcher(line).matches() || Patterns.BARE_PROMPT.matcher(line).matches())) {
                        return true;
                    }
                }
                first = false;
            }
            start = end + 1;
        }
        return false;
    }

    private static boolean everyLineQuoted(String[] lines) {
        boolean any = false;
        for (String line : lines) {
            String s = line.stripLeading();
            if (s.isEmpty() || s.equals("\r")) {
                continue;
            }
            if (s.charAt(0) != '>') {
                return false;
            }
            any = true;
        }
        return any;
    }

    private static String unquote(String line) {
        int i = line.indexOf('>');
        if (i < 0) {
            return line;
        }
        int from = i + 1;
        if (from < line.length() && line.charAt(from) == ' ') {
            from++;
        }
        return line.substring(from);
    }

    private static int commonIndent(String[] lines) {
        int min = Integer.MAX_VALUE;
        for (String line : lines) {
            if (line.isBlank()) {
                continue;
            }
            int i = 0;
            while (i < line.length() && line.charAt(i) == ' ') {
                i++;
            }
            min = Math.min(min, i);
            if (min == 0) {
                return 0;
            }
        }
        return min == Integer.MAX_VALUE ? 0 : min;
    }

    private static String stripCarriageReturn(String line) {
        return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
    }
}
