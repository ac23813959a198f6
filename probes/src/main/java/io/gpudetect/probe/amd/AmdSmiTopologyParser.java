package io.gpudetect.probe.amd;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.PciAddress;
import io.gpudetect.probe.JsonOutput;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code amd-smi topology}: only its link types are read, the rest (access, weight, hops, NUMA bandwidth, and the
 * coherence, atomics, DMA and bi-directional tables of newer releases) says nothing a GPU's links need.
 *
 * <ul>
 *   <li>Text: tables titled {@code ACCESS TABLE:}, {@code WEIGHT TABLE:}, {@code HOPS TABLE:}, {@code LINK TYPE
 *       TABLE:}, {@code NUMA BW TABLE:}, ..., each a header row of PCI addresses and one row per GPU; the link type
 *       cells are {@code SELF}, {@code XGMI}, {@code PCIE}, {@code N/A} or {@code UNKNOWN}; a legend may follow.</li>
 *   <li>JSON ({@code --json}): a list with one object per GPU. Newer releases give each its {@code bdf} and
 *       {@code links}, one object per peer with its {@code bdf} and {@code link_type}; older ones a {@code link_type}
 *       object keyed {@code gpu_N} by amd-smi's GPU index, without addresses.</li>
 * </ul>
 *
 * <p>{@code XGMI} is a link over Infinity Fabric in one hive, whether direct or through another GPU (amd-smi calls
 * every pair of an MI250X node's GCDs XGMI): each is one link, as the sysfs hive gives it.
 */
public final class AmdSmiTopologyParser {

    public static final String PROBE = "amd-smi-topology";

    private static final Pattern GPU_KEY = Pattern.compile("gpu_(\\d{1,6})");
    /** The text form's link type table; the next table's title or the legend ends it. */
    private static final SquareTable LINK_TYPES = new SquareTable(PROBE, "LINK TYPE TABLE:", true,
            "no 'LINK TYPE TABLE:' found; expected the output of 'amd-smi topology'", List.of("Legend:"),
            List.of("TABLE:"), true, "the table's header of PCI addresses", "a PCI address", "",
            "SELF, XGMI, PCIE, N/A or UNKNOWN");

    private AmdSmiTopologyParser() {
    }

    /** The text form: the {@code LINK TYPE TABLE}. */
    public static AmdTopology parseText(String text, String file) {
        List<Diagnostic> notes = new ArrayList<>();
        Map<String, Map<String, AmdTopology.Cell>> rows = LINK_TYPES.read(text.split("\\r?\\n", -1), file, notes);
        return rows == null ? AmdTopology.none(notes) : new AmdTopology(true, rows, notes);
    }

    /** The JSON form, newer (each GPU's {@code links}, by address) or older ({@code link_type} by {@code gpu_N}). */
    public static AmdTopology parseJson(String text, String file) {
        List<Diagnostic> notes = new ArrayList<>();
        JsonOutput json = JsonOutput.parse(text, PROBE, file, "the list 'amd-smi topology --json' prints");
        if (json.error() != null) {
            return AmdTopology.none(List.of(json.error()));
        }
        JsonNode root = json.root();
        if (root.isObject() && root.size() == 1 && root.elements().next().isArray()) {
            // A list under one name ("topology"), as some amd-smi commands print theirs.
            root = root.elements().next();
        }
        if (!root.isArray()) {
            notes.add(Diagnostic.warning(PROBE, file, null, "expected a JSON list with one object per GPU, found "
                    + root.getNodeType() + "; the link types were not read"));
            return AmdTopology.none(notes);
        }
        Map<String, Map<String, AmdTopology.Cell>> byAddress = new LinkedHashMap<>();
        Map<String, Map<String, AmdTopology.Cell>> byIndex = new LinkedHashMap<>();
        for (JsonNode gpu : root) {
            JsonNode links = gpu.path("links");
            JsonNode types = gpu.path("link_type");
            if (links.isArray()) {
                Optional<PciAddress> self = PciAddress.parse(gpu.path("bdf").asText(null));
                if (self.isEmpty()) {
                    notes.add(Diagnostic.warning(PROBE, file, null, "GPU " + gpu.path("gpu").asText("?")
                            + " has no PCI address in 'bdf'; its links were not read"));
                    continue;
                }
                Map<String, AmdTopology.Cell> peers = new LinkedHashMap<>();
                boolean readable = true;
                for (JsonNode link : links) {
                    Optional<PciAddress> peer = PciAddress.parse(link.path("bdf").asText(null));
                    if (peer.isEmpty() || peer.get().equals(self.get())) {
                        continue;
                    }
                    AmdTopology.Cell type = AmdTopology.Cell.of(link.path("link_type").asText(""));
                    if (type == null) {
                        notes.add(Diagnostic.warning(PROBE, file, null, self.get() + " to " + peer.get()
                                + " has link_type '" + link.path("link_type").asText("") + "', expected XGMI, PCIE, "
                                + "N/A or UNKNOWN; its links were not read"));
                        readable = false;
                        break;
                    }
                    peers.put(peer.get().toString(), type);
                }
                if (readable) {
                    byAddress.putIfAbsent(self.get().toString(), peers);
                }
            } else if (types.isObject() && gpu.path("gpu").canConvertToInt()) {
                String self = String.valueOf(gpu.path("gpu").asInt());
                Map<String, AmdTopology.Cell> peers = new LinkedHashMap<>();
                for (Iterator<Map.Entry<String, JsonNode>> it = types.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    Matcher m = GPU_KEY.matcher(e.getKey());
                    AmdTopology.Cell type = AmdTopology.Cell.of(e.getValue().asText(""));
                    if (!m.matches() || m.group(1).equals(self) || type == null) {
                        continue;
                    }
                    peers.put(String.valueOf(Integer.parseInt(m.group(1))), type);
                }
                byIndex.putIfAbsent(self, peers);
            }
        }
        if (byAddress.isEmpty() && byIndex.isEmpty()) {
            notes.add(Diagnostic.warning(PROBE, file, null, "no GPU with 'links' or 'link_type' found; expected the "
                    + "output of 'amd-smi topology --json'"));
            return AmdTopology.none(notes);
        }
        return byAddress.isEmpty() ? new AmdTopology(false, byIndex, notes) : new AmdTopology(true, byAddress, notes);
    }
}
