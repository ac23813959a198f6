package io.gpudetect.probe.nvidia;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuLinks;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.PastedText;
import io.gpudetect.source.Source;
import io.gpudetect.source.ToolCommand;
import io.gpudetect.source.ToolResult;
import java.util.ArrayList;
import java.util.List;

/**
 * The GPU links' fallback: where NVML gave no links for a node's NVIDIA GPUs (no NVML, an old driver, a bundle of
 * pasted output), {@code nvidia-smi topo -m}'s NVLink cells give them. Read after the merge, once the GPUs' PCI
 * addresses are known: the matrix names GPUs by index, and nvidia-smi numbers them in PCI bus order. Consulted only
 * where two or more NVIDIA GPUs, all with an address, all lack links (one GPU's matrix has no GPU cells), and on a
 * live host only where NVML described none of them (nvidia-smi was the fallback): a live host where NVML answered
 * never runs it, and a bundle without the file says nothing of it.
 */
public final class NvidiaTopoLinks {

    /** {@code nvidia-smi topo -m}; bundles hold it as {@code nvidia-smi-topo.txt}. */
    public static final ToolCommand COMMAND = ToolCommand.of("nvidia-smi-topo.txt", "nvidia-smi", "topo", "-m");

    private NvidiaTopoLinks() {
    }

    /** {@code gpus} with the links the matrix gives filled in where none were read; the list as it was otherwise. */
    public static List<Gpu> fill(Source source, List<Gpu> gpus, List<Diagnostic> diagnostics) {
        List<Gpu> nvidia = new ArrayList<>();
        boolean nvmlAnswered = false;
        for (Gpu g : gpus) {
            if (g.vendor() == Vendor.NVIDIA && !g.integrated()) {
                if (g.pciAddress() == null || g.links() != null) {
                    return gpus;
                }
                nvidia.add(g);
                nvmlAnswered |= g.sources().containsValue(io.gpudetect.probe.nvml.NvmlProbe.PROBE);
            }
        }
        // A live NVML that answered without links (a GPU fallen off the bus, a library without the calls) is not
        // second-guessed with a process; a bundle's file costs nothing, and an nvml.json recorded before links were
        // read has none.
        if (nvidia.size() < 2 || nvmlAnswered && !source.isRecorded()) {
            return gpus;
        }
        String file = COMMAND.bundleFile();
        String what = source.isRecorded() ? file : "'" + COMMAND.commandLine() + "'";
        ToolResult result = source.run(COMMAND);
        String text;
        if (result instanceof ToolResult.Completed done && done.exitCode() == 0 && !done.stdout().isBlank()) {
            text = PastedText.clean(done.stdout()).text();
        } else {
            if (!(result instanceof ToolResult.Absent)) {
                diagnostics.add(Diagnostic.warning(NvidiaSmiTopoParser.PROBE, file, null, what + " gave no matrix ("
                        + why(result) + "): the GPUs' links are not known"));
            }
            return gpus;
        }
        NvidiaSmiTopoParser.Matrix matrix = NvidiaSmiTopoParser.parse(text, file);
        diagnostics.addAll(matrix.diagnostics());
        if (matrix.nvlinks().isEmpty()) {
            return gpus;
        }
        nvidia.sort((a, b) -> PciAddress.compareNullsLast(a.pciAddress(), b.pciAddress()));
        if (matrix.nvlinks().size() != nvidia.size() || !indexesFromZero(matrix, nvidia.size())) {
            diagnostics.add(Diagnostic.warning(NvidiaSmiTopoParser.PROBE, file, null, "the matrix has rows for GPUs "
                    + matrix.nvlinks().keySet() + " and the node " + nvidia.size() + " NVIDIA GPUs: which row is which "
                    + "GPU is not known, so its links were not used"));
            return gpus;
        }
        List<Gpu> filled = new ArrayList<>(gpus.size());
        for (Gpu g : gpus) {
            int index = nvidia.indexOf(g);
            GpuLinks links = index < 0 || g.links() != null ? null
                    : matrix.links(index, i -> nvidia.get(i).pciAddress().toString());
            filled.add(links == null ? g : g.toBuilder(NvidiaSmiTopoParser.PROBE).links(links).build());
        }
        return filled;
    }

    private static boolean indexesFromZero(NvidiaSmiTopoParser.Matrix matrix, int n) {
        for (int i = 0; i < n; i++) {
            if (!matrix.nvlinks().containsKey(i)) {
                return false;
            }
        }
        return true;
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
