package io.gpudetect.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpudetect.render.InventoryDocument;
import java.io.UncheckedIOException;

/** The same document as YAML, for commands whose reports are built as JSON; quoted as the inventory's YAML is. */
final class Yaml {

    private Yaml() {
    }

    static String fromJson(String json) {
        try {
            ObjectMapper yaml = new ObjectMapper(InventoryDocument.yamlFactory());
            return yaml.writeValueAsString(new ObjectMapper().readTree(json));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
