package io.gpudetect.probe.nvidia;

import io.gpudetect.probe.PastedText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pasted {@code nvidia-smi --query-gpu=F1,F2,... --format=csv,noheader [-l N]} command line: the fields are the
 * columns of the rows that follow it in the order asked for (nvidia-smi prints them so), and a loop option says
 * that the rows repeat the same GPUs.
 */
record QueryCommand(int line, List<String> fields, boolean loops) {

    /** {@code --query-gpu=a,b} or {@code --query-gpu a,b}, the list optionally quoted. */
    private static final Pattern QUERY = Pattern.compile("--query-gpu(?:=|\\s+)([\"']?)([A-Za-z0-9_.,\\s]+?)\\1(?=\\s|$|\\|)");
    /** {@code -l}, {@code -l 1}, {@code -lms 500}, {@code --loop=1}, {@code --loop-ms=500}: a sample every period. */
    private static final Pattern LOOP = Pattern.compile("(?:^|\\s)(?:-l|-lms|--loop|--loop-ms)(?:[=\\s]|$)");

    QueryCommand {
        fields = List.copyOf(fields);
    }

    /**
     * The last {@code --query-gpu} command pasted before {@code firstDataLine} (the command a person ran, then its
     * output); else the first one after it; null when none asks for GPU fields.
     */
    static QueryCommand before(List<PastedText.Command> commands, int firstDataLine) {
        QueryCommand found = null;
        for (PastedText.Command c : commands) {
            QueryCommand q = of(c);
            if (q == null) {
                continue;
            }
            if (c.line() <= firstDataLine || found == null) {
                found = q;
            }
            if (c.line() > firstDataLine) {
                break;
            }
        }
        return found;
    }

    static QueryCommand of(PastedText.Command command) {
        String text = command.text();
        if (!text.contains("nvidia-smi")) {
            return null;
        }
        Matcher m = QUERY.matcher(text);
        if (!m.find()) {
            return null;
        }
        List<String> fields = new ArrayList<>();
        for (String f : m.group(2).split(",")) {
            if (!f.isBlank()) {
                fields.add(f.strip().toLowerCase(Locale.ROOT));
            }
        }
        return fields.isEmpty() ? null : new QueryCommand(command.line(), fields, LOOP.matcher(text).find());
    }
}
