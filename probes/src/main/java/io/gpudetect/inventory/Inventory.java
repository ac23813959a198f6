package io.gpudetect.inventory;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.probe.ProbeResult;
import java.util.ArrayList;
import java.util.List;

/**
 * The result of one detection pass: every GPU once, merged and normalised, sorted by PCI address; what
 * each probe did; and every diagnostic. {@code complete} is false when the pass may have missed or
 * misdescribed a GPU ({@code gaps} says where), so that nothing downstream withdraws a label on a partial
 * view; {@code failure} says what the pass could not see at all (a live host without a readable PCI bus).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Inventory(String source, List<Gpu> gpus, List<ProbeSummary> probes, List<Diagnostic> diagnostics,
                        /** The host's DMI product name ({@code /sys/class/dmi/id/product_name}), trimmed; null when absent. */
                        String machine,
                        /** Why the pass is incomplete, one line each; empty when complete. */
                        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> gaps,
                        /** What a pass on this host must see and could not; null when the pass could see the host. */
                        String failure,
                        /**
                         * The node's RDMA fabric and each GPU's nearest RDMA device; null when not read (no PCI bus) or
                         * not known (a bundle recorded without {@code sys/class/infiniband}).
                         */
                        io.gpudetect.model.Fabric fabric) {

    /** A pass without the fabric read. */
    public Inventory(String source, List<Gpu> gpus, List<ProbeSummary> probes, List<Diagnostic> diagnostics,
                     String machine, List<String> gaps, String failure) {
        this(source, gpus, probes, diagnostics, machine, gaps, failure, null);
    }

    /**
     * What one probe did in this pass, and why it was consulted or skipped ({@code why}: null where every
     * source was read, as in a replayed bundle).
     */
    public record ProbeSummary(String name, ProbeResult.Outcome outcome, int gpus,
                               @JsonInclude(JsonInclude.Include.NON_NULL) String why) {

        public ProbeSummary(String name, ProbeResult.Outcome outcome, int gpus) {
            this(name, outcome, gpus, null);
        }
    }

    /** The product name, as DMI has it: the file GFD reads for {@code nvidia.com/gpu.machine}. */
    public static final String DMI_PRODUCT_NAME = "/sys/class/dmi/id/product_name";

    public Inventory {
        gpus = List.copyOf(gpus);
        probes = List.copyOf(probes);
        diagnostics = List.copyOf(diagnostics);
        gaps = gaps == null ? List.of() : List.copyOf(gaps);
    }

    /**
     * Where the pass cannot tell which probe covers which GPU (no PCI bus to compare with): one gap for each
     * probe that was there and did not answer in full.
     */
    static List<String> probeGaps(List<ProbeSummary> probes) {
        List<String> gaps = new ArrayList<>();
        for (ProbeSummary p : probes) {
            if (p.outcome() == ProbeResult.Outcome.FAILED || p.outcome() == ProbeResult.Outcome.PARTIAL) {
                gaps.add(p.name() + " " + p.outcome().id() + " (see its diagnostics)");
            }
        }
        return gaps;
    }

    /** True when the pass saw the host and every GPU on it was described by a source that answered. */
    @JsonProperty("complete")
    public boolean complete() {
        return failure == null && gaps.isEmpty();
    }

    /**
     * How the GPUs to bid with are joined to each other (NVLink, NVSwitch, bridges, XGMI): derived from their
     * {@code links}, never stored; null when no source read any GPU's links.
     */
    @JsonProperty("interconnect")
    public io.gpudetect.model.Interconnect interconnect() {
        return io.gpudetect.model.Interconnect.of(realGpus());
    }

    /** GPUs to bid with: emulated and management adapters left out. */
    @JsonIgnore
    public List<Gpu> realGpus() {
        return gpus.stream().filter(g -> !Boolean.TRUE.equals(g.emulated())).toList();
    }
}
