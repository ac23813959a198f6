package io.gpudetect.probe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.gpudetect.model.Diagnostic;

/**
 * A tool output that should be JSON: its tree, or the one diagnostic saying where it stopped being JSON.
 * Shared by the JSON-printing tools so that each reports a broken file the same way.
 */
public record JsonOutput(JsonNode root, Diagnostic error) {

    /** Immutable, so one reader serves every parse. */
    private static final ObjectReader READER = new ObjectMapper().reader();

    /**
     * @param expected what the file should have held, for the message: {@code 'amd-smi static --json' output}
     */
    public static JsonOutput parse(String text, String probe, String file, String expected) {
        try {
            JsonNode root = READER.readTree(text);
            if (root == null || root.isMissingNode()) {
                return new JsonOutput(null, Diagnostic.error(probe, file, null, "no JSON value; expected " + expected));
            }
            return new JsonOutput(root, null);
        } catch (JsonProcessingException e) {
            var location = e.getLocation();
            return new JsonOutput(null, Diagnostic.error(probe, file, location == null ? null : location.getLineNr(),
                    "not valid JSON (" + e.getOriginalMessage() + "); expected " + expected));
        }
    }
}
