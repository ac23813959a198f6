package io.gpudetect.inventory;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.probe.FieldLimits;
import io.gpudetect.probe.Probe;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.probe.ProbeRole;
import io.gpudetect.source.Source;
import io.gpudetect.tables.Tables;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One detection pass over one source, merged and normalised into an {@link Inventory}. The PCI bus is read
 * first; on a live host a {@link ProbePlan} made from it decides which other sources are consulted, and on a
 * bundle every recorded source is read. Where the bus answered, the plan also judges completeness GPU by GPU.
 *
 * <p>Loops rather than streams here and in the rest of the detection core ({@link Merger}, {@code FieldLimits},
 * {@code ProbeResult}, {@code ToolProbe}, {@code Inventory}, {@code BundleSource}, {@code Probes.bundleFiles}),
 * no method reference per field in {@code FieldLimits}, and compare methods rather than comparator chains: a
 * one-shot {@code gpu-detect} runs this once, interpreted, and the first stream pipeline and each lambda call
 * site cost time to load and link at every start (JDK 17 cannot archive the lambdas inside {@code
 * Comparator.comparing} at all). Measured: docs/performance.md, "Start-up and footprint tricks", rows
 * "detection core without streams" and "compare methods".
 */
public final class Detector {

    private final List<Probe> probesInPrecedenceOrder;

    public Detector(List<Probe> probesInPrecedenceOrder) {
        this.probesInPrecedenceOrder = List.copyOf(probesInPrecedenceOrder);
    }

    public Inventory detect(Source source, Tables tables) {
        Probe busProbe = busProbe();
        Map<Probe, ProbeResult> results = new LinkedHashMap<>();
        Map<Probe, String> why = new LinkedHashMap<>();
        ProbePlan plan = null;
        if (busProbe != null) {
            // The bus is read first whatever its place in precedence: the plan is made from it.
            results.put(busProbe, FieldLimits.apply(runSafely(busProbe, source)));
            plan = ProbePlan.fromBus(results.get(busProbe), tables);
        }
        boolean planned = plan != null && source.consultsOnlyWhatIsNeeded();
        for (Probe probe : probesInPrecedenceOrder) {
            if (probe == busProbe) {
                continue;
            }
            if (planned) {
                if (!probe.runsOnLiveHost()) {
                    continue;
                }
                ProbePlan.Decision decision = plan.decide(probe, results);
                why.put(probe, decision.why());
                if (!decision.consult()) {
                    results.put(probe, ProbeResult.skipped(probe.name()));
                    continue;
                }
            }
            // Tool probes bound their values already; this covers the others (NVML, sysfs) the same way.
            results.put(probe, FieldLimits.apply(runSafely(probe, source)));
        }
        List<ProbeResult> inOrder = new ArrayList<>();
        Set<String> withoutDomain = new HashSet<>();
        List<Diagnostic> diagnostics = new ArrayList<>();
        List<Inventory.ProbeSummary> summaries = new ArrayList<>();
        for (Probe probe : probesInPrecedenceOrder) {
            ProbeResult r = results.get(probe);
            if (r == null) {
                continue;
            }
            inOrder.add(r);
            if (!probe.printsPciDomain()) {
                withoutDomain.add(probe.name());
            }
            summaries.add(new Inventory.ProbeSummary(r.probe(), r.outcome(), r.gpus().size(),
                    planned ? why.get(probe) : plan == null && source.consultsOnlyWhatIsNeeded() ? WITHOUT_PLAN : null));
            boolean note = plan != null && r.outcome() == ProbeResult.Outcome.FAILED && plan.coversNothingPresent(probe);
            for (Diagnostic d : r.diagnostics()) {
                diagnostics.add(note ? asNote(d) : d);
            }
        }
        Map<String, String> unreadable = source.isRecorded() ? unreadable(source, inOrder) : Map.of();
        List<String> gaps = new ArrayList<>(unreadable.values());
        for (String gap : plan == null ? Inventory.probeGaps(summaries) : plan.gaps(results, busProbe, diagnostics)) {
            // "nvml failed (see its diagnostics)" says less than the unreadable file's gap, already there.
            if (!gap.endsWith(" failed (see its diagnostics)")
                    || !unreadable.containsKey(gap.substring(0, gap.length() - " failed (see its diagnostics)".length()))) {
                gaps.add(gap);
            }
        }
        String failure = plan == null && !source.isRecorded() ? blind(busProbe, results.get(busProbe))
                : source.isRecorded() ? unusable(inOrder) : null;
        Normaliser normaliser = new Normaliser(tables);
        List<Gpu> gpus = new ArrayList<>();
        for (Gpu merged : Merger.merge(inOrder, withoutDomain)) {
            gpus.add(normaliser.normalise(merged, diagnostics));
        }
        gpus = new ArrayList<>(UnifiedMemory.apply(gpus, source, diagnostics));
        gpus = new ArrayList<>(topoLinksSafely(source, gpus, diagnostics));
        gpus = new ArrayList<>(amdTopoLinksSafely(source, gpus, diagnostics));
        gpus.sort(Detector::outputOrder);
        tableNotes(gpus, tables, diagnostics);
        String machine = machine(source, diagnostics);
        io.gpudetect.model.Fabric fabric = busAnswered(results.get(busProbe)) ? fabricSafely(source, gpus, diagnostics) : null;
        return new Inventory(source.describe(), gpus, summaries, diagnostics, machine, gaps, failure, fabric);
    }

    /**
     * Whether the fabric is read: where the PCI bus was (the fabric's devices are placed on it, and a host whose
     * {@code /sys} is not there has no {@code /sys/class/infiniband} either). Only a full detection gets here:
     * {@link SteadyStateDetector} keeps the last pass's inventory, fabric and all, while the host's fingerprint holds.
     */
    private static boolean busAnswered(ProbeResult bus) {
        return bus != null && (bus.outcome() == ProbeResult.Outcome.OK || bus.outcome() == ProbeResult.Outcome.PARTIAL);
    }

    /**
     * One info line for each table a pass named cards without: Akash's (not read: no network, {@code --akash-table
     * none}), whose absence leaves the models to gpu-detect's own rules, and amdgpu.ids (a build that could not
     * fetch Debian's, on a host without libdrm), whose absence leaves AMD cards to pci.ids' names. Asked only when
     * a card was named, so a host without GPUs reads neither.
     */
    private static void tableNotes(List<Gpu> gpus, Tables tables, List<Diagnostic> diagnostics) {
        if (gpus.isEmpty()) {
            return;
        }
        if (!tables.akash().present()) {
            diagnostics.add(Diagnostic.info("akash-gpus", null, null, "no Akash GPU table (" + tables.akash().origin()
                    + "): models are named by gpu-detect's own rules; --akash-table FILE|URL gives one"));
        }
        for (Gpu g : gpus) {
            if (g.vendor() == io.gpudetect.model.Vendor.AMD) {
                if (tables.amdGpuIds().origin().startsWith("none")) {
                    diagnostics.add(Diagnostic.info("amdgpu.ids", null, null, "no amdgpu.ids (" + tables.amdGpuIds().origin()
                            + ", and the host has no /usr/share/libdrm/amdgpu.ids): AMD cards are named from pci.ids"));
                }
                break;
            }
        }
    }

    /**
     * A replay's gap, by probe, for each file the bundle holds and that could not be read (permission denied, a folder where a
     * file belongs, a link out of the bundle): whatever the other sources said, the recording is damaged where that
     * source's facts were, so the replay is not the host's whole answer. A tool the recorded host ran and that
     * failed there is judged as on the live host, by the plan.
     */
    private static Map<String, String> unreadable(Source source, List<ProbeResult> results) {
        Map<String, String> gaps = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        for (ProbeResult r : results) {
            if (r.outcome() != ProbeResult.Outcome.FAILED) {
                continue;
            }
            for (Diagnostic d : r.diagnostics()) {
                if (d.severity() == Diagnostic.Severity.ERROR && d.file() != null && seen.add(d.file())) {
                    source.unreadable(d.file()).ifPresent(why -> gaps.merge(r.probe(), why + " (" + r.probe()
                            + " could not read it)", (a, b) -> a + "; " + b));
                }
            }
        }
        return gaps;
    }

    /**
     * Why a replay gives no verdict: no source answered and some failed. A bundle nothing of which could be read
     * (garbage in its only file, an unreadable {@code sys/}) is unusable input, never "no GPUs"; each failed source's
     * first error is named, with its file and line. Null when some source answered (with or without GPUs).
     */
    private static String unusable(List<ProbeResult> results) {
        List<String> reasons = new ArrayList<>();
        for (ProbeResult r : results) {
            if (r.outcome() == ProbeResult.Outcome.OK || r.outcome() == ProbeResult.Outcome.PARTIAL) {
                return null;
            }
            if (r.outcome() == ProbeResult.Outcome.FAILED) {
                for (Diagnostic d : r.diagnostics()) {
                    if (d.severity() == Diagnostic.Severity.ERROR) {
                        reasons.add(r.probe() + ": " + (d.file() == null ? "" : d.file().startsWith("/")
                                ? d.file().substring(1) + ": " : d.file() + (d.line() == null ? "" : ":" + d.line()) + ": ")
                                + d.message());
                        break;
                    }
                }
            }
        }
        // A bundle that holds nothing a probe reads (a manifest alone, saying no tool was there) was read in full:
        // its "no GPUs, sources that answered: none" is what it shows.
        return reasons.isEmpty() ? null : "no source in the bundle answered (" + String.join("; ", reasons) + ")";
    }

    /** Why a live pass consulted every source: it had no bus to plan from. */
    static final String WITHOUT_PLAN = "the PCI bus could not be read, so every source was consulted";

    /** The probe that reads the PCI bus on a live host, which the plan starts from; null in a list without one. */
    private Probe busProbe() {
        for (Probe p : probesInPrecedenceOrder) {
            if (p.role() == ProbeRole.BUS && p.runsOnLiveHost()) {
                return p;
            }
        }
        return null;
    }

    /**
     * Why a live pass that cannot read the PCI bus fails: without it no source can be checked against what
     * is there, and "no GPUs" read from a wrong mount would withdraw every label of the node.
     */
    private static String blind(Probe busProbe, ProbeResult bus) {
        String detail = bus == null || bus.diagnostics().isEmpty() ? "no bus probe" : bus.diagnostics().get(0).message();
        String where = bus == null || bus.diagnostics().isEmpty() || bus.diagnostics().get(0).file() == null ? ""
                : bus.diagnostics().get(0).file() + ": ";
        return "cannot see the PCI bus (" + where + detail + "); is the host's /sys mounted? Nothing is judged from this pass";
    }

    /** A failure of a source no GPU on the bus needs (rocm-smi on an NVIDIA host): a note, not an error. */
    private static Diagnostic asNote(Diagnostic d) {
        if (d.severity() == Diagnostic.Severity.INFO) {
            return d;
        }
        return Diagnostic.info(d.probe(), d.file(), d.line(), d.message() + " (no GPU on the PCI bus needs this source)");
    }

    private static final String DMI_DIR = "/sys/class/dmi/id";

    /**
     * The DMI product name, which a {@code record} bundle carries as it carries every file read; a host
     * without DMI (most ARM boards) has none, and that is no fault.
     */
    private static String machine(Source source, List<Diagnostic> diagnostics) {
        try {
            // /sys/class/dmi/id is a link: asking for it first makes a recording keep the link to the file.
            source.readLink(DMI_DIR);
            return source.readFile(Inventory.DMI_PRODUCT_NAME).map(String::strip).filter(s -> !s.isEmpty())
                    .map(s -> s.length() > 256 ? s.substring(0, 256) : s).orElse(null);
        } catch (java.io.IOException e) {
            diagnostics.add(Diagnostic.info("dmi", Inventory.DMI_PRODUCT_NAME, null,
                    "could not read the machine's product name: " + e.getMessage()));
            return null;
        }
    }

    /** By PCI address (cards without one last), then vendor, UUID and name. */
    private static int outputOrder(Gpu a, Gpu b) {
        int c = PciAddress.compareNullsLast(a.pciAddress(), b.pciAddress());
        if (c == 0) {
            c = orEmpty(a.vendor() == null ? null : a.vendor().id()).compareTo(orEmpty(b.vendor() == null ? null : b.vendor().id()));
        }
        if (c == 0) {
            c = orEmpty(a.uuid()).compareTo(orEmpty(b.uuid()));
        }
        return c != 0 ? c : orEmpty(a.name()).compareTo(orEmpty(b.name()));
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }

    /** The fabric reader is written not to throw either; a bug in it leaves the fabric not known, the GPUs as they are. */
    private static io.gpudetect.model.Fabric fabricSafely(Source source, List<Gpu> gpus, List<Diagnostic> diagnostics) {
        try {
            return io.gpudetect.probe.fabric.RdmaFabricReader.read(source, gpus, diagnostics);
        } catch (RuntimeException | StackOverflowError e) {
            diagnostics.add(Diagnostic.error(io.gpudetect.probe.fabric.RdmaFabricReader.NAME, null, null,
                    "reading the fabric failed unexpectedly: " + e));
            return null;
        }
    }

    /** NVIDIA GPUs' links from {@code nvidia-smi topo -m} where NVML gave none; a bug there keeps the GPUs as they were. */
    private static List<Gpu> topoLinksSafely(Source source, List<Gpu> gpus, List<Diagnostic> diagnostics) {
        try {
            return io.gpudetect.probe.nvidia.NvidiaTopoLinks.fill(source, gpus, diagnostics);
        } catch (RuntimeException | StackOverflowError e) {
            diagnostics.add(Diagnostic.error(io.gpudetect.probe.nvidia.NvidiaSmiTopoParser.PROBE, null, null,
                    "reading the GPU links from nvidia-smi topo -m failed unexpectedly: " + e));
            return gpus;
        }
    }

    /** AMD GPUs' XGMI links from amd-smi / rocm-smi topology where sysfs gave none; a bug there keeps the GPUs as they were. */
    private static List<Gpu> amdTopoLinksSafely(Source source, List<Gpu> gpus, List<Diagnostic> diagnostics) {
        try {
            return io.gpudetect.probe.amd.AmdTopoLinks.fill(source, gpus, diagnostics);
        } catch (RuntimeException | StackOverflowError e) {
            diagnostics.add(Diagnostic.error(io.gpudetect.probe.amd.AmdSmiTopologyParser.PROBE, null, null,
                    "reading the AMD GPU links from amd-smi / rocm-smi topology failed unexpectedly: " + e));
            return gpus;
        }
    }

    /** A probe is written not to throw; this keeps a bug in one from hiding what the others saw. */
    private static ProbeResult runSafely(Probe probe, Source source) {
        try {
            return probe.probe(source);
        } catch (RuntimeException | StackOverflowError e) {
            return ProbeResult.failed(probe.name(), Diagnostic.error(probe.name(), null, null,
                    "probe failed unexpectedly: " + e));
        }
    }
}
