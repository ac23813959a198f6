package io.gpudetect.render;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.gpudetect.inventory.Inventory;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * The inventory as JSON or YAML: a top-level {@code gpus} array of normalised GPUs (fields named as in
 * {@link io.gpudetect.model.Gpu}), {@code complete}, what each probe did, and every diagnostic.
 *
 * <p>Both are streamed by {@link InventoryWriter} rather than through an ObjectMapper, which a one-shot
 * command would pay for at start-up; JSON through {@link PrettyJson}, no JSON library at all. The output is
 * the same as databind's.
 */
public final class InventoryDocument {

    private InventoryDocument() {
    }

    /** The mapper for other JSON reports (match, cluster inventory): pretty-printed like {@link #json}. */
    public static ObjectMapper jsonMapper() {
        return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    }

    public static String json(Inventory inventory) {
        PrettyJson json = new PrettyJson();
        try {
            InventoryWriter.write(json, inventory);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // PrettyJson writes to memory and never throws
        }
        return json.text() + "\n";
    }

    /** YAML with quotes only where needed, and always where a reader would otherwise not read a string. */
    public static YAMLFactory yamlFactory() {
        return YAMLFactory.builder()
                .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                .stringQuotingChecker(new YamlQuoting())
                .build();
    }

    public static String yaml(Inventory inventory) {
        YAMLFactory yaml = yamlFactory();
        StringWriter out = new StringWriter();
        // Closing the generator ends the YAML stream, which is what flushes the document into out.
        try (JsonGenerator g = yaml.createGenerator(out)) {
            InventoryWriter.write(DocumentSink.of(g), inventory);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }
}
