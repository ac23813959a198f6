package io.gpudetect.match;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * A YAML (or JSON) document as a tree that remembers where each value stood, so that an error can name
 * the line. Jackson's {@code JsonNode} drops locations, which is why this small tree exists.
 *
 * @param kind     mapping, sequence or scalar; a YAML {@code ~}, {@code null} or empty value is {@link Kind#NULL}
 * @param text     a scalar's text as written (without quotes); null for the other kinds
 * @param quoted   true when the scalar was written quoted or as a block ({@code "1"}, {@code '1'}, {@code |}, {@code >}),
 *                 which yaml.v3 always reads as a string, so that {@code "1"} and {@code 1} can be told apart where that
 *                 matters
 * @param fields   a mapping's entries in document order
 * @param items    a sequence's items
 * @param line     1-based line where the value is named: its key's line in a mapping (a block value starts on a
 *                 later line, a null value has none of its own), else the value's own line
 */
public record YamlNode(Kind kind, String text, boolean quoted, Map<String, YamlNode> fields, List<YamlNode> items,
                       int line) {

    public enum Kind { MAPPING, SEQUENCE, SCALAR, NULL }

    public YamlNode {
        fields = fields == null ? Map.of() : Collections.unmodifiableMap(fields);
        items = items == null ? List.of() : List.copyOf(items);
    }

    public boolean isNull() {
        return kind == Kind.NULL;
    }

    public boolean isMapping() {
        return kind == Kind.MAPPING;
    }

    public boolean isSequence() {
        return kind == Kind.SEQUENCE;
    }

    public boolean isScalar() {
        return kind == Kind.SCALAR;
    }

    /** The entry {@code name} of a mapping, or null when absent or when this is no mapping. */
    public YamlNode get(String name) {
        return fields.get(name);
    }

    /** What a person would call this kind of value, for messages. */
    public String describe() {
        switch (kind) {
            case MAPPING: return "a mapping";
            case SEQUENCE: return "a list";
            case NULL: return "nothing";
            default: return "'" + text + "'";
        }
    }

    /**
     * Which parts of a document to skip while reading: asked for each entry of a mapping, it gives what to skip below
     * that entry's value, or null to skip the value unread. A list's items are pruned alike ({@code status.conditions}
     * names every condition).
     */
    @FunctionalInterface
    interface Prune {
        Prune NOTHING = name -> Prune.NOTHING;

        /** What to skip inside the value of entry {@code name}; null to skip that value. */
        Prune enter(String name);

        /** Keeps the entries {@code names} with all below them, and skips the rest. */
        static Prune only(java.util.Set<String> names) {
            return name -> names.contains(name) ? NOTHING : null;
        }
    }

    /**
     * Where a value stands ({@code spec.gpus[0]}), made into text only for a message: most documents have no error,
     * and a path and a shape string built for every value were a large part of reading a large file (JFR, 5,000 nodes).
     */
    record Where(Where parent, String name, int index) {
        static final Where ROOT = new Where(null, "", -1);

        Where child(String field) {
            return new Where(this, field, -1);
        }

        Where item(int i) {
            return new Where(this, null, i);
        }

        /** The path, with {@code field} after it when not null. */
        String text(String field) {
            StringBuilder out = new StringBuilder();
            append(out);
            if (field != null) {
                out.append(out.length() == 0 ? "" : ".").append(field);
            }
            return out.toString();
        }

        private void append(StringBuilder out) {
            if (parent == null) {
                out.append(name);
                return;
            }
            parent.append(out);
            if (name != null) {
                out.append(out.length() == 0 ? "" : ".").append(name);
            } else {
                out.append('[').append(index).append(']');
            }
        }
    }

    /**
     * Reads the first document of {@code text}.
     *
     * @param file the file name for messages
     * @throws InvalidInputException for malformed YAML (with its line) or a key given twice in one mapping
     */
    public static YamlNode parse(String text, String file) throws InvalidInputException {
        try (JsonParser parser = yamlParser(new StringReader(text), new LoaderOptions())) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                return new YamlNode(Kind.NULL, null, false, null, null, 1);
            }
            return read(parser, file, Where.ROOT, parser.currentTokenLocation().getLineNr(), Prune.NOTHING);
        } catch (JsonProcessingException e) {
            throw notValid(e, file, "not valid YAML: ");
        } catch (IOException e) {
            throw new InvalidInputException(file, null, null, "cannot read: " + e.getMessage());
        }
    }

    /** A YAML parser over {@code in} that knows each scalar's style. */
    static JsonParser yamlParser(Reader in, LoaderOptions options) throws IOException {
        return new StyledYamlFactory(options).createParser(in);
    }

    /** The parse error as one line with its line number. */
    static InvalidInputException notValid(JsonProcessingException e, String file, String prefix) {
        JsonLocation loc = e.getLocation();
        return new InvalidInputException(file, null, loc == null || loc.getLineNr() < 1 ? null : loc.getLineNr(),
                prefix + firstLine(e.getOriginalMessage()));
    }

    /**
     * The value at the parser's current token, with its subtrees that {@code prune} names skipped unread.
     *
     * @param where where the value is, for messages ({@code spec.gpus[0]})
     * @param line  the line the value is named on
     */
    static YamlNode read(JsonParser p, String file, Where where, int line, Prune prune)
            throws IOException, InvalidInputException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.START_OBJECT) {
            Map<String, YamlNode> fields = new LinkedHashMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                int keyLine = p.currentTokenLocation().getLineNr();
                YamlNode earlier = fields.get(name);
                if (earlier != null) {
                    throw new InvalidInputException(file, where.text(name), keyLine,
                            "key given twice in one mapping (first on line " + earlier.line() + ")");
                }
                JsonToken value = p.nextToken();
                Prune inside = prune.enter(name);
                if (inside == null) {
                    p.skipChildren();
                    continue;
                }
                // Only a mapping or list can hold a value a message names; a scalar needs no place of its own.
                fields.put(name, read(p, file, value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY
                        ? where.child(name) : where, keyLine, inside));
            }
            return new YamlNode(Kind.MAPPING, null, false, fields, null, line);
        }
        if (t == JsonToken.START_ARRAY) {
            List<YamlNode> items = new ArrayList<>();
            int i = 0;
            while (p.nextToken() != JsonToken.END_ARRAY) {
                JsonToken item = p.currentToken();
                items.add(read(p, file, item == JsonToken.START_OBJECT || item == JsonToken.START_ARRAY
                        ? where.item(i) : where, p.currentTokenLocation().getLineNr(), prune));
                i++;
            }
            return new YamlNode(Kind.SEQUENCE, null, false, null, items, line);
        }
        if (t == JsonToken.VALUE_NULL) {
            return new YamlNode(Kind.NULL, null, false, null, null, line);
        }
        // JSON strings are always quoted; YAML's scalar event tells its style.
        boolean quoted = t == JsonToken.VALUE_STRING
                && (!(p instanceof StyledYamlFactory.Parser yaml) || yaml.quotedScalar());
        return new YamlNode(Kind.SCALAR, p.getText(), quoted, null, null, line);
    }

    static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int nl = message.indexOf('\n');
        return (nl < 0 ? message : message.substring(0, nl)).strip();
    }
}
