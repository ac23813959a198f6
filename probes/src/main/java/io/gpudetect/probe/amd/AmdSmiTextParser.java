package io.gpudetect.probe.amd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.probe.ParsedOutput;
import io.gpudetect.probe.ToolOutputParser;
import io.gpudetect.source.ToolCommand;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;

/**
 * amd-smi's text output ({@code amd-smi static}, {@code list}, {@code metric}) as people paste it: one
 * {@code GPU: N} block per GPU (and {@code CPU: N} blocks on APUs, skipped), sections and {@code KEY: value}
 * lines nested by four spaces, the same names as {@code --json} in upper case. Each block is rebuilt as the
 * object {@code --json} prints and read by {@link AmdSmiJsonParser}, so both forms mean the same.
 */
public final class AmdSmiTextParser {

    public static final String PROBE = "amd-smi-text";
    /** What people paste; a live host runs {@code amd-smi static --json} instead. */
    public static final ToolCommand COMMAND = ToolCommand.bundleOnly("amd-smi.txt");

    /** The parser as a constant, not a method reference (docs/performance.md, row "parsers as enum constants"). */
    public enum Format implements ToolOutputParser {
        AMD_SMI_TEXT;

        @Override
        public ParsedOutput parse(String text, String file) {
            return AmdSmiTextParser.parse(text, file);
        }
    }

    private AmdSmiTextParser() {
    }

    private record Level(int indent, ObjectNode node) {
    }

    public static ParsedOutput parse(String text, String file) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        List<ObjectNode> blocks = new ArrayList<>();
        Deque<Level> open = new ArrayDeque<>();
        ObjectNode current = null;
        String[] lines = text.split("\r?\n", -1);
        for (String raw : lines) {
            if (raw.isBlank()) {
                continue;
            }
            int indent = 0;
            while (indent < raw.length() && raw.charAt(indent) == ' ') {
                indent++;
            }
            String line = raw.strip();
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String key = line.substring(0, colon).strip().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).strip();
            if (indent == 0) {
                open.clear();
                current = null;
                if (key.equals("gpu") && value.matches("\\d{1,4}")) {
                    current = JsonNodeFactory.instance.objectNode();
                    current.put("gpu", Integer.parseInt(value));
                    blocks.add(current);
                    open.push(new Level(0, current));
                }
                continue;
            }
            if (current == null) {
                continue;
            }
            while (open.size() > 1 && open.peek().indent() >= indent) {
                open.pop();
            }
            ObjectNode parent = open.peek().node();
            if (value.isEmpty()) {
                JsonNode existing = parent.get(key);
                ObjectNode section = existing instanceof ObjectNode o ? o : parent.putObject(key);
                open.push(new Level(indent, section));
            } else if (!parent.has(key)) {
                // Lists (POLICY_ID repeated) keep their first entry: nothing here reads them.
                parent.put(key, value);
            }
        }
        List<Gpu> gpus = new ArrayList<>();
        for (ObjectNode block : blocks) {
            gpus.add(AmdSmiJsonParser.gpu(PROBE, "GPU " + block.get("gpu").asInt(), block, diagnostics, file));
        }
        if (blocks.isEmpty()) {
            diagnostics.add(Diagnostic.error(PROBE, file, null,
                    "no 'GPU: N' line; expected the text of amd-smi static, list or metric"));
        }
        return new ParsedOutput(gpus, diagnostics);
    }
}
