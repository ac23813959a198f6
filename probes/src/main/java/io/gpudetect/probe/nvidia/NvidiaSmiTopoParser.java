package io.gpudetect.probe.nvidia;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.GpuLinks;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code nvidia-smi topo -m}: the matrix of how each GPU reaches every other GPU and NIC ({@code X} itself,
 * {@code NV#} a bonded set of # NVLinks, {@code PIX}, {@code PXB}, {@code PHB}, {@code NODE}, {@code SYS} or, from
 * old drivers, {@code SOC} over PCIe), then the CPU and NUMA affinity columns, the NIC rows, the legend and its
 * {@code NIC0: mlx5_0} lines. Only the GPU-to-GPU cells are read: each GPU's NVLinks, by the peer's index.
 *
 * <p>The matrix names GPUs by index, never by PCI address: {@link NvidiaTopoLinks} places them on the merged GPUs
 * (nvidia-smi numbers GPUs in PCI bus order) and names each peer by its address.
 *
 * <p>On NVSwitch systems every pair shows the links each GPU has to the switches ({@code NV18} on eight H100, also
 * {@code NV12} on A100, {@code NV6} on a DGX-2's V100): a GPU whose cells add up to more links than any NVIDIA GPU has
 * ({@value #MAX_LINKS_PER_GPU}) reaches its peers through switches, and is given one group to the NVSwitch.
 * A one-GPU matrix says nothing of links (its GPU may have switch links this host does not show).
 */
public final class NvidiaSmiTopoParser {

    public static final String PROBE = "nvidia-smi-topo";
    /** The most NVLinks one NVIDIA GPU has (H100, B200: 18). */
    static final int MAX_LINKS_PER_GPU = 18;

    private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;]*m");
    private static final Pattern GPU_LABEL = Pattern.compile("GPU(\\d{1,9})");
    private static final Pattern NVLINK = Pattern.compile("NV(\\d{1,9})");
    private static final List<String> PCIE_CELLS = List.of("PIX", "PXB", "PHB", "NODE", "SYS", "SOC");

    private NvidiaSmiTopoParser() {
    }

    /**
     * The matrix read: for each GPU row, by index and in the order printed, the NVLink count to each peer GPU that
     * has any (an empty map for a GPU reached over PCIe only).
     */
    public record Matrix(Map<Integer, Map<Integer, Integer>> nvlinks, List<Diagnostic> diagnostics) {

        /**
         * The links of the GPU at {@code index}, its peers named by {@code addressOf} (index to PCI address): one
         * group to each peer or one to the switches; null where the matrix has no row for it or one GPU only.
         */
        public GpuLinks links(int index, java.util.function.IntFunction<String> addressOf) {
            return links(index, addressOf, false);
        }

        /**
         * As {@link #links(int, java.util.function.IntFunction)}, with {@code throughSwitch} saying the caller knows
         * the GPU's links lead to NVSwitch even where its cells add up to no more than one GPU's links (a VM given two
         * GPUs of an NVSwitch board).
         */
        public GpuLinks links(int index, java.util.function.IntFunction<String> addressOf, boolean throughSwitch) {
            Map<Integer, Integer> peers = nvlinks.get(index);
            if (peers == null || nvlinks.size() < 2) {
                return null;
            }
            long total = 0;
            int most = 0;
            for (int n : peers.values()) {
                total += n;
                most = Math.max(most, n);
            }
            List<GpuLinks.Link> links = new ArrayList<>();
            if (total > MAX_LINKS_PER_GPU || (throughSwitch && most > 0)) {
                links.add(new GpuLinks.Link(GpuLinks.Kind.NVLINK, true, null, GpuLinks.Remote.NVSWITCH, null, most));
            } else {
                for (Map.Entry<Integer, Integer> p : peers.entrySet()) {
                    links.add(new GpuLinks.Link(GpuLinks.Kind.NVLINK, true, null, GpuLinks.Remote.GPU,
                            addressOf.apply(p.getKey()), p.getValue()));
                }
            }
            return new GpuLinks(links, null);
        }
    }

    public static Matrix parse(String text, String file) {
        List<Diagnostic> notes = new ArrayList<>();
        List<String> lines = text.lines().map(l -> ANSI.matcher(l).replaceAll("")).toList();
        List<String> columns = null;
        // Row GPU index -> NVLink count per peer GPU index, in the order the rows come.
        Map<Integer, Map<Integer, Integer>> rows = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("Legend:")) {
                break;
            }
            String[] tokens = line.split("\\s+");
            if (columns == null) {
                // The header: GPU0 first, then the other devices; a data row has a cell (X for itself) second.
                if (tokens[0].equals("GPU0") && (tokens.length == 1 || !tokens[1].equals("X"))) {
                    columns = deviceColumns(tokens);
                }
                continue;
            }
            Matcher label = GPU_LABEL.matcher(tokens[0]);
            if (!label.matches()) {
                // A NIC row (NIC0, or mlx5_0 from drivers before the NIC legend), which says nothing of GPU links.
                continue;
            }
            if (tokens.length - 1 < columns.size()) {
                notes.add(Diagnostic.warning(PROBE, file, i + 1, "expected " + columns.size() + " cells ("
                        + String.join(" ", columns) + ") after " + tokens[0] + ", found " + (tokens.length - 1)
                        + "; the row was not read"));
                continue;
            }
            int self = Integer.parseInt(label.group(1));
            Map<Integer, Integer> peers = new LinkedHashMap<>();
            boolean readable = true;
            for (int c = 0; c < columns.size(); c++) {
                Matcher column = GPU_LABEL.matcher(columns.get(c));
                String cell = tokens[c + 1];
                Matcher nv = NVLINK.matcher(cell);
                if (!column.matches()) {
                    continue;
                }
                int peer = Integer.parseInt(column.group(1));
                if (cell.equals("X")) {
                    continue;
                }
                if (nv.matches()) {
                    peers.put(peer, Integer.parseInt(nv.group(1)));
                } else if (!PCIE_CELLS.contains(cell)) {
                    notes.add(Diagnostic.warning(PROBE, file, i + 1, "GPU" + self + " to " + columns.get(c) + " reads '"
                            + cell + "', expected X, NV<n>, PIX, PXB, PHB, NODE, SYS or SOC; the row was not read"));
                    readable = false;
                    break;
                }
            }
            if (readable && rows.putIfAbsent(self, peers) != null) {
                notes.add(Diagnostic.warning(PROBE, file, i + 1, "GPU" + self + " has a second row; the first was kept"));
            }
        }
        if (columns == null) {
            notes.add(Diagnostic.warning(PROBE, file, 1, "no 'GPU0 ...' header row found; expected the output of "
                    + "'nvidia-smi topo -m'"));
            return new Matrix(Map.of(), notes);
        }
        return new Matrix(rows, notes);
    }

    /** The header's device columns (GPU0.., NIC0.. or mlx5_0..), without the affinity columns after them. */
    private static List<String> deviceColumns(String[] header) {
        List<String> columns = new ArrayList<>();
        for (String t : header) {
            if (t.equals("CPU") || t.equals("NUMA") || t.equals("GPU")) {
                break;
            }
            columns.add(t);
        }
        return columns;
    }
}
