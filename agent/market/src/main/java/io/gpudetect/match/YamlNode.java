package io.gpudetect.match;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
     * Reads the first document of {@code text}.
     *
     * @param file the file name for messages
     * @throws InvalidInputException for malformed YAML (with its line) or a key given twice in one mapping
     */
    public static YamlNode parse(String text, String file) throws InvalidInputException {
        try (JsonParser parser = new YAMLFactory().createParser(text)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                return new YamlNode(Kind.NULL, null, false, null, null, 1);
            }
            return read(parser, text, file, "", parser.currentTokenLocation().getLineNr());
        } catch (JsonProcessingException e) {
            JsonLocation loc = e.getLocation();
            throw new InvalidInputException(file, null, loc == null || loc.getLineNr() < 1 ? null : loc.getLineNr(),
                    "not valid YAML: " + firstLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new InvalidInputException(file, null, null, "cannot read: " + e.getMessage());
        }
    }

    /**
     * Reads every document of {@code text} ({@code ---} separated, or one JSON value); an empty file has none.
     *
     * @throws InvalidInputException as {@link #parse}
     */
    public static List<YamlNode> parseAll(String text, String file) throws InvalidInputException {
        try (JsonParser parser = new YAMLFactory().createParser(text)) {
            List<YamlNode> documents = new ArrayList<>();
            while (parser.nextToken() != null) {
                YamlNode doc = read(parser, text, file, "", parser.currentTokenLocation().getLineNr());
                if (!doc.isNull()) {
                    documents.add(doc);
                }
            }
            return documents;
        } catch (JsonProcessingException e) {
            JsonLocation loc = e.getLocation();
            throw new InvalidInputException(file, null, loc == null || loc.getLineNr() < 1 ? null : loc.getLineNr(),
                    "not valid YAML or JSON: " + firstLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new InvalidInputException(file, null, null, "cannot read: " + e.getMessage());
        }
    }

    private static YamlNode read(JsonParser p, String text, String file, String path, int line)
            throws IOException, InvalidInputException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.START_OBJECT) {
            Map<String, YamlNode> fields = new LinkedHashMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                int keyLine = p.currentTokenLocation().getLineNr();
                String childPath = path.isEmpty() ? name : path + "." + name;
                if (fields.containsKey(name)) {
                    throw new InvalidInputException(file, childPath, keyLine,
                            "key given twice in one mapping (first on line " + fields.get(name).line() + ")");
                }
                p.nextToken();
                fields.put(name, read(p, text, file, childPath, keyLine));
            }
            return new YamlNode(Kind.MAPPING, null, false, fields, null, line);
        }
        if (t == JsonToken.START_ARRAY) {
            List<YamlNode> items = new ArrayList<>();
            int i = 0;
            while (p.nextToken() != JsonToken.END_ARRAY) {
                items.add(read(p, text, file, path + "[" + i++ + "]", p.currentTokenLocation().getLineNr()));
            }
            return new YamlNode(Kind.SEQUENCE, null, false, null, items, line);
        }
        if (t == JsonToken.VALUE_NULL) {
            return new YamlNode(Kind.NULL, null, false, null, null, line);
        }
        // A quoted or block scalar starts with its indicator, where the parser puts the token (JSON strings too).
        long at = p.currentTokenLocation().getCharOffset();
        boolean quoted = t == JsonToken.VALUE_STRING && at >= 0 && at < text.length()
                && "\"'|>".indexOf(text.charAt((int) at)) >= 0;
        return new YamlNode(Kind.SCALAR, p.getText(), quoted, null, null, line);
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int nl = message.indexOf('\n');
        return (nl < 0 ? message : message.substring(0, nl)).strip();
    }
}
