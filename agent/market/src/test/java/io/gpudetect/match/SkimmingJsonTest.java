package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The skim over skipped values ({@link SkimmingJson}) against Jackson's own skip: the same tokens and locations after
 * it, and a refusal (so that Jackson's own parser reads the text again) wherever Jackson would find an error.
 */
class SkimmingJsonTest {

    /**
     * Values of every kind, line breaks of every kind (LF, CR LF, a lone CR), tabs, runs of spaces longer and shorter
     * than the eight bytes the skim looks at at once, escapes, and characters of two, three and four UTF-8 bytes.
     */
    private static final String DOCUMENT = "{\"apiVersion\": \"v1\", \"kind\": \"Node\",\n"
            + "  \"metadata\": {\"name\": \"n1\",\r\n"
            + "    \"managedFields\": [{\"manager\": \"kubelet\", \"fieldsV1\": {\"f:status\": {\"f:images\": {},"
            + " \".\": {}}}},\r"
            + "\t{\"manager\": \"gpu-detect\", \"time\": \"2026-05-01T10:00:00Z\", \"extra\": [[1, [2, []]], {}]}],\n"
            + "    \"annotations\": {\"a\\\"b\\\\c\\/d\": \"\\b\\f\\n\\r\\t \\u00e9\\uD83D\\uDE00 \\u12aB\","
            + " \"caf\u00e9\": \"\u4e2d\u6587 \ud83d\ude00 \u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\"}},\n"
            + "  \"spec\": {\"unschedulable\": true, \"taints\": null, \"podCIDRs\": []},\n"
            + "  \"status\": {\"numbers\": [0, -0, 7, -12, 0.5, -0.25, 1e10, 1E+2, 2.5e-3, -1.25E-3,"
            + " 12345678901234567890, 3.14159265358979323846264338327950288],\n"
            + "                                          \"words\": [true, false, null],\n"
            + "    \"images\": [{\"names\": [\"registry.example.com/team-0/workload-0@sha256:"
            + "14057b7ef767814f1a08ee1184ba6d329af678222e72811966b61ae97f2099b4\", \"x\", \"\", \"12345678\","
            + " \"1234567\\\"\", \"123456789012345\\\\\"], \"sizeBytes\": 50000000}],\n"
            + "    \"conditions\": [{\"type\": \"Ready\", \"status\": \"True\"}]},\n"
            + "  \"after\": {\"deep\": [[[[[[[[[[[[[[[[[[[[{}]]]]]]]]]]]]]]]]]]]]}\n"
            + "}\n";

    /** Gives at most {@code step} bytes a read, so that the parser's buffer ends inside every kind of token. */
    private static InputStream trickle(byte[] bytes, int step) {
        return new ByteArrayInputStream(bytes) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, step));
            }
        };
    }

    /**
     * Every token of {@code doc} with its text and location, the {@code skip}-th object or list skipped (and where the
     * parser stands after the skip).
     */
    private static List<String> tokens(JsonFactory factory, byte[] doc, int skip, int step) throws IOException {
        List<String> out = new ArrayList<>();
        try (JsonParser p = factory.createParser(trickle(doc, step))) {
            int starts = 0;
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                out.add(t + " " + (t.isScalarValue() || t == JsonToken.FIELD_NAME ? p.getText() : "") + " "
                        + where(p.currentTokenLocation()) + " in " + p.getParsingContext().typeDesc());
                if (t.isStructStart() && starts++ == skip) {
                    p.skipChildren();
                    out.add("skipped to " + p.currentToken() + " " + where(p.currentTokenLocation()) + " in "
                            + p.getParsingContext().typeDesc());
                }
            }
        }
        return out;
    }

    private static String where(JsonLocation at) {
        return at.getLineNr() + ":" + at.getColumnNr() + "@" + at.getByteOffset();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3, 7, 9, 8000})
    void afterEverySkipTheTokensAndTheirLinesAreJacksons(int step) throws IOException {
        byte[] doc = DOCUMENT.getBytes(StandardCharsets.UTF_8);
        int structures = (int) tokens(new JsonFactory(), doc, -1, 8000).stream()
                .filter(t -> t.startsWith("START_")).count();
        assertTrue(structures > 30, "the document has " + structures + " objects and lists");
        for (int skip = 0; skip < structures; skip++) {
            assertEquals(tokens(new JsonFactory(), doc, skip, step),
                    tokens(new SkimmingJson.Factory(), doc, skip, step),
                    "skipping structure " + skip + ", " + step + " bytes a read");
        }
    }

    /** Skips the value of {@code "skip"} in {@code {"keep": 1, "skip": VALUE, "after": 2}}. */
    private static void skipValue(JsonFactory factory, byte[] value) throws IOException {
        byte[] head = "{\"keep\": 1,\n \"skip\": ".getBytes(StandardCharsets.UTF_8);
        byte[] tail = ",\n \"after\": 2}".getBytes(StandardCharsets.UTF_8);
        byte[] doc = new byte[head.length + value.length + tail.length];
        System.arraycopy(head, 0, doc, 0, head.length);
        System.arraycopy(value, 0, doc, head.length, value.length);
        System.arraycopy(tail, 0, doc, head.length + value.length, tail.length);
        try (JsonParser p = factory.createParser(trickle(doc, 5))) {
            while (p.nextToken() != JsonToken.FIELD_NAME || !p.currentName().equals("skip")) {
                // to the skipped value
            }
            p.nextToken();
            p.skipChildren();
            // What follows must still be read right: a skim that stopped early or late fails here.
            assertEquals(JsonToken.FIELD_NAME, p.nextToken());
            assertEquals("after", p.currentName());
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1); // one byte a character: broken UTF-8 can be written
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"a\": 1,}", "[1,]", "{\"a\" 1}", "{\"a\": 01}", "{\"a\": -}", "{\"a\": 1.}",
            "{\"a\": 1e}", "{\"a\": tru}", "{\"a\": nul }", "{\"a\": \"x\\qy\"}", "{\"a\": \"\\u12G4\"}",
            "{\"a\": \"x\u0001y\"}", "{\"a\": \"x\ny\"}", "{\"a\": \"\u00ff\"}", "{\"a\": \"\u00c3(\"}",
            "{\"a\": \"\u00c3\u00c3\"}", "{\"a\": \"\u00f0\u009f\u0098A\"}",
            "{\"a\": \"\u00e2\u0082\"}", "{a: 1}", "{\"a\": 1 \"b\": 2}", "[1 2]", "{\"a\": [1}", "[{\"a\": 1]",
            "{\"a\": 'x'}", "{\"a\": NaN}", "{\"a\": +1}", "{\"a\": /* c */ 1}", "[1, \u0001]",
            "{\"a\u0001\": 1}", "{\"a\": [1, 2"})
    void whereJacksonFindsAnErrorTheSkimRefuses(String value) {
        assertThrows(JsonProcessingException.class, () -> skipValue(new JsonFactory(), bytes(value)),
                "Jackson's own skip");
        assertThrows(SkimmingJson.Refused.class, () -> skipValue(new SkimmingJson.Factory(), bytes(value)));
    }

    @Test
    void theEndOfTheInputInsideASkippedValueIsRefused() throws IOException {
        for (String truncated : List.of("{\"a\": [1, 2", "{\"a\": \"abc", "{\"a\": \"\\u00", "{\"a\": tr",
                "{\"a\": -1.5e", "{\"a\":")) {
            try (JsonParser p = new SkimmingJson.Factory().createParser(trickle(bytes(truncated), 3))) {
                p.nextToken();
                assertThrows(SkimmingJson.Refused.class, p::skipChildren, truncated);
            }
        }
    }

    @Test
    void whatJacksonReadsButTheSkimDoesNotVouchForIsRefused() {
        String deep = "[".repeat(SkimmingJson.Parser.MAX_DEPTH + 1) + "]".repeat(SkimmingJson.Parser.MAX_DEPTH + 1);
        String longKey = "{\"" + "k".repeat(SkimmingJson.Parser.MAX_KEY + 1) + "\": 1}";
        String longNumber = "[" + "1".repeat(SkimmingJson.Parser.MAX_NUMBER + 1) + "]";
        for (String value : List.of(deep, longKey, longNumber)) {
            assertDoesNotThrow(() -> skipValue(new JsonFactory(), bytes(value)));
            assertThrows(SkimmingJson.Refused.class, () -> skipValue(new SkimmingJson.Factory(), bytes(value)));
        }
        // One level less, one byte or digit fewer: skimmed.
        String shallower = "[".repeat(SkimmingJson.Parser.MAX_DEPTH) + "]".repeat(SkimmingJson.Parser.MAX_DEPTH);
        assertDoesNotThrow(() -> skipValue(new SkimmingJson.Factory(), bytes(shallower)));
        assertDoesNotThrow(() -> skipValue(new SkimmingJson.Factory(),
                bytes("{\"" + "k".repeat(SkimmingJson.Parser.MAX_KEY) + "\": 1}")));
        assertDoesNotThrow(() -> skipValue(new SkimmingJson.Factory(),
                bytes("[" + "1".repeat(SkimmingJson.Parser.MAX_NUMBER) + "]")));
    }

    @Test
    void textThatIsNotPlainUtf8GoesToJacksonsOwnParser() throws IOException {
        byte[] withMark = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '[', '1', ']'};
        byte[] utf16 = "[1]".getBytes(StandardCharsets.UTF_16BE);
        for (byte[] doc : List.of(withMark, utf16)) {
            try (JsonParser p = new SkimmingJson.Factory().createParser(new ByteArrayInputStream(doc))) {
                assertTrue(!(p instanceof SkimmingJson.Parser), p.getClass().getName());
                assertEquals(JsonToken.START_ARRAY, p.nextToken());
                assertEquals(JsonToken.VALUE_NUMBER_INT, p.nextToken());
                assertEquals(1, p.getIntValue());
            }
        }
        try (JsonParser p = new SkimmingJson.Factory().createParser(new ByteArrayInputStream(bytes(" [1]")))) {
            assertTrue(p instanceof SkimmingJson.Parser);
        }
    }

    // Through RecordSet.read: a file's bytes are skimmed (Text.of); a Reader is parsed by Jackson alone.

    private static final String RECORD = "{\"kind\": \"GpuCapacity\", \"metadata\": {\"name\": \"%s\"},\n"
            + " \"spec\": {\"gpus\": [{\"vendor\": \"nvidia\", \"model\": \"h100\", \"memoryGi\": %s,"
            + " \"interface\": \"sxm\"}]}}";
    private static final String NODE = "{\"apiVersion\": \"v1\", \"kind\": \"Node\",\n"
            + " \"metadata\": {\"name\": \"%s\", \"future\": {\"x\": [[1], [2, [3]]]},\n"
            + "  \"managedFields\": [{\"manager\": \"kubelet\",\n"
            + "   \"fieldsV1\": {\"f:status\": {\"f:images\": {}}}}]},\n"
            + " \"spec\": {\"unschedulable\": true, \"providerID\": \"x\"},\n"
            + " \"status\": {\"images\": [{\"names\": [\"a\", \"b\"], \"sizeBytes\": 1}],\n"
            + "  \"conditions\": [{\"type\": \"Ready\", \"status\": \"False\", \"reason\": \"KubeletNotReady\","
            + " \"extra\": [{}]}]},\n \"unknownTopLevel\": [[], [[{\"a\": null}]]]}";

    private static String list(String... items) {
        return "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n" + String.join(",\n", items) + "\n]}\n";
    }

    private static RecordSet readFile(Path dir, String text) throws IOException, InvalidInputException {
        Path file = dir.resolve("records.json");
        Files.writeString(file, text);
        return RecordSet.read(RecordSet.Text.of(file), "records.json", RecordSet.DEFAULT_YAML_LIMIT);
    }

    private static RecordSet readChars(String text) throws InvalidInputException {
        return RecordSet.read(() -> new StringReader(text), "records.json", RecordSet.DEFAULT_YAML_LIMIT);
    }

    @Test
    void aNodeWithUnknownFieldsAndNestedListsIsReadAsJacksonReadsIt(@TempDir Path dir)
            throws IOException, InvalidInputException {
        String text = list(NODE.formatted("a"), RECORD.formatted("a", 80), NODE.formatted("b"));
        RecordSet skimmed = readFile(dir, text);
        RecordSet read = readChars(text);
        KubeNode a = new KubeNode("a", KubeNode.Readiness.NOT_READY, "False: KubeletNotReady", true);
        assertEquals(List.of(a, new KubeNode("b", a.readiness(), a.readyDetail(), true)), skimmed.nodes());
        assertEquals(read.nodes(), skimmed.nodes());
        assertEquals(List.of("a"), skimmed.records().stream().map(RecordSet.Located::node).toList());
        assertEquals(read.records().get(0).line(), skimmed.records().get(0).line());
    }

    @Test
    void aWrongValueAfterSkippedPartsIsReportedOnItsLine(@TempDir Path dir) throws IOException {
        String text = list(NODE.formatted("a"), NODE.formatted("b"), RECORD.formatted("a", "\"lots\""));
        int line = text.substring(0, text.indexOf("\"lots\"")).split("\n", -1).length;
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> readFile(dir, text));
        assertEquals(line, e.line());
        assertEquals(assertThrows(InvalidInputException.class, () -> readChars(text)).getMessage(), e.getMessage());
    }

    /** What reading {@code text} gives: the message of its error, or the nodes and records read. */
    private static String outcome(ThrowingRead read) throws IOException {
        try {
            RecordSet set = read.read();
            return set.nodes() + " " + set.records().stream().map(r -> r.node() + "@" + r.line()).toList();
        } catch (InvalidInputException e) {
            return e.getMessage();
        }
    }

    @FunctionalInterface
    private interface ThrowingRead {
        RecordSet read() throws IOException, InvalidInputException;
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"f:images\": {}", "\"kubelet\"", "\"sizeBytes\": 1"})
    void aBrokenByteInsideASkippedPartIsReportedAsJacksonsOwnParserReportsIt(String where, @TempDir Path dir)
            throws IOException {
        String good = list(RECORD.formatted("a", 80), NODE.formatted("a"), RECORD.formatted("b", 80));
        int at = good.indexOf(where) + 2;
        List<String> broken = List.of(good.substring(0, at) + "\u0001" + good.substring(at + 1),
                good.substring(0, at) + "\u0000" + good.substring(at + 1), good.substring(0, at));
        for (String text : broken) {
            String skimmed = outcome(() -> readFile(dir, text));
            assertTrue(skimmed.startsWith("records.json:"), skimmed);
            assertEquals(outcome(() -> readChars(text)), skimmed);
        }
        for (String text : List.of(good.substring(0, at) + "\"" + good.substring(at + 1),
                good.substring(0, at) + "}" + good.substring(at + 1))) {
            assertEquals(outcome(() -> readChars(text)), outcome(() -> readFile(dir, text)));
        }
    }

    @Test
    void whatTheSkimRefusesIsStillRead(@TempDir Path dir) throws IOException, InvalidInputException {
        String deep = "[".repeat(SkimmingJson.Parser.MAX_DEPTH + 5) + "]".repeat(SkimmingJson.Parser.MAX_DEPTH + 5);
        String text = list(NODE.formatted("a").replace("\"future\": {", "\"future\": {\"deep\": " + deep + ", "),
                RECORD.formatted("a", 80));
        RecordSet set = readFile(dir, text);
        assertEquals(readChars(text).nodes(), set.nodes());
        assertEquals(List.of("a"), set.records().stream().map(RecordSet.Located::node).toList());
    }
}
