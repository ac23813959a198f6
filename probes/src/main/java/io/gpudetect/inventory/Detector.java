package io.gpudetect.inventory;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.probe.FieldLimits;
import io.gpudetect.probe.Probe;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.source.Source;
import io.gpudetect.tables.Tables;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One detection pass: every probe in order over one source, merged and normalised into an {@link Inventory}.
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

    public Inventory detect(Source source) {
        return detect(source, Tables.forSource(source));
    }

    public Inventory detect(Source source, Tables tables) {
        List<ProbeResult> results = new ArrayList<>();
        Set<String> withoutDomain = new HashSet<>();
        for (Probe probe : probesInPrecedenceOrder) {
            // Tool probes bound their values already; this covers the others (NVML, sysfs) the same way.
            results.add(FieldLimits.apply(runSafely(probe, source)));
            if (!probe.printsPciDomain()) {
                withoutDomain.add(probe.name());
            }
        }
        Normaliser normaliser = new Normaliser(tables);
        List<Gpu> gpus = new ArrayList<>();
        List<Diagnostic> judgements = new ArrayList<>();
        for (Gpu merged : Merger.merge(results, withoutDomain)) {
            gpus.add(normaliser.normalise(merged, judgements));
        }
        gpus.sort(Detector::outputOrder);
        List<Inventory.ProbeSummary> summaries = new ArrayList<>();
        List<Diagnostic> diagnostics = new ArrayList<>();
        for (ProbeResult r : results) {
            summaries.add(new Inventory.ProbeSummary(r.probe(), r.outcome(), r.gpus().size()));
            diagnostics.addAll(r.diagnostics());
        }
        diagnostics.addAll(judgements);
        return new Inventory(source.describe(), gpus, summaries, diagnostics, machine(source, diagnostics));
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
