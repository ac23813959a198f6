package io.gpudetect.match;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonEOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A JSON syntax error as one line in plain words: the file, line and column where Jackson's parser stopped, and what it
 * found wrong, without its internal wording (token class names, "(for Object starting at [Source: REDACTED ...])",
 * character codes). Jackson's messages are matched by their fixed parts (jackson-core 2.18); one not matched here is
 * given with those internals cut off. Used for records files ({@link RecordSet}) and Akash's GPU table.
 */
public final class JsonSyntax {

    private static final Pattern UNEXPECTED = Pattern.compile("Unexpected character \\('(.+?)' \\(code \\d+\\)\\):? ?(.*)",
            Pattern.DOTALL);
    private static final Pattern TOKEN = Pattern.compile("Unrecognized token '(.*?)': was expecting.*", Pattern.DOTALL);
    private static final Pattern CONTROL = Pattern.compile("Illegal unquoted character \\(\\(CTRL-CHAR, code (\\d+)\\)\\).*",
            Pattern.DOTALL);
    private static final Pattern CLOSE = Pattern.compile("Unexpected close marker '(.)': expected '(.)'.*", Pattern.DOTALL);
    private static final Pattern ESCAPE = Pattern.compile("Unrecognized character escape '(.+?)' \\(code \\d+\\).*",
            Pattern.DOTALL);
    private static final Pattern NON_STANDARD = Pattern.compile("Non-standard token '(.*?)'.*", Pattern.DOTALL);
    /** What the fallback cuts off: Jackson's source descriptions and character codes. */
    private static final Pattern INTERNALS = Pattern.compile(" ?\\((for|start marker at) .*|\\[Source: .*| \\(code \\d+\\)");

    private JsonSyntax() {
    }

    /**
     * The error {@code e}, which the parser of {@code text} (a file named {@code source}) threw, as one line. Jackson
     * counts a byte source's columns in bytes; the column given is in characters, counted again from the line's bytes.
     */
    public static InvalidInputException error(JsonProcessingException e, String source, RecordSet.Text text) {
        JsonLocation at = e.getLocation();
        Integer line = at == null || at.getLineNr() < 1 ? null : at.getLineNr();
        Integer column = null;
        if (line != null && at.getColumnNr() >= 1) {
            String before = lineBefore(at, text);
            column = before == null ? null : columnOf(before, before.length());
            Matcher token = TOKEN.matcher(e.getOriginalMessage() == null ? "" : e.getOriginalMessage());
            if (before != null && token.matches() && !token.group(1).isEmpty()
                    && before.lastIndexOf(token.group(1)) >= 0) {
                // Jackson stops past the word it did not recognise (and the character after it): name where it starts.
                column = columnOf(before, before.lastIndexOf(token.group(1)));
            }
        }
        return new InvalidInputException(source, null, line, column, "not valid JSON: " + problem(e));
    }

    /** The column, counted in characters from 1, of {@code index} in a line's text; a byte-order mark takes none. */
    private static int columnOf(String line, int index) {
        int mark = line.startsWith("\uFEFF") ? 1 : 0;
        return line.codePointCount(0, index) - Math.min(mark, index) + 1;
    }

    /** What was wrong, in plain words. */
    static String problem(JsonProcessingException e) {
        String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        JsonStreamContext open = e.getProcessor() instanceof JsonParser p ? p.getParsingContext() : null;
        if (e instanceof JsonEOFException || message.startsWith("Unexpected end-of-input")) {
            // Only where the parser met the end of the input: what is still open says the file was cut there.
            JsonToken in = e instanceof JsonEOFException eof ? eof.getTokenBeingDecoded() : null;
            String inside = in == JsonToken.VALUE_STRING || message.contains("closing quote") ? "inside a string, "
                    : in == JsonToken.FIELD_NAME || message.contains("in field name") ? "inside a key, " : "";
            return "the file ends early, " + inside + "before " + opened(open)
                    + " is closed (cut short? a truncated copy or dump ends so)";
        }
        Matcher m = CONTROL.matcher(message);
        if (m.matches()) {
            int code = Integer.parseInt(m.group(1));
            String what = switch (code) {
                case '\n' -> "a line break (write it as \\n)";
                case '\r' -> "a carriage return (write it as \\r)";
                case '\t' -> "a tab (write it as \\t)";
                default -> String.format("the control character U+%04X (write it as \\u%04x)", code, code);
            };
            return what + " inside a string; JSON allows it only escaped";
        }
        m = UNEXPECTED.matcher(message);
        if (m.matches()) {
            String found = m.group(1);
            String expected = m.group(2);
            if (expected.startsWith("was expecting comma to separate Object entries")) {
                return "expected ',' or '}' after a value in an object, found '" + found + "'";
            }
            if (expected.startsWith("was expecting comma to separate Array entries")) {
                return "expected ',' or ']' after an item in a list, found '" + found + "'";
            }
            if (expected.startsWith("was expecting double-quote to start field name")) {
                // Jackson takes '}' at once after '{'; here it follows a comma.
                return found.equals("}") ? "a comma before '}' with no key after it (JSON allows no trailing comma)"
                        : "expected a key in double quotes, found '" + found + "'";
            }
            if (expected.startsWith("was expecting a colon")) {
                return "expected ':' after a key, found '" + found + "'";
            }
            if (found.equals("]") && open != null && open.inArray() && expected.startsWith("expected a")) {
                // A list wants an item only after a comma: Jackson takes ']' at once after '[' or an item.
                return "a comma before ']' with no item after it (JSON allows no trailing comma)";
            }
            if (expected.startsWith("expected a value") || expected.startsWith("expected a valid value")) {
                return "expected a value, found '" + found + "'";
            }
            if (expected.startsWith("maybe a (non-standard) comment")) {
                return "a comment ('" + found + "'), which JSON does not allow";
            }
            return "unexpected '" + found + "'";
        }
        m = TOKEN.matcher(message);
        if (m.matches()) {
            return "expected a value (a string in double quotes, a number, an object, a list, true, false or null), "
                    + "found '" + m.group(1) + "'";
        }
        m = CLOSE.matcher(message);
        if (m.matches()) {
            return open == null || open.inRoot() ? "'" + m.group(1) + "' with nothing open to close"
                    : "'" + m.group(1) + "' where " + opened(open) + " needs '" + m.group(2) + "'";
        }
        m = ESCAPE.matcher(message);
        if (m.matches()) {
            return "an unknown escape '\\" + m.group(1) + "' in a string";
        }
        m = NON_STANDARD.matcher(message);
        if (m.matches()) {
            return "'" + m.group(1) + "' is not a JSON value";
        }
        if (message.startsWith("Invalid UTF-8")) {
            return "bytes that are not UTF-8 (" + message.substring("Invalid UTF-8 ".length()) + ")";
        }
        if (message.startsWith("Invalid numeric value: ")) {
            return "not a JSON number: " + INTERNALS.matcher(message.substring("Invalid numeric value: ".length()))
                    .replaceAll("");
        }
        String first = message.lines().findFirst().orElse("");
        return INTERNALS.matcher(first).replaceAll("").trim();
    }

    /** The innermost object or list still open, and the line it was opened on. */
    private static String opened(JsonStreamContext open) {
        if (open == null || open.inRoot()) {
            return "the document";
        }
        String what = open.inObject() ? "the object" : "the list";
        JsonLocation start = open.startLocation(null);
        return start == null || start.getLineNr() < 1 ? what : what + " opened on line " + start.getLineNr();
    }

    /** {@code in} after its byte-order mark, if any: Jackson skips one in bytes, not in characters. */
    static Reader afterMark(Reader in) throws IOException {
        PushbackReader r = new PushbackReader(in);
        int c = r.read();
        if (c >= 0 && c != '\uFEFF') {
            r.unread(c);
        }
        return r;
    }

    /**
     * The text of {@code at}'s line before it, read again from the file: Jackson counts a byte source's columns in
     * bytes, and an editor in characters (a line of kubectl's JSON may hold a label or image name that is not ASCII).
     * A byte-order mark on the first line is kept (Jackson counts it in bytes; {@link #columnOf} does not). Null when
     * the text cannot be read again (it changed or went): the column is then not known.
     */
    private static String lineBefore(JsonLocation at, RecordSet.Text text) {
        int before = at.getColumnNr() - 1;
        try (InputStream in = at.getByteOffset() >= 0 ? text.bytes() : null) {
            if (in != null) {
                long start = at.getByteOffset() - before;
                if (start < 0) {
                    return null;
                }
                in.skipNBytes(start);
                return new String(in.readNBytes(before), StandardCharsets.UTF_8);
            }
            long start = at.getCharOffset() - before;
            if (at.getCharOffset() < 0 || start < 0) {
                return null;
            }
            try (Reader chars = afterMark(text.open())) {
                for (long left = start; left > 0; ) {
                    long n = chars.skip(left);
                    if (n <= 0) {
                        return null;
                    }
                    left -= n;
                }
                char[] line = new char[before];
                for (int got = 0; got < before; ) {
                    int n = chars.read(line, got, before - got);
                    if (n < 0) {
                        return null;
                    }
                    got += n;
                }
                return new String(line);
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
