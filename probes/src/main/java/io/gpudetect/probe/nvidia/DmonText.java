package io.gpudetect.probe.nvidia;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.ParsedOutput;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code nvidia-smi dmon} (or {@code dmon -o DT}, {@code --format csv}) given where the table was expected: a
 * {@code # gpu pwr gtemp ...} header and a {@code # Idx W C ...} units line, then one line per GPU per sample. It
 * names no card and repeats every GPU each sample, so it gives one GPU per index, of which only the vendor is known.
 */
final class DmonText {

    /** The header line: '#', then column names, one of them "gpu" (the index column). */
    private static final Pattern HEADER = Pattern.compile("^#\\s*(?:\\S+[\\s,]+)*gpu(?:[\\s,]+\\S+)*\\s*$", Pattern.CASE_INSENSITIVE);
    private static final Pattern SPLIT = Pattern.compile("[\\s,]+");

    private DmonText() {
    }

    /** Whether the text is dmon output: a header line naming a "gpu" column before any line that is not a comment. */
    static boolean looksLikeDmon(List<String> lines) {
        for (String line : lines) {
            String s = line.strip();
            if (s.isEmpty()) {
                continue;
            }
            if (!s.startsWith("#")) {
                return false;
            }
            if (HEADER.matcher(s).matches()) {
                return true;
            }
        }
        return false;
    }

    static ParsedOutput parse(List<String> lines, String probe, String file) {
        List<Diagnostic> notes = new ArrayList<>();
        int column = -1;
        Set<String> indexes = new LinkedHashSet<>();
        int rows = 0;
        for (int i = 0; i < lines.size(); i++) {
            String s = lines.get(i).strip();
            if (s.isEmpty()) {
                continue;
            }
            if (s.startsWith("#")) {
                if (HEADER.matcher(s).matches()) {
                    // dmon repeats its header every screenful; the columns stay where they were.
                    List<String> names = Arrays.asList(SPLIT.split(s.substring(1).strip()));
                    column = names.stream().map(String::toLowerCase).toList().indexOf("gpu");
                }
                continue;
            }
            String[] values = SPLIT.split(s);
            if (column < 0 || column >= values.length || !values[column].matches("\\d{1,3}")) {
                notes.add(Diagnostic.warning(probe, file, i + 1, "not a dmon sample line (expected the GPU index in column "
                        + (column + 1) + "); left out"));
                continue;
            }
            indexes.add(values[column]);
            rows++;
        }
        List<Gpu> gpus = new ArrayList<>();
        for (String ignored : indexes) {
            gpus.add(Gpu.builder(probe).vendor(Vendor.NVIDIA).build());
        }
        if (gpus.isEmpty()) {
            notes.add(Diagnostic.error(probe, file, null, "'nvidia-smi dmon' output with no sample lines"));
        } else {
            notes.add(Diagnostic.warning(probe, file, null, "this is 'nvidia-smi dmon' output, not the table: " + rows
                    + " sample lines of " + gpus.size() + " GPU" + (gpus.size() == 1 ? "" : "s") + " (index "
                    + String.join(", ", indexes) + "); dmon names no card, so only the count and vendor are known"));
        }
        return new ParsedOutput(gpus, notes);
    }
}
