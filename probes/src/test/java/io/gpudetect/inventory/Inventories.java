package io.gpudetect.inventory;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import java.util.List;

/** Inventories made by hand for tests, judged complete as the detector judges a pass without a PCI bus plan. */
public final class Inventories {

    private Inventories() {
    }

    /** A pass that knows nothing of the machine around its GPUs; incomplete where a present probe did not answer in full. */
    public static Inventory of(String source, List<Gpu> gpus, List<Inventory.ProbeSummary> probes,
                               List<Diagnostic> diagnostics) {
        return of(source, gpus, probes, diagnostics, null);
    }

    /** As {@link #of(String, List, List, List)}, on a machine whose DMI product name is {@code machine}. */
    public static Inventory of(String source, List<Gpu> gpus, List<Inventory.ProbeSummary> probes,
                               List<Diagnostic> diagnostics, String machine) {
        return new Inventory(source, gpus, probes, diagnostics, machine, Inventory.probeGaps(probes), null);
    }
}
