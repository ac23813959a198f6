package io.gpudetect.render;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * JSON text laid out exactly as jackson's {@code DefaultPrettyPrinter} lays it out (what {@code
 * SerializationFeature.INDENT_OUTPUT} gives every other JSON document of ours): members on their own lines
 * indented by two spaces, {@code "name" : value}, arrays inline as {@code [ a, b ]} and {@code [ ]}, and
 * jackson's escapes. Written by hand so that {@code gpu-detect --output json} loads no JSON library at all
 * (60 classes and a factory to initialise, a few ms of a one-shot start: docs/performance.md,
 * "Start-up and footprint tricks", row "JSON without a JSON library"); InventoryWriterTest compares it
 * with jackson's output for every recording and for text chosen to be awkward.
 */
final class PrettyJson implements DocumentSink {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private final StringBuilder out = new StringBuilder(4096);
    /** Per open object or array: whether it has a value yet, and whether it is an object. */
    private final Deque<boolean[]> open = new ArrayDeque<>();
    /** Open objects: arrays stay on their line, so only objects indent. */
    private int depth;
    private boolean afterName;

    @Override
    public void startObject() {
        beforeValue();
        out.append('{');
        open.push(new boolean[] {false, true});
        depth++;
    }

    @Override
    public void endObject() {
        boolean[] object = open.pop();
        depth--;
        if (object[0]) {
            newLine(depth);
        } else {
            out.append(' ');
        }
        out.append('}');
    }

    @Override
    public void startArray() {
        beforeValue();
        out.append('[');
        open.push(new boolean[] {false, false});
    }

    @Override
    public void endArray() {
        open.pop();
        out.append(" ]");
    }

    @Override
    public void name(String name) {
        boolean[] object = open.peek();
        out.append(object[0] ? "," : "");
        object[0] = true;
        newLine(depth);
        quoted(name);
        out.append(" : ");
        afterName = true;
    }

    @Override
    public void string(String value) {
        beforeValue();
        quoted(value);
    }

    @Override
    public void number(long value) {
        beforeValue();
        out.append(value);
    }

    @Override
    public void number(double value) {
        beforeValue();
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            out.append('"').append(value).append('"'); // jackson's WRITE_NAN_AS_STRINGS
        } else {
            out.append(value);
        }
    }

    @Override
    public void bool(boolean value) {
        beforeValue();
        out.append(value);
    }

    @Override
    public void nullValue() {
        beforeValue();
        out.append("null");
    }

    /** The document written so far. */
    String text() {
        return out.toString();
    }

    /** Array values are separated by ", " after "[ "; an object member's value follows its name. */
    private void beforeValue() {
        if (afterName) {
            afterName = false;
            return;
        }
        boolean[] container = open.peek();
        if (container != null && !container[1]) {
            out.append(container[0] ? ", " : " ");
            container[0] = true;
        }
    }

    private void newLine(int depth) {
        out.append('\n');
        for (int i = 0; i < depth; i++) {
            out.append("  ");
        }
    }

    /** Quotes, backslashes and control characters escaped as jackson does; everything else as it is. */
    private void quoted(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
