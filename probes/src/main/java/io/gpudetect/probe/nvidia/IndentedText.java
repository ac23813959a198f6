package io.gpudetect.probe.nvidia;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The section tree of {@code nvidia-smi -q} text: each line is {@code Key : Value} or a section title,
 * and indentation says what belongs to what. Keys are matched without case and surrounding blanks, so
 * the spelling changes between driver versions ("Pending Page Blacklist", "Multiprocessor count") are
 * found by listing each name a field has had.
 */
final class IndentedText {

    /** {@code Key<blanks>: value}: the key never holds a blank-colon pair, a value may hold colons (times, bus ids). */
    private static final Pattern KEY_VALUE = Pattern.compile("^(.*?\\S)\\s+:(?:\\s(.*))?$");

    /** One line: a key with a value, or a section title (value null) with the lines indented under it. */
    static final class Node implements SmiEntry<Node> {
        private final String key;
        private final String value;
        private final int line;
        private final int indent;
        private final List<Node> children = new ArrayList<>();

        Node(String key, String value, int line, int indent) {
            this.key = key;
            this.value = value;
            this.line = line;
            this.indent = indent;
        }

        String key() {
            return key;
        }

        /** The value after the colon, trimmed; null for a section title. */
        @Override
        public String value() {
            return value;
        }

        @Override
        public int line() {
            return line;
        }

        @Override
        public List<Node> children() {
            return children;
        }

        @Override
        public boolean named(String name) {
            return key.equalsIgnoreCase(name);
        }

        @Override
        public String quoted() {
            return "'" + key + "' reads '" + value + "' (line " + line + ")";
        }
    }

    private IndentedText() {
    }

    /** The tree of {@code text}; the root has no key and holds the unindented lines. Blank lines are skipped. */
    static Node parse(String text) {
        Node root = new Node("", null, 0, -1);
        Deque<Node> open = new ArrayDeque<>();
        open.push(root);
        List<String> lines = text.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String raw = lines.get(i).replace("\t", "    ");
            if (raw.isBlank()) {
                continue;
            }
            int indent = 0;
            while (indent < raw.length() && raw.charAt(indent) == ' ') {
                indent++;
            }
            String content = raw.strip();
            Matcher m = KEY_VALUE.matcher(content);
            Node node = m.matches()
                    ? new Node(m.group(1).strip(), m.group(2) == null ? "" : m.group(2).strip(), i + 1, indent)
                    : new Node(content, null, i + 1, indent);
            while (open.peek().indent >= indent) {
                open.pop();
            }
            open.peek().children.add(node);
            open.push(node);
        }
        return root;
    }
}
