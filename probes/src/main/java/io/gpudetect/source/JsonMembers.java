package io.gpudetect.source;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.ContentReference;
import com.fasterxml.jackson.core.io.JsonEOFException;
import java.io.IOException;

/**
 * Reading the members of a JSON document that gpu-detect wrote itself ({@code bundle.json}, {@code nvml.json}) from
 * jackson-core's streaming parser, member by member, into records. A replay reads those files at every start, and an
 * object mapper's introspection of the records cost it more than the rest of the replay (docs/performance.md,
 * "Start-up and footprint tricks", row "bundle files read without databind"). A value of the wrong kind is an
 * exception at its line: what was expected, what was found, under which member.
 */
public final class JsonMembers {

    private JsonMembers() {
    }

    /** The parser is on the value of {@code member}: an object starts here, or it is null (false). */
    public static boolean object(JsonParser p, String member) throws IOException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return false;
        }
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw wrong(p, member, "an object");
        }
        return true;
    }

    /** The parser is on the value of {@code member}: an array starts here, or it is null (false). */
    public static boolean array(JsonParser p, String member) throws IOException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return false;
        }
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw wrong(p, member, "an array");
        }
        return true;
    }

    /** The next member's name within an object the parser is in, the parser then on its value; null at the object's end. */
    public static String nextMember(JsonParser p) throws IOException {
        if (p.nextToken() != JsonToken.FIELD_NAME) {
            return null;
        }
        String name = p.currentName();
        p.nextToken();
        return name;
    }

    /** A string, or null for JSON's null. */
    public static String text(JsonParser p, String member) throws IOException {
        return switch (p.currentToken()) {
            case VALUE_STRING -> p.getText();
            case VALUE_NULL -> null;
            default -> throw wrong(p, member, "a string");
        };
    }

    /** A whole number, or null for JSON's null. */
    public static Long whole(JsonParser p, String member) throws IOException {
        return switch (p.currentToken()) {
            case VALUE_NUMBER_INT -> {
                if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                    throw wrong(p, member, "a whole number within 64 bits");
                }
                yield p.getLongValue();
            }
            case VALUE_NULL -> null;
            default -> throw wrong(p, member, "a whole number");
        };
    }

    /** A whole number that fits an int, or null for JSON's null. */
    public static Integer integer(JsonParser p, String member) throws IOException {
        Long value = whole(p, member);
        if (value != null && (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE)) {
            throw wrong(p, member, "a whole number within 32 bits");
        }
        return value == null ? null : value.intValue();
    }

    /** true or false, or null for JSON's null. */
    public static Boolean bool(JsonParser p, String member) throws IOException {
        return switch (p.currentToken()) {
            case VALUE_TRUE -> true;
            case VALUE_FALSE -> false;
            case VALUE_NULL -> null;
            default -> throw wrong(p, member, "true or false");
        };
    }

    /** Skips the value of a member this reader does not know: a newer writer's additions do not break an older reader. */
    public static void skip(JsonParser p) throws IOException {
        p.skipChildren();
    }

    /** The document holds nothing after its value. */
    public static void end(JsonParser p) throws IOException {
        if (p.nextToken() != null) {
            throw new JsonParseException(p, "expected the end of the document after its value, found " + found(p),
                    p.currentTokenLocation());
        }
    }

    /**
     * Any failure of a document as one line at a place, for a user: jackson-core's own messages can quote the input
     * across lines, name its settings ("from `StreamReadConstraints.getMaxNestingDepth()`") and, for a document cut
     * short, say where the open object began in its own notation or not at all; and a limit it enforces (nesting,
     * length) comes without a location, so it gets the parser's. Called only where reading a document fails.
     */
    public static JsonParseException plain(JsonParser p, JsonProcessingException e) {
        String message;
        JsonStreamContext open = p.getParsingContext();
        // A cut inside a value is a JsonEOFException; one after a comma is a JsonParseException with these words.
        boolean cutShort = e instanceof JsonEOFException
                || (e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Unexpected end-of-input"));
        if (cutShort && open != null && !open.inRoot()) {
            JsonLocation start = open.startLocation(ContentReference.unknown());
            message = "the document ends before the " + (open.inObject() ? "object" : "array") + " opened at line "
                    + start.getLineNr() + ", column " + start.getColumnNr() + " is closed";
        } else {
            String original = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
            message = original.replaceAll(",?\\s*from `[^`]*`", "").strip().lines().findFirst().orElse("unreadable JSON");
        }
        JsonLocation at = e.getLocation() != null && e.getLocation().getLineNr() > 0 ? e.getLocation() : p.currentLocation();
        return new JsonParseException(p, message, at, e);
    }

    /** A value of the wrong kind, at its own line and column. */
    public static JsonParseException wrong(JsonParser p, String member, String expected) throws IOException {
        return new JsonParseException(p, (member == null ? "" : "'" + member + "': ") + "expected " + expected
                + ", found " + found(p), p.currentTokenLocation());
    }

    private static String found(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == null) {
            return "the end of the document";
        }
        return switch (t) {
            case VALUE_STRING -> "the string \"" + abbreviated(p.getText()) + "\"";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "the number " + abbreviated(p.getText());
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_TRUE, VALUE_FALSE, VALUE_NULL -> p.getText();
            default -> t.asString() == null ? t.name() : t.asString();
        };
    }

    private static String abbreviated(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
