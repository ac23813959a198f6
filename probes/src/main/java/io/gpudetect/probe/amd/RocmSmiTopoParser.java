package io.gpudetect.probe.amd;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.PciAddress;
import io.gpudetect.probe.JsonOutput;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code rocm-smi --showtopo}: of its blocks ("Weight between two GPUs", "Hops between two GPUs", "Link Type between
 * two GPUs", "Numa Nodes") the link types are read, a matrix of {@code GPU0 GPU1 ...} whose cells are {@code 0}
 * on the diagonal and {@code XGMI} or {@code PCIE} elsewhere, and each GPU's NUMA node, which lets {@link
 * AmdTopoLinks} check that rocm-smi numbered the GPUs in bus order. GPUs are named by rocm-smi's index only.
 *
 * <p>The JSON form ({@code rocm-smi --showtopo --json}, and any {@code rocm-smi --json} run with it, as monitoring
 * agents do) puts {@code "(Topology) Link type between DRM devices 0 and 1": "XGMI"} in its {@code system} object,
 * once per pair; where each {@code cardN} object gives its {@code PCI Bus}, the GPUs are named by address.
 */
public final class RocmSmiTopoParser {

    public static final String PROBE = "rocm-smi-topo";

    /** The text form's "Link Type between two GPUs" block; the line of '=' after it ends it. */
    private static final SquareTable LINK_TYPES = new SquareTable(PROBE, "link type between two gpus", false,
            "no 'Link Type between two GPUs' block found; expected the output of 'rocm-smi --showtopo'", List.of("="),
            List.of(), false, "the block's header GPU0 GPU1 ...", "GPU<n>", "GPU", "XGMI, PCIE or N/A");
    // Indexes and NUMA nodes of at most six digits: a longer number is no GPU of a host, and would overflow an int.
    private static final Pattern PAIR = Pattern.compile(
            "\\(Topology\\) Link type between (?:DRM devices|GPUs?) (\\d{1,6}) and (\\d{1,6})", Pattern.CASE_INSENSITIVE);
    private static final Pattern CARD = Pattern.compile("card(\\d{1,6})");
    /** {@code GPU[0]\t\t: (Topology) Numa Node: 0}, or {@code GPU 0   : ...} from other releases. */
    private static final Pattern NUMA = Pattern.compile("GPU\\s*\\[?\\s*(\\d{1,6})\\s*\\]?\\s*:\\s*\\(Topology\\) Numa Node:\\s*(-?\\d{1,6})\\s*");

    private RocmSmiTopoParser() {
    }

    /** The text form: the "Link Type between two GPUs" block. */
    public static AmdTopology parseText(String text, String file) {
        List<Diagnostic> notes = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        Map<String, Map<String, AmdTopology.Cell>> rows = LINK_TYPES.read(lines, file, notes);
        if (rows == null) {
            return AmdTopology.none(notes);
        }
        Map<String, Integer> numa = new HashMap<>();
        for (String line : lines) {
            Matcher m = NUMA.matcher(line.strip());
            if (m.matches()) {
                numa.putIfAbsent(String.valueOf(Integer.parseInt(m.group(1))), Integer.parseInt(m.group(2)));
            }
        }
        return new AmdTopology(false, rows, numa, notes);
    }

    /**
     * The JSON form's pairs; an empty topology, without a diagnostic, where the object has none (a {@code rocm-smi
     * --json} run without {@code --showtopo}, as gpu-detect's own) or the text is not JSON.
     */
    public static AmdTopology parseJson(String text, String file) {
        JsonOutput json = JsonOutput.parse(text, PROBE, file, "the object 'rocm-smi --showtopo --json' prints");
        if (json.error() != null) {
            // rocm-smi.json's own probe reports a file that is not JSON; saying it twice helps no one.
            return AmdTopology.none(List.of());
        }
        JsonNode root = json.root();
        JsonNode system = root.path("system");
        // Index -> (peer index -> type), both ways: rocm-smi prints each pair once.
        Map<Integer, Map<Integer, AmdTopology.Cell>> pairs = new TreeMap<>();
        List<Diagnostic> notes = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = system.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            Matcher m = PAIR.matcher(e.getKey());
            if (!m.matches()) {
                continue;
            }
            int a = Integer.parseInt(m.group(1));
            int b = Integer.parseInt(m.group(2));
            AmdTopology.Cell type = AmdTopology.Cell.of(e.getValue().asText(""));
            if (type == null) {
                notes.add(Diagnostic.warning(PROBE, file, null, "'" + e.getKey() + "' is '" + e.getValue().asText("")
                        + "', expected XGMI, PCIE or N/A; the pair was not read"));
                type = AmdTopology.Cell.UNKNOWN;
            }
            pairs.computeIfAbsent(a, k -> new TreeMap<>()).put(b, type);
            pairs.computeIfAbsent(b, k -> new TreeMap<>()).put(a, type);
        }
        if (pairs.isEmpty()) {
            return AmdTopology.none(notes);
        }
        Map<Integer, String> buses = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            Matcher card = CARD.matcher(e.getKey());
            Optional<PciAddress> bus = PciAddress.parse(RocmSmiJsonParser.field(e.getValue(), "PCI Bus").orElse(null));
            if (card.matches() && bus.isPresent()) {
                buses.put(Integer.parseInt(card.group(1)), bus.get().toString());
            }
        }
        boolean byAddress = buses.keySet().containsAll(pairs.keySet());
        Map<String, Map<String, AmdTopology.Cell>> rows = new LinkedHashMap<>();
        for (Map.Entry<Integer, Map<Integer, AmdTopology.Cell>> row : pairs.entrySet()) {
            Map<String, AmdTopology.Cell> peers = new LinkedHashMap<>();
            row.getValue().forEach((peer, type) -> peers.put(byAddress ? buses.get(peer) : String.valueOf(peer), type));
            rows.put(byAddress ? buses.get(row.getKey()) : String.valueOf(row.getKey()), peers);
        }
        return new AmdTopology(byAddress, rows, notes);
    }
}
