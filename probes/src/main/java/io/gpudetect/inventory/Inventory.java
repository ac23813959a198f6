package io.gpudetect.inventory;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.probe.ProbeResult;
import java.util.List;

/**
 * The result of one detection pass: every GPU once, merged and normalised, sorted by PCI address; what
 * each probe did; and every diagnostic. {@code complete} is false when a probe that is present failed,
 * so that nothing downstream withdraws a label on a partial view.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Inventory(String source, List<Gpu> gpus, List<ProbeSummary> probes, List<Diagnostic> diagnostics,
                        /** The host's DMI product name ({@code /sys/class/dmi/id/product_name}), trimmed; null when absent. */
                        String machine) {

    /** What one probe did in this pass. */
    public record ProbeSummary(String name, ProbeResult.Outcome outcome, int gpus) {
    }

    /** The product name, as DMI has it: the file GFD reads for {@code nvidia.com/gpu.machine}. */
    public static final String DMI_PRODUCT_NAME = "/sys/class/dmi/id/product_name";

    /** A pass that knows nothing of the machine around its GPUs. */
    public Inventory(String source, List<Gpu> gpus, List<ProbeSummary> probes, List<Diagnostic> diagnostics) {
        this(source, gpus, probes, diagnostics, null);
    }

    public Inventory {
        gpus = List.copyOf(gpus);
        probes = List.copyOf(probes);
        diagnostics = List.copyOf(diagnostics);
    }

    /** True when every probe that is present answered in full. */
    @com.fasterxml.jackson.annotation.JsonProperty("complete")
    public boolean complete() {
        for (ProbeSummary p : probes) {
            if (p.outcome() != ProbeResult.Outcome.OK && p.outcome() != ProbeResult.Outcome.ABSENT) {
                return false;
            }
        }
        return true;
    }

    /** GPUs to bid with: emulated and management adapters left out. */
    @JsonIgnore
    public List<Gpu> realGpus() {
        return gpus.stream().filter(g -> !Boolean.TRUE.equals(g.emulated())).toList();
    }
}
