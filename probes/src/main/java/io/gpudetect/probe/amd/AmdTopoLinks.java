package io.gpudetect.probe.amd;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuLinks;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.FieldLimits;
import io.gpudetect.probe.PastedText;
import io.gpudetect.probe.Probes;
import io.gpudetect.probe.pci.SysfsPciProbe;
import io.gpudetect.source.Source;
import io.gpudetect.source.ToolCommand;
import io.gpudetect.source.ToolResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * AMD GPUs' XGMI links where sysfs gave no hive (a bundle of pasted tool output, a container without the cards'
 * device folders): {@code amd-smi topology} or {@code rocm-smi --showtopo} say which pairs are joined over XGMI.
 * Read after the merge, once the GPUs' PCI addresses are known, and only where two or more AMD GPUs, all with an
 * address, all lack links; on a live host only where sysfs described none of them (else no hive folder means no
 * hive). The first form that gives a table is used:
 * <ol>
 *   <li>{@code amd-smi topology --json} ({@code amd-smi-topology.json}; also run on a live host),</li>
 *   <li>{@code amd-smi topology} as pasted ({@code amd-smi-topology.txt}, bundles only),</li>
 *   <li>{@code rocm-smi --showtopo} ({@code rocm-smi-showtopo.txt}; also run on a live host without amd-smi),</li>
 *   <li>a bundle's {@code rocm-smi.json} recorded with {@code --showtopo} among its flags (monitoring agents run it
 *       so), whose {@code system} object holds the link type of each pair,</li>
 *   <li>a bundle's {@code amd-smi.txt} or {@code rocm-smi.txt} where the table was pasted with the other output.</li>
 * </ol>
 * Tables by PCI address are placed by address; tables by GPU index on the node's AMD GPUs in PCI bus order (the
 * order rocm-smi and amd-smi number GPUs in since ROCm sorts its devices by BDF), and only when they have a row for
 * each and, where rocm-smi printed each GPU's NUMA node, it is the node's GPU's (else a warning, and no links: older
 * releases numbered GPUs by card, not by bus).
 */
public final class AmdTopoLinks {

    /** {@code amd-smi topology --json}; bundles hold it as {@code amd-smi-topology.json}. */
    public static final ToolCommand AMD_SMI_TOPOLOGY =
            ToolCommand.of("amd-smi-topology.json", "amd-smi", "topology", "--json");
    /** The tables people paste; a live host runs the JSON form instead. */
    public static final ToolCommand AMD_SMI_TOPOLOGY_TEXT = ToolCommand.bundleOnly("amd-smi-topology.txt");
    /** {@code rocm-smi --showtopo}; bundles hold it as {@code rocm-smi-showtopo.txt}. */
    public static final ToolCommand ROCM_SMI_SHOWTOPO = ToolCommand.of("rocm-smi-showtopo.txt", "rocm-smi", "--showtopo");

    /**
     * One form of the table: where it comes from, who parses it, whether a live host runs it, and for output pasted
     * with other output the marker it is read from (silent where the marker is not there), in the order tried.
     * An enum whose constants call their parser rather than a list of method references, and loaded only where two
     * AMD GPUs lack links: the list made at the class's first use linked seven lambdas and loaded both parsers at
     * every detection, NVIDIA's and CSV replays included (docs/performance.md, row "AMD topology forms as enum
     * constants").
     */
    private enum Form {
        AMD_SMI_JSON(AMD_SMI_TOPOLOGY, AmdSmiTopologyParser.PROBE, false, null) {
            @Override
            AmdTopology parseTable(String text, String file) {
                return AmdSmiTopologyParser.parseJson(text, file);
            }
        },
        AMD_SMI_TEXT(AMD_SMI_TOPOLOGY_TEXT, AmdSmiTopologyParser.PROBE, true, null) {
            @Override
            AmdTopology parseTable(String text, String file) {
                return AmdSmiTopologyParser.parseText(text, file);
            }
        },
        ROCM_SMI_TEXT(ROCM_SMI_SHOWTOPO, RocmSmiTopoParser.PROBE, false, null) {
            @Override
            AmdTopology parseTable(String text, String file) {
                return RocmSmiTopoParser.parseText(text, file);
            }
        },
        // On a live host rocm-smi.json is gpu-detect's own run, without --showtopo: running it again says nothing.
        ROCM_SMI_JSON(Probes.ROCM_SMI_JSON, RocmSmiTopoParser.PROBE, true, null) {
            @Override
            AmdTopology parseTable(String text, String file) {
                return RocmSmiTopoParser.parseJson(text, file);
            }
        },
        // Several outputs pasted into one file: read where the table is among them, silent where it is not.
        AMD_SMI_PASTED(AmdSmiTextParser.COMMAND, AmdSmiTopologyParser.PROBE, true, "LINK TYPE TABLE:") {
            @Override
            AmdTopology parseTable(String text, String file) {
                return AmdSmiTopologyParser.parseText(text, file);
            }
        },
        ROCM_SMI_PASTED(Probes.ROCM_SMI_TABLE, RocmSmiTopoParser.PROBE, true, "Link Type between two GPUs") {
            @Override
            AmdTopology parseTable(String text, String file) {
                return RocmSmiTopoParser.parseText(text, file);
            }
        };

        private final ToolCommand command;
        private final String probe;
        private final boolean recordedOnly;
        private final String marker;

        Form(ToolCommand command, String probe, boolean recordedOnly, String marker) {
            this.command = command;
            this.probe = probe;
            this.recordedOnly = recordedOnly;
            this.marker = marker;
        }

        ToolCommand command() {
            return command;
        }

        String probe() {
            return probe;
        }

        boolean recordedOnly() {
            return recordedOnly;
        }

        abstract AmdTopology parseTable(String text, String file);

        /** The table; for pasted output without the marker, an empty table with nothing to say. */
        AmdTopology parse(String text, String file) {
            if (marker != null && !text.toLowerCase(Locale.ROOT).contains(marker.toLowerCase(Locale.ROOT))) {
                return AmdTopology.none(List.of());
            }
            return parseTable(text, file);
        }
    }

    private AmdTopoLinks() {
    }

    /** {@code gpus} with the links the table gives filled in where none were read; the list as it was otherwise. */
    public static List<Gpu> fill(Source source, List<Gpu> gpus, List<Diagnostic> diagnostics) {
        List<Diagnostic> notes = new ArrayList<>();
        List<Gpu> filled = links(source, gpus, notes);
        // The notes quote cells, rows and JSON values from the tools' text: bounded as a probe's diagnostics are.
        for (Diagnostic d : notes) {
            diagnostics.add(FieldLimits.bound(d));
        }
        return filled;
    }

    private static List<Gpu> links(Source source, List<Gpu> gpus, List<Diagnostic> diagnostics) {
        List<Gpu> amd = new ArrayList<>();
        boolean sysfsSaw = false;
        for (Gpu g : gpus) {
            if (g.vendor() == Vendor.AMD && !g.integrated()) {
                if (g.pciAddress() == null || g.links() != null) {
                    // sysfs read the hive (or said there is none): the tools would say the same, at a process's cost.
                    return gpus;
                }
                amd.add(g);
                sysfsSaw |= g.sources().containsValue(SysfsPciProbe.NAME);
            }
        }
        // On a live host, amdgpu makes xgmi_hive_info for every card of a hive: a card whose device folder sysfs read
        // without one is in none, and amd-smi would say PCIE at the cost of a process. Only a host whose sysfs did
        // not show the cards (a container given the tools and /dev/kfd but not the device folders) runs them.
        if (amd.size() < 2 || sysfsSaw && !source.isRecorded()) {
            return gpus;
        }
        amd.sort((a, b) -> PciAddress.compareNullsLast(a.pciAddress(), b.pciAddress()));
        for (Form form : Form.values()) {
            if (form.recordedOnly() && !source.isRecorded()) {
                continue;
            }
            AmdTopology table = read(source, form, diagnostics);
            if (table == null || table.rows().isEmpty()) {
                continue;
            }
            return place(table, form, gpus, amd, diagnostics);
        }
        return gpus;
    }

    /** The form's table, or null where the source has none (silently where the tool or file is absent). */
    private static AmdTopology read(Source source, Form form, List<Diagnostic> diagnostics) {
        ToolCommand command = form.command();
        String file = command.bundleFile();
        ToolResult result = source.run(command);
        if (result instanceof ToolResult.Completed done && done.exitCode() == 0 && !done.stdout().isBlank()) {
            AmdTopology table = form.parse(PastedText.clean(done.stdout()).text(), file);
            diagnostics.addAll(table.diagnostics());
            return table;
        }
        // A bundle's file that could not be read was reported by the probe that reads it (rocm-smi.json) or by the bundle.
        if (!(result instanceof ToolResult.Absent) && !form.recordedOnly()) {
            String what = source.isRecorded() ? file : "'" + command.commandLine() + "'";
            diagnostics.add(Diagnostic.warning(form.probe(), file, null, what + " gave no topology (" + why(result)
                    + "): the AMD GPUs' links were not read from it"));
        }
        return null;
    }

    private static List<Gpu> place(AmdTopology table, Form form, List<Gpu> gpus, List<Gpu> amd,
                                   List<Diagnostic> diagnostics) {
        // The table's key for each AMD GPU: its address, or its index in bus order.
        Map<PciAddress, String> keyOf = new HashMap<>();
        Map<String, String> addressOfKey = new HashMap<>();
        for (int i = 0; i < amd.size(); i++) {
            String address = amd.get(i).pciAddress().toString();
            String key = table.byAddress() ? address : String.valueOf(i);
            keyOf.put(amd.get(i).pciAddress(), key);
            addressOfKey.put(key, address);
        }
        if (!table.rows().keySet().equals(addressOfKey.keySet())) {
            diagnostics.add(Diagnostic.warning(form.probe(), form.command().bundleFile(), null, "the table has rows for "
                    + (table.byAddress() ? "the GPUs at " : "GPUs ") + table.rows().keySet() + " and the node "
                    + amd.size() + " AMD GPUs" + (table.byAddress() ? " at " + addressOfKey.keySet() : "")
                    + ": which row is which GPU is not known, so its links were not used"));
            return gpus;
        }
        if (!table.byAddress()) {
            for (int i = 0; i < amd.size(); i++) {
                Integer printed = table.numaNodes().get(String.valueOf(i));
                Integer own = amd.get(i).numaNode();
                if (printed != null && printed >= 0 && own != null && !printed.equals(own)) {
                    diagnostics.add(Diagnostic.warning(form.probe(), form.command().bundleFile(), null, "the table's GPU"
                            + i + " is on NUMA node " + printed + ", the node's AMD GPU " + i + " by bus address ("
                            + amd.get(i).pciAddress() + ") on " + own + ": the tool did not number the GPUs in bus "
                            + "order (a release before ROCm sorted them), so which row is which GPU is not known and "
                            + "its links were not used"));
                    return gpus;
                }
            }
        }
        List<Gpu> filled = new ArrayList<>(gpus.size());
        for (Gpu g : gpus) {
            String key = g.vendor() == Vendor.AMD && !g.integrated() ? keyOf.get(g.pciAddress()) : null;
            GpuLinks links = key == null ? null : links(table.rows().get(key), addressOfKey);
            filled.add(links == null ? g : g.toBuilder(form.probe()).links(links).build());
        }
        return filled;
    }

    /**
     * One XGMI link, up, to each peer the row joins over XGMI ({@code count} 1: the tables say neither how many links
     * join two GPUs nor their state); none where every peer is PCIe; null where a cell could not be told.
     */
    private static GpuLinks links(Map<String, AmdTopology.Cell> row, Map<String, String> addressOfKey) {
        List<GpuLinks.Link> links = new ArrayList<>();
        for (Map.Entry<String, AmdTopology.Cell> peer : row.entrySet()) {
            String address = addressOfKey.get(peer.getKey());
            if (peer.getValue() == AmdTopology.Cell.UNKNOWN) {
                return null;
            }
            if (peer.getValue() == AmdTopology.Cell.XGMI && address != null) {
                links.add(new GpuLinks.Link(GpuLinks.Kind.XGMI, true, null, GpuLinks.Remote.GPU, address, 1));
            }
        }
        return new GpuLinks(links, null);
    }

    private static String why(ToolResult result) {
        if (result instanceof ToolResult.Completed done) {
            return done.exitCode() != 0 ? "exit status " + done.exitCode() : "empty output";
        }
        if (result instanceof ToolResult.TimedOut t) {
            return "did not finish within " + t.limit().toMillis() + " ms";
        }
        return result instanceof ToolResult.Failed f ? f.reason() : "not run";
    }
}
