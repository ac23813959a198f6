package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A records file that starts as JSON is read as JSON only: its syntax error is one line with the file, line and
 * column and what was wrong in plain words, never SnakeYAML's, nor Jackson's internal wording; YAML still goes to YAML.
 */
class JsonSyntaxErrorTest {

    /** A dump as {@code kubectl get gpucapacities,nodes -o json} writes it, cut down; the label is not ASCII. */
    private static final String DUMP = """
            {
                "apiVersion": "v1",
                "items": [
                    {
                        "apiVersion": "gpu-detect.io/v1alpha1",
                        "kind": "GpuCapacity",
                        "metadata": {
                            "name": "n1"
                        },
                        "spec": {
                            "gpus": [
                                {"vendor": "nvidia", "model": "h100", "memoryGi": 80, "interface": "sxm"}
                            ]
                        }
                    },
                    {
                        "apiVersion": "v1",
                        "kind": "Node",
                        "metadata": {
                            "labels": {"topology.kubernetes.io/zone": "zürich-1", "rack": "r1"},
                            "name": "n1"
                        },
                        "status": {
                            "conditions": [{"type": "Ready", "status": "True"}],
                            "images": [
                                {"names": ["registry.k8s.io/pause:3.9", "registry.k8s.io/pause@sha256:7031"], "sizeBytes": 321520}
                            ]
                        }
                    }
                ],
                "kind": "List"
            }
            """;

    /** Jackson's and SnakeYAML's wording, none of which may show. */
    private static final Pattern INTERNALS = Pattern.compile(
            "YAML|Source|REDACTED|code \\d|CTRL-CHAR|VALUE_STRING|Object entries|Array entries|marker|Unexpected");

    @TempDir
    Path dir;

    @Test
    void aValidDumpReadsAsBefore() throws Exception {
        for (RecordSet set : List.of(readFile(DUMP), readChars(DUMP))) {
            assertEquals(List.of("n1"), set.records().stream().map(RecordSet.Located::node).toList());
            assertEquals(4, set.records().get(0).line());
            assertEquals(1, set.nodes().size());
            assertEquals("n1", set.nodes().get(0).name());
        }
    }

    @Test
    void aTruncatedDumpSaysItEndsEarlyWhereItEnds() {
        String cut = DUMP.substring(0, DUMP.indexOf("pause:3.9") + 5);
        assertError(cut, cut.length(), "the file ends early, inside a string, before the list opened on line 26 is "
                + "closed (cut short? a truncated copy or dump ends so)");
        String between = DUMP.substring(0, DUMP.indexOf("\"status\": {"));
        assertError(between, between.length(), "the file ends early, before the object opened on line 16 is closed "
                + "(cut short? a truncated copy or dump ends so)");
    }

    @Test
    void aMissingCommaIsNamedAtWhatFollows() {
        String text = DUMP.replace("\"kind\": \"Node\",", "\"kind\": \"Node\"");
        assertError(text, text.indexOf("\"metadata\"", text.indexOf("\"Node\"")),
                "expected ',' or '}' after a value in an object, found '\"'");
        String inList = DUMP.replace("pause:3.9\", ", "pause:3.9\" ");
        assertError(inList, inList.indexOf("\"registry.k8s.io/pause@"),
                "expected ',' or ']' after an item in a list, found '\"'");
    }

    @Test
    void theColumnCountsCharactersNotBytes() {
        // The label before the error holds a two-byte character: the column is where an editor shows it.
        String text = DUMP.replace("\"zürich-1\", \"rack\"", "\"zürich-1\" \"rack\"");
        InvalidInputException e = assertError(text, text.indexOf("\"rack\""),
                "expected ',' or '}' after a value in an object, found '\"'");
        assertEquals(70, e.column()); // 71 in bytes
    }

    @Test
    void aLostQuoteIsNamedWhereTheParserFoundItWrong() {
        // The string runs on to the next quote; what follows it is no comma.
        String text = DUMP.replace("\"registry.k8s.io/pause:3.9\"", "\"registry.k8s.io/pause:3.9");
        assertError(text, text.indexOf("registry.k8s.io/pause@"), "expected ',' or ']' after an item in a list, found 'r'");
        String opening = DUMP.replace("\"Ready\"", "Ready\"");
        assertError(opening, opening.indexOf("Ready\""), "expected a value (a string in double quotes, a number, an "
                + "object, a list, true, false or null), found 'Ready'");
    }

    @Test
    void aTrailingCommaIsNamed() {
        String inObject = DUMP.replace("\"sizeBytes\": 321520}", "\"sizeBytes\": 321520,}");
        assertError(inObject, inObject.indexOf(",}") + 1, "a comma before '}' with no key after it (JSON allows no "
                + "trailing comma)");
        String inList = DUMP.replace("pause@sha256:7031\"]", "pause@sha256:7031\",]");
        assertError(inList, inList.indexOf(",]") + 1, "a comma before ']' with no item after it (JSON allows no "
                + "trailing comma)");
    }

    @Test
    void aControlCharacterInAStringIsNamed() {
        String newline = DUMP.replace("pause:3.9", "pause:\n3.9");
        assertError(newline, newline.indexOf("pause:\n") + 6, "a line break (write it as \\n) inside a string; JSON "
                + "allows it only escaped");
        String tab = DUMP.replace("\"name\": \"n1\"\n            }", "\"name\": \"n\t1\"\n            }");
        assertError(tab, tab.indexOf("n\t1") + 1, "a tab (write it as \\t) inside a string; JSON allows it only escaped");
        String control = DUMP.replace("zürich", "zür\u0001ich");
        assertError(control, control.indexOf('\u0001'), "the control character U+0001 (write it as \\u0001) inside a "
                + "string; JSON allows it only escaped");
    }

    @Test
    void whatFollowsTheDocumentIsNamed() {
        String garbage = DUMP + "xyz\n";
        assertError(garbage, garbage.indexOf("xyz"), "expected a value (a string in double quotes, a number, an "
                + "object, a list, true, false or null), found 'xyz'");
        String brace = DUMP.stripTrailing() + "}\n";
        assertError(brace, brace.length() - 2, "'}' with nothing open to close");
        String wrongClose = DUMP.replace("\"sizeBytes\": 321520}", "\"sizeBytes\": 321520]");
        assertError(wrongClose, wrongClose.indexOf("321520]") + 6, "']' where the object opened on line 26 needs '}'");
    }

    @Test
    void aByteOrderMarkStillMakesJson() throws IOException, InvalidInputException {
        Path file = dir.resolve("dump.json");
        byte[] text = ("\uFEFF" + DUMP.replace("\"kind\": \"Node\",", "\"kind\": \"Node\""))
                .getBytes(StandardCharsets.UTF_8);
        Files.write(file, text);
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> RecordSet.read(RecordSet.Text.of(file), "dump.json", RecordSet.DEFAULT_YAML_LIMIT));
        assertEquals("dump.json:19:13: not valid JSON: expected ',' or '}' after a value in an object, found '\"'",
                e.getMessage());
        // On the first line the mark takes no column, as in an editor; read as characters, it is skipped too.
        String first = "\uFEFF{\"a\" 1}";
        assertEquals("dump.json:1:6: not valid JSON: expected ':' after a key, found '1'",
                assertThrows(InvalidInputException.class, () -> readFile(first)).getMessage());
        assertEquals("dump.json:1:6: not valid JSON: expected ':' after a key, found '1'",
                assertThrows(InvalidInputException.class, () -> readChars(first)).getMessage());
        assertEquals(List.of("n1"), readChars("\uFEFF" + DUMP).records().stream().map(RecordSet.Located::node).toList());
    }

    @Test
    void yamlStillGoesToYaml() throws Exception {
        String record = "  - apiVersion: gpu-detect.io/v1alpha1\n    kind: GpuCapacity\n    metadata: {name: n1}\n"
                + "    spec:\n      gpus: [{vendor: nvidia, model: h100, memoryGi: 80, interface: sxm}]\n";
        for (String yaml : List.of("# kubectl get gpucapacities -o yaml\napiVersion: v1\nitems:\n" + record,
                "---\napiVersion: v1\nitems:\n" + record, "apiVersion: v1\nitems:\n" + record,
                "\n  \n" + record.replace("\n    ", "\n  ").substring(2))) {
            assertEquals(List.of("n1"), readFile(yaml).records().stream().map(RecordSet.Located::node).toList(), yaml);
        }
        // YAML in flow style, written by hand, names its first key unquoted.
        String flow = "{kind: GpuCapacity, metadata: {name: n1}, spec: {gpus: [{vendor: nvidia, model: h100}]}}";
        for (String yaml : List.of(flow, "[" + flow + "]", "[\n  " + flow + ",\n]", "{apiVersion: v1, items: [" + flow + "]}")) {
            assertEquals(List.of("n1"), readFile(yaml).records().stream().map(RecordSet.Located::node).toList(), yaml);
        }
        // A broken one is still reported by the YAML reader.
        for (String broken : List.of("# records\napiVersion: v1\nitems: [\n", "[{metadata: {name: n1}\n")) {
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> readFile(broken));
            assertTrue(e.getMessage().contains("not valid YAML or JSON"), e.getMessage());
        }
    }

    @Test
    void aFileCutRightAfterItsOpeningIsJson() {
        assertError("{", 1, "the file ends early, before the object opened on line 1 is closed (cut short? a truncated "
                + "copy or dump ends so)");
        assertError("[\n  {\n", 6, "the file ends early, before the object opened on line 2 is closed (cut short? a "
                + "truncated copy or dump ends so)");
    }

    /**
     * Reading {@code text} from a file (bytes, skimmed) and from characters gives one message: {@code dump.json},
     * the line and column of the character at {@code at}, and {@code problem}; nothing of YAML nor of Jackson's
     * internals.
     */
    private InvalidInputException assertError(String text, int at, String problem) {
        String before = text.substring(0, at);
        int line = before.split("\n", -1).length;
        int column = before.length() - before.lastIndexOf('\n');
        String expected = "dump.json:" + line + ":" + column + ": not valid JSON: " + problem;
        InvalidInputException fromFile = assertThrows(InvalidInputException.class, () -> readFile(text));
        assertEquals(expected, fromFile.getMessage());
        assertEquals(line, fromFile.line());
        assertEquals(column, fromFile.column());
        assertFalse(INTERNALS.matcher(fromFile.problem()).find(), fromFile.problem());
        assertEquals(expected, assertThrows(InvalidInputException.class, () -> readChars(text)).getMessage());
        return fromFile;
    }

    private RecordSet readFile(String text) throws IOException, InvalidInputException {
        Path file = dir.resolve("dump.json");
        Files.writeString(file, text);
        return RecordSet.read(RecordSet.Text.of(file), "dump.json", RecordSet.DEFAULT_YAML_LIMIT);
    }

    private static RecordSet readChars(String text) throws InvalidInputException {
        return RecordSet.read(() -> new StringReader(text), "dump.json", RecordSet.DEFAULT_YAML_LIMIT);
    }
}
