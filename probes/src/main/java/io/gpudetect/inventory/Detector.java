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
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** One detection pass: every probe in order over one source, merged and normalised into an {@link Inventory}. */
public final class Detector {

    private static final Comparator<Gpu> ORDER = Comparator
            .comparing(Gpu::pciAddress, Comparator.nullsLast(Comparator.<PciAddress>naturalOrder()))
            .thenComparing(g -> g.vendor() == null ? "" : g.vendor().id())
            .thenComparing(g -> g.uuid() == null ? "" : g.uuid())
            .thenComparing(g -> g.name() == null ? "" : g.name());

    private final List<Probe> probesInPrecedenceOrder;

    public Detector(List<Probe> probesInPrecedenceOrder) {
        this.probesInPrecedenceOrder = List.copyOf(probesInPrecedenceOrder);
    }

    public Inventory detect(Source source) {
        return detect(source, Tables.forSource(source));
    }

    public Inventory detect(Source source, Tables tables) {
        List<ProbeResult> results = new ArrayList<>();
        for (Probe probe : probesInPrecedenceOrder) {
            // Tool probes bound their values already; this covers the others (NVML, sysfs) the same way.
            results.add(FieldLimits.apply(runSafely(probe, source)));
        }
        Normaliser normaliser = new Normaliser(tables);
        Set<String> withoutDomain = probesInPrecedenceOrder.stream().filter(p -> !p.printsPciDomain())
                .map(Probe::name).collect(Collectors.toSet());
        List<Gpu> gpus = Merger.merge(results, withoutDomain).stream().map(normaliser::normalise).sorted(ORDER).toList();
        List<Inventory.ProbeSummary> summaries = results.stream()
                .map(r -> new Inventory.ProbeSummary(r.probe(), r.outcome(), r.gpus().size())).toList();
        List<Diagnostic> diagnostics = results.stream().flatMap(r -> r.diagnostics().stream()).toList();
        return new Inventory(source.describe(), gpus, summaries, diagnostics);
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
