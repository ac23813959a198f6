package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * The YAML parser that knows a scalar's style takes a plain scalar that no implicit resolver is registered for as a
 * string without asking the resolver: every token, its kind and its text, must be what Jackson's own parser gives.
 */
class StyledYamlFactoryTest {

    /** Scalars of every first character the resolver knows, and of some it does not, plain, quoted and tagged. */
    private static final String DOCUMENT = """
            letters: [abc, Zebra, x1, hello world, ABC, gpu-node-00001, kubelet, Update, FieldsV1, v1, Hopper, sxm]
            booleans: [yes, Yes, YES, no, No, true, True, TRUE, false, False, on, On, off, Off, y, n, tru, nonsense]
            nulls: [~, null, Null, NULL, nul, nil, ""]
            empty:
            numbers: [0, 1, -1, +1, 0x1F, 0b101, 017, 1_000, 190:20:30, 1.5, .5, -.inf, .NaN, 1e5, 09, 0.0, 7, 4803000000,
              123456789012345678901234567890, 10de, 1E5, 1:20, 12e, 3.0.1, 0000:17:00.0, 1a]
            digitsThenMore: [1843269236Ki, 6.8.0-45-generic, 1x, 1g, 9 lives, 1_000_000, 1e+5, 12-05]
            times: [2026-05-01T10:00:00Z, 2001-12-14 21:59:43.10 -5, 2002-12-14, 2002-12-14t21:59:43Z]
            others: ["<<", "=", a<b, "!x", "&x", "*x", '1', "true", "null", "", 'abc']
            block: |
              block
            folded: >
              folded
            tagged: [!!str 1, !!int "2", !!float "3", !!bool "true", !!null "", ! 12, ! abc, !custom abc, !!str abc]
            again: [yes, True, null, 10de, 1.5, 2026-05-01T10:00:00Z, 0000:17:00.0, nonsense, 017, -1, .inf, "1", ~]
            "quoted key": value
            ? complex
            : mapping
            """;

    /** A token as a reader can see it: its kind, its text, and the number it holds. */
    private record Token(JsonToken kind, String text, String number) {
    }

    private static List<Token> tokens(JsonParser p) throws IOException {
        List<Token> out = new ArrayList<>();
        while (p.nextToken() != null) {
            out.add(new Token(p.currentToken(), p.getText(), p.currentToken().isNumeric() ? number(p) : null));
        }
        return out;
    }

    private static String number(JsonParser p) throws IOException {
        try {
            return p.getNumberType() + " " + p.getNumberValue();
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return "refused: " + e.getOriginalMessage();
        }
    }

    private static YAMLFactory jacksons() {
        YAMLFactory plain = new YAMLFactory();
        for (YAMLParser.Feature f : YAMLParser.Feature.values()) {
            assertEquals(f.enabledByDefault(), plain.isEnabled(f), "a plain YAMLFactory's " + f);
        }
        return plain;
    }

    @Test
    void everyTokenIsJacksons() throws IOException {
        List<Token> ours;
        try (JsonParser p = YamlNode.yamlParser(new StringReader(DOCUMENT), new LoaderOptions())) {
            ours = tokens(p);
        }
        List<Token> jackson;
        try (JsonParser p = jacksons().createParser(new StringReader(DOCUMENT))) {
            jackson = tokens(p);
        }
        assertEquals(jackson, ours);
        // The document holds each kind of scalar the resolver tells apart, so a first character missing from the
        // parser's list would show above as a string where Jackson says boolean, number or null.
        for (JsonToken kind : List.of(JsonToken.VALUE_TRUE, JsonToken.VALUE_FALSE, JsonToken.VALUE_NULL,
                JsonToken.VALUE_NUMBER_INT, JsonToken.VALUE_NUMBER_FLOAT, JsonToken.VALUE_STRING)) {
            assertTrue(ours.stream().anyMatch(t -> t.kind() == kind), "no " + kind);
        }
    }

    @Test
    void moreScalarsThanTheParserKeepsAnswersForAreStillJacksons() throws IOException {
        StringBuilder doc = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            doc.append("- [").append(i % 7 == 0 ? "0x" + Integer.toHexString(i) : i % 3 == 0 ? i + ".5" : i + "e")
                    .append(", 2026-05-01T10:").append(i % 60 < 10 ? "0" : "").append(i % 60).append(":00Z, ")
                    .append(i % 2 == 0 ? "True" : "off").append("]\n");
        }
        List<Token> ours;
        try (JsonParser p = YamlNode.yamlParser(new StringReader(doc.toString()), new LoaderOptions())) {
            ours = tokens(p);
        }
        try (JsonParser p = jacksons().createParser(new StringReader(doc.toString()))) {
            assertEquals(tokens(p), ours);
        }
    }

    @Test
    void aPlainWordIsStillUnquotedAndAQuotedOneQuoted() throws IOException {
        try (JsonParser p = YamlNode.yamlParser(new StringReader("a: plain\nb: \"quoted\"\n"), new LoaderOptions())) {
            StyledYamlFactory.Parser yaml = (StyledYamlFactory.Parser) p;
            assertEquals(JsonToken.START_OBJECT, p.nextToken());
            p.nextToken();
            assertEquals(JsonToken.VALUE_STRING, p.nextToken());
            assertEquals("plain", p.getText());
            assertFalse(yaml.quotedScalar());
            p.nextToken();
            assertEquals(JsonToken.VALUE_STRING, p.nextToken());
            assertTrue(yaml.quotedScalar());
        }
    }
}
