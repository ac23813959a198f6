package io.gpudetect.probe.nvidia;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuInterface;
import io.gpudetect.model.GpuLinks;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.FieldLimits;
import io.gpudetect.probe.PastedText;
import io.gpudetect.source.Source;
import io.gpudetect.source.ToolCommand;
import io.gpudetect.source.ToolResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The GPU links' fallback: where NVML gave no links for a node's NVIDIA GPUs (no NVML, an old driver, a bundle of
 * pasted output), {@code nvidia-smi topo -m}'s NVLink cells give them. Read after the merge, once the GPUs' PCI
 * addresses are known: the matrix names GPUs by index, and nvidia-smi numbers them in PCI bus order. Consulted only
 * where two or more NVIDIA GPUs, all with an address, all lack links (one GPU's matrix has no GPU cells), and on a
 * live host only where NVML described none of them (nvidia-smi was the fallback): a live host where NVML answered
 * never runs it, and a bundle without the file says nothing of it.
 *
 * <p>Where the matrix shows an NVLink, {@code nvidia-smi nvlink -s} ({@link NvidiaSmiNvlinkParser}) adds what the matrix
 * lacks: the links that are down, and the NVLink generation where the speed per link tells it. It names no far end,
 * so it is read only beside the matrix.
 *
 * <p>A matrix of two GPUs joined by {@code NV#} is read as a bridge or board link, as NVSwitch, or not at all: a VM
 * given two GPUs of an 8-GPU NVSwitch board shows all of each GPU's links ({@code NV18} on H100) between the two, as
 * an H200 NVL pair on a 2-way bridge (18 links) does. See {@link #pairThroughSwitch}.
 */
public final class NvidiaTopoLinks {

    /** {@code nvidia-smi topo -m}; bundles hold it as {@code nvidia-smi-topo.txt}. */
    public static final ToolCommand COMMAND = ToolCommand.of("nvidia-smi-topo.txt", "nvidia-smi", "topo", "-m");
    /** {@code nvidia-smi nvlink -s}; bundles hold it as {@code nvidia-smi-nvlink.txt}. */
    public static final ToolCommand NVLINK_COMMAND = ToolCommand.of("nvidia-smi-nvlink.txt", "nvidia-smi", "nvlink", "-s");

    /**
     * The fewest links a GPU on NVSwitch has (a DGX-2's V100: 6; A100 12, H100 and B200 18): fewer between two GPUs
     * can only be links straight between them.
     */
    static final int FEWEST_SWITCH_LINKS = 6;
    /**
     * The most links a board without NVSwitch puts between two SXM modules: 6 on the 4-GPU HGX H100 (each GPU's 18
     * links split three ways; 4 on the 4-GPU HGX A100, 1 or 2 on a DGX-1).
     */
    static final int MOST_BOARD_LINKS_BETWEEN_MODULES = 6;

    private NvidiaTopoLinks() {
    }

    /** {@code gpus} with the links the matrix gives filled in where none were read; the list as it was otherwise. */
    public static List<Gpu> fill(Source source, List<Gpu> gpus, List<Diagnostic> diagnostics) {
        List<Diagnostic> notes = new ArrayList<>();
        List<Gpu> filled = read(source, gpus, notes);
        // The notes quote lines, UUIDs and GPU indexes from the tools' text: bounded as a probe's diagnostics are.
        for (Diagnostic d : notes) {
            diagnostics.add(FieldLimits.bound(d));
        }
        return filled;
    }

    private static List<Gpu> read(Source source, List<Gpu> gpus, List<Diagnostic> diagnostics) {
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
        LinkStates states = new LinkStates(source, nvidia, diagnostics);
        Boolean pairSwitched = null;
        if (nvidia.size() == 2) {
            pairSwitched = pairThroughSwitch(matrix, nvidia, states, file, diagnostics);
            if (pairSwitched == null) {
                return gpus;
            }
        }
        boolean throughSwitch = Boolean.TRUE.equals(pairSwitched);
        List<GpuLinks> read = new ArrayList<>();
        boolean anyLink = false;
        for (int i = 0; i < nvidia.size(); i++) {
            GpuLinks links = matrix.links(i, p -> nvidia.get(p).pciAddress().toString(), throughSwitch);
            read.add(links);
            anyLink |= links != null && !links.links().isEmpty();
        }
        List<NvidiaSmiNvlinkParser.GpuStatus> status = anyLink ? states.get() : null;
        if (status != null) {
            boolean anyUp = false;
            for (NvidiaSmiNvlinkParser.GpuStatus st : status) {
                anyUp |= st.up() > 0;
            }
            List<GpuLinks> with = new ArrayList<>();
            for (int i = 0; i < nvidia.size(); i++) {
                with.add(withStatus(read.get(i), status.get(i), nvidia.get(i), anyUp, diagnostics));
            }
            read = with;
        }
        List<Gpu> filled = new ArrayList<>(gpus.size());
        for (Gpu g : gpus) {
            int index = nvidia.indexOf(g);
            GpuLinks links = index < 0 || g.links() != null ? null : read.get(index);
            filled.add(links == null ? g : g.toBuilder(NvidiaSmiTopoParser.PROBE).links(links).build());
        }
        return filled;
    }

    /**
     * How two GPUs that the matrix joins by {@code NV#} are joined: false straight (a bridge, a board), true through
     * NVSwitch, null where that is not known (said in a note; their links stay unread). Fewer than
     * {@value #FEWEST_SWITCH_LINKS} links are straight, whatever the form; so are links between PCIe cards (the widest
     * bridge, H200 NVL's 2-way one, carries all 18). Where {@code nvidia-smi nvlink -s} says both GPUs have more links
     * up than the matrix places between them, the rest lead to GPUs not on this host: a piece of a board without
     * NVSwitch (on NVSwitch the matrix shows every link up between the two). SXM modules are on NVSwitch where more
     * than {@value #MOST_BOARD_LINKS_BETWEEN_MODULES} links join them, or where the link states say those are all the
     * links each has up: a VM given 2 GPUs of an 8-GPU board (Fabric Manager's 2-GPU partitions) shows {@code NV18} on
     * H100, {@code NV12} on A100, {@code NV6} on a DGX-2's V100, while a board without NVSwitch splits each module's
     * links among three or more peers. Anything else (a form no table states, mixed forms, SXM modules with 6 and no
     * link states) is not known.
     */
    private static Boolean pairThroughSwitch(NvidiaSmiTopoParser.Matrix matrix, List<Gpu> pair, LinkStates states,
                                             String file, List<Diagnostic> diagnostics) {
        int links = 0;
        for (Map<Integer, Integer> peers : matrix.nvlinks().values()) {
            for (int n : peers.values()) {
                links = Math.max(links, n);
            }
        }
        if (links < FEWEST_SWITCH_LINKS) {
            return false;
        }
        GpuInterface a = pair.get(0).interfaceType();
        GpuInterface b = pair.get(1).interfaceType();
        if (a == GpuInterface.PCIE && b == GpuInterface.PCIE) {
            return false;
        }
        List<NvidiaSmiNvlinkParser.GpuStatus> status = states.get();
        int fewestUp = Integer.MAX_VALUE;
        int mostUp = 0;
        for (int i = 0; status != null && i < 2; i++) {
            int up = status.get(i).state() == NvidiaSmiNvlinkParser.State.LINKS ? status.get(i).up() : 0;
            fewestUp = Math.min(fewestUp, up);
            mostUp = Math.max(mostUp, up);
        }
        if (status != null && fewestUp > links) {
            return false;
        }
        boolean modules = a == GpuInterface.SXM && b == GpuInterface.SXM;
        if (modules && (links > MOST_BOARD_LINKS_BETWEEN_MODULES || (status != null && fewestUp == links && mostUp == links))) {
            return true;
        }
        diagnostics.add(Diagnostic.info(NvidiaSmiTopoParser.PROBE, file, "the 2 GPUs are joined by NV" + links
                + ", which is either links straight between them or each GPU's links to NVSwitch (a VM given 2 GPUs of a "
                + "larger board), and their form (" + (a == null ? "not known" : a.id()) + ", "
                + (b == null ? "not known" : b.id()) + ")" + (status == null ? "" : " and link states") + " do not tell "
                + "which: their links are not known"));
        return null;
    }

    /**
     * {@code nvidia-smi nvlink -s}, run or read once when first asked, as one state per NVIDIA GPU in bus order; null
     * where it is not there, failed, or does not fit the GPUs (said in a diagnostic).
     */
    private static final class LinkStates {
        private final Source source;
        private final List<Gpu> nvidia;
        private final List<Diagnostic> diagnostics;
        private boolean asked;
        private List<NvidiaSmiNvlinkParser.GpuStatus> states;

        LinkStates(Source source, List<Gpu> nvidia, List<Diagnostic> diagnostics) {
            this.source = source;
            this.nvidia = nvidia;
            this.diagnostics = diagnostics;
        }

        List<NvidiaSmiNvlinkParser.GpuStatus> get() {
            if (!asked) {
                asked = true;
                states = fetch(source, nvidia, diagnostics);
            }
            return states;
        }

        private static List<NvidiaSmiNvlinkParser.GpuStatus> fetch(Source source, List<Gpu> nvidia,
                                                                   List<Diagnostic> diagnostics) {
            String file = NVLINK_COMMAND.bundleFile();
            ToolResult result = source.run(NVLINK_COMMAND);
            if (!(result instanceof ToolResult.Completed done) || done.exitCode() != 0 || done.stdout().isBlank()) {
                if (!(result instanceof ToolResult.Absent)) {
                    String what = source.isRecorded() ? file : "'" + NVLINK_COMMAND.commandLine() + "'";
                    diagnostics.add(Diagnostic.warning(NvidiaSmiNvlinkParser.PROBE, file, null, what
                            + " gave no link states (" + why(result) + "): links down and the NVLink version are not known"));
                }
                return null;
            }
            NvidiaSmiNvlinkParser.Status status = NvidiaSmiNvlinkParser.parse(PastedText.clean(done.stdout()).text(), file);
            diagnostics.addAll(status.diagnostics());
            if (status.gpus().isEmpty()) {
                return null;
            }
            List<NvidiaSmiNvlinkParser.GpuStatus> out = new ArrayList<>();
            for (int i = 0; i < nvidia.size(); i++) {
                NvidiaSmiNvlinkParser.GpuStatus s = status.gpus().get(i);
                String uuid = nvidia.get(i).uuid();
                if (status.gpus().size() != nvidia.size() || s == null
                        || (s.uuid() != null && uuid != null && !zeroUuid(s.uuid()) && !s.uuid().equalsIgnoreCase(uuid))) {
                    diagnostics.add(Diagnostic.warning(NvidiaSmiNvlinkParser.PROBE, file, null, "the link states are for "
                            + "GPUs " + status.gpus().keySet() + (s == null || s.uuid() == null || uuid == null ? ""
                            : " (GPU " + i + " is " + s.uuid() + ", the node's " + uuid + ")") + " and the node has "
                            + nvidia.size() + " NVIDIA GPUs: which is which is not known, so they were not used"));
                    return null;
                }
                out.add(s);
            }
            return out;
        }
    }

    /**
     * A GPU's links from the matrix with what its link states add: the generation of the links that are up, where the
     * speed tells it, the links up that the matrix places on no GPU of this node, and a group of the links that are
     * down.
     */
    private static GpuLinks withStatus(GpuLinks topo, NvidiaSmiNvlinkParser.GpuStatus s, Gpu gpu, boolean othersUp,
                                       List<Diagnostic> diagnostics) {
        String file = NVLINK_COMMAND.bundleFile();
        String label = "GPU " + s.index() + " (" + gpu.pciAddress() + ")";
        int matrixUp = topo == null ? 0 : topo.linksUp();
        switch (s.state()) {
            case NOTHING_SAID:
                return topo;
            case NONE:
            case ALL_INACTIVE:
                if (matrixUp > 0) {
                    diagnostics.add(Diagnostic.warning(NvidiaSmiNvlinkParser.PROBE, file, null, label + ": the matrix "
                            + "shows " + matrixUp + " NVLinks up and 'nvidia-smi nvlink -s' " + (s.state()
                            == NvidiaSmiNvlinkParser.State.NONE ? "no NVLink" : "all its links inactive")
                            + " (taken at different times?); the matrix's links were kept"));
                } else if (s.state() == NvidiaSmiNvlinkParser.State.ALL_INACTIVE) {
                    // How many links the GPU has is not printed, so no group of down links can be written.
                    diagnostics.add(new Diagnostic(othersUp ? Diagnostic.Severity.WARNING : Diagnostic.Severity.INFO,
                            NvidiaSmiNvlinkParser.PROBE, file, null, label + ": all its NVLinks are inactive"
                            + (othersUp ? " while other GPUs' are up" : "")));
                }
                return topo;
            default:
                break;
        }
        Integer generation = s.generation();
        List<GpuLinks.Link> links = new ArrayList<>();
        if (topo != null) {
            for (GpuLinks.Link l : topo.links()) {
                links.add(new GpuLinks.Link(l.kind(), l.up(), l.up() && l.version() == null ? generation : l.version(),
                        l.remote(), l.remotePciAddress(), l.count()));
            }
        }
        if (s.up() > matrixUp && (topo == null || topo.upLinksToSwitch() == 0)) {
            // Links up that lead to no GPU of this node: to GPUs another host (a VM) holds, or to unseen switches.
            links.add(new GpuLinks.Link(GpuLinks.Kind.NVLINK, true, generation, GpuLinks.Remote.UNKNOWN, null,
                    s.up() - matrixUp));
        }
        if (s.down() > 0) {
            links.add(new GpuLinks.Link(GpuLinks.Kind.NVLINK, false, null, GpuLinks.Remote.UNKNOWN, null, s.down()));
        }
        return new GpuLinks(links, topo == null ? null : topo.fabric());
    }

    /** An all-zero UUID, as capture tools that hide UUIDs print them: says nothing of which GPU it is. */
    private static boolean zeroUuid(String uuid) {
        return uuid.replaceAll("(?i)gpu-|[-0]", "").isEmpty();
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
