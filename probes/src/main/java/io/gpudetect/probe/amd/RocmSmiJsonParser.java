package io.gpudetect.probe.amd;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.probe.JsonOutput;
import io.gpudetect.probe.ParsedOutput;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code rocm-smi --showallinfo --json} (or any flag set that includes product, bus and memory): an object
 * with one {@code cardN} member per GPU and a {@code system} member. Each card's members are read as
 * {@link RocmSmiCard} reads every form rocm-smi prints.
 */
public final class RocmSmiJsonParser {

    public static final String PROBE = "rocm-smi-json";

    private static final Pattern CARD = Pattern.compile("^card(\\d+)$");

    private RocmSmiJsonParser() {
    }

    public static ParsedOutput parse(String text, String file) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        JsonOutput json = JsonOutput.parse(text, PROBE, file, "the object 'rocm-smi --json' prints");
        if (json.error() != null) {
            return new ParsedOutput(List.of(), List.of(json.error()));
        }
        JsonNode root = json.root();
        if (root == null || !root.isObject()) {
            return new ParsedOutput(List.of(), List.of(Diagnostic.error(PROBE, file, null,
                    "expected a JSON object with card0, card1, ... members, found " + (root == null ? "nothing" : root.getNodeType()))));
        }
        String driver = field(root.path("system"), "Driver version").orElse(null);
        List<Gpu> gpus = new ArrayList<>();
        boolean sawCard = false;
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            Matcher m = CARD.matcher(e.getKey());
            if (!m.matches()) {
                if (!e.getKey().equals("system")) {
                    diagnostics.add(Diagnostic.info(PROBE, file, "ignored unknown member '" + e.getKey() + "' (expected cardN or system)"));
                }
                continue;
            }
            sawCard = true;
            if (!e.getValue().isObject()) {
                diagnostics.add(Diagnostic.warning(PROBE, file, null, e.getKey() + " is not an object; skipped"));
                continue;
            }
            gpus.add(card(e.getKey(), e.getValue(), driver, diagnostics, file));
        }
        if (!sawCard) {
            diagnostics.add(Diagnostic.error(PROBE, file, null, "no cardN members; expected one per GPU"));
        }
        // rocm-smi lists cards in a map; the inventory sorts by PCI address anyway, so keep the tool's order.
        return new ParsedOutput(gpus, diagnostics);
    }

    private static Gpu card(String key, JsonNode card, String driver, List<Diagnostic> diagnostics, String file) {
        Map<String, String> fields = RocmSmiCard.fields();
        for (Iterator<Map.Entry<String, JsonNode>> it = card.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isValueNode()) {
                RocmSmiCard.put(fields, e.getKey(), e.getValue().asText());
            }
        }
        return RocmSmiCard.read(PROBE, key, fields, driver, diagnostics, file);
    }

    /** A string member by name, any case, trimmed; empty when missing, blank or N/A. */
    static Optional<String> field(JsonNode node, String name) {
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().strip().equalsIgnoreCase(name) && e.getValue().isValueNode()) {
                String v = e.getValue().asText().strip();
                return v.isEmpty() || RocmSmiCard.isNa(v) ? Optional.empty() : Optional.of(v);
            }
        }
        return Optional.empty();
    }
}
