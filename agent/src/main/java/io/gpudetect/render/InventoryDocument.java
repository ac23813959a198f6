package io.gpudetect.render;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.gpudetect.inventory.Inventory;
import java.io.UncheckedIOException;

/**
 * The inventory as JSON or YAML: a top-level {@code gpus} array of normalised GPUs (fields named as in
 * {@link io.gpudetect.model.Gpu}), {@code complete}, what each probe did, and every diagnostic.
 */
public final class InventoryDocument {

    private InventoryDocument() {
    }

    public static ObjectMapper jsonMapper() {
        return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    }

    public static String json(Inventory inventory) {
        return write(jsonMapper(), inventory);
    }

    public static String yaml(Inventory inventory) {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory()
                .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));
        return write(yaml, inventory);
    }

    private static String write(ObjectMapper mapper, Inventory inventory) {
        try {
            return mapper.writeValueAsString(inventory) + (mapper.getFactory() instanceof YAMLFactory ? "" : "\n");
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
