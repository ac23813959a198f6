package io.gpudetect.inventory;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.Probe;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.probe.ProbeRole;
import io.gpudetect.tables.Tables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Which sources a pass consults and what makes it complete, decided from the PCI bus: the GPU functions on
 * it and the driver each is bound to.
 *
 * <ul>
 *   <li>NVML for GPUs bound to {@code nvidia}; {@code nvidia-smi} only for those NVML did not describe
 *       (unavailable, failed, or answered only in part).</li>
 *   <li>The AMD tools, in order, only while a GPU bound to {@code amdgpu} is not yet described: on an AMD
 *       host the first tool that answers is the only one that runs.</li>
 *   <li>OpenCL only for a GPU that nothing else names (no vendor tool described it and pci.ids has no name
 *       for its id): loading an OpenCL driver initialises the tenants' GPUs.</li>
 * </ul>
 *
 * A pass is complete when every GPU on the bus whose vendor source was consulted was described by one that
 * answered in full: a tool that fails for a GPU nothing else described keeps the pass incomplete (labels
 * stay as they are); a tool that fails where no GPU of its vendor is present is only a note.
 */
final class ProbePlan {

    /** The driver NVML and nvidia-smi see GPUs through. */
    static final String NVIDIA_DRIVER = "nvidia";
    /** The driver the AMD tools see GPUs through. */
    static final String AMD_DRIVER = "amdgpu";

    private final List<Gpu> bus;
    private final Tables tables;

    private ProbePlan(List<Gpu> bus, Tables tables) {
        this.bus = bus;
        this.tables = tables;
    }

    /** A plan from the bus probe's result; null when the bus could not be read (nothing to plan from). */
    static ProbePlan fromBus(ProbeResult busResult, Tables tables) {
        if (busResult.outcome() == ProbeResult.Outcome.ABSENT || busResult.outcome() == ProbeResult.Outcome.FAILED
                || busResult.outcome() == ProbeResult.Outcome.SKIPPED) {
            return null;
        }
        return new ProbePlan(busResult.gpus(), tables);
    }

    /** Whether to consult a probe, and why. */
    record Decision(boolean consult, String why) {
        static Decision consult(String why) {
            return new Decision(true, why);
        }

        static Decision skip(String why) {
            return new Decision(false, why);
        }
    }

    /** The decision for one probe, given what the probes consulted before it answered. */
    Decision decide(Probe probe, Map<Probe, ProbeResult> soFar) {
        return switch (probe.role()) {
            case BUS -> Decision.consult("the PCI bus: which GPUs exist and which driver each is bound to");
            case NVIDIA_LIBRARY -> {
                List<Gpu> nvidia = boundTo(Vendor.NVIDIA, NVIDIA_DRIVER);
                yield nvidia.isEmpty() ? Decision.skip("no GPU bound to the " + NVIDIA_DRIVER + " driver on the PCI bus")
                        : Decision.consult(count(nvidia, "GPU") + " bound to the " + NVIDIA_DRIVER + " driver");
            }
            case NVIDIA_TOOL -> vendorTool(boundTo(Vendor.NVIDIA, NVIDIA_DRIVER), NVIDIA_DRIVER, soFar,
                    ProbeRole.NVIDIA_LIBRARY, ProbeRole.NVIDIA_TOOL);
            case AMD_TOOL -> vendorTool(boundTo(Vendor.AMD, AMD_DRIVER), AMD_DRIVER, soFar, ProbeRole.AMD_TOOL, ProbeRole.AMD_TOOL);
            case OPENCL -> {
                List<Gpu> unnamed = new ArrayList<>();
                for (Gpu g : undescribedByVendorSources(soFar)) {
                    if (!hasTableName(g)) {
                        unnamed.add(g);
                    }
                }
                yield unnamed.isEmpty()
                        ? Decision.skip("every GPU on the PCI bus is named by a vendor source or pci.ids")
                        : Decision.consult("no name for " + describe(unnamed) + " in pci.ids or a vendor source");
            }
        };
    }

    private Decision vendorTool(List<Gpu> targets, String driver, Map<Probe, ProbeResult> soFar,
                                ProbeRole first, ProbeRole second) {
        if (targets.isEmpty()) {
            return Decision.skip("no GPU bound to the " + driver + " driver on the PCI bus");
        }
        List<String> before = names(soFar, first, second, false);
        List<Gpu> uncovered = uncovered(targets, soFar, first, second);
        if (uncovered.isEmpty()) {
            return Decision.skip(String.join(", ", names(soFar, first, second, true)) + " described every GPU bound to the "
                    + driver + " driver");
        }
        if (before.isEmpty()) {
            return Decision.consult(count(targets, "GPU") + " bound to the " + driver + " driver");
        }
        return Decision.consult(describe(uncovered) + " not described by " + String.join(", ", before));
    }

    /**
     * Why the pass is incomplete, from what each consulted probe answered: a GPU bound to a vendor's driver
     * whose vendor sources were consulted and none of them described it in full, where one of them failed
     * or answered in part. A vendor source that answered in full without listing the GPU leaves a warning,
     * not a gap: the bus still describes that GPU, and it is the host's state, not a failure of ours.
     */
    List<String> gaps(Map<Probe, ProbeResult> results, Probe busProbe, List<Diagnostic> notes) {
        List<String> gaps = new ArrayList<>();
        ProbeResult busResult = results.get(busProbe);
        if (busResult != null && busResult.outcome() == ProbeResult.Outcome.PARTIAL) {
            gaps.add("the PCI bus was read only in part (see the " + busProbe.name() + " diagnostics)");
        }
        gapsFor(boundTo(Vendor.NVIDIA, NVIDIA_DRIVER), results, gaps, notes, ProbeRole.NVIDIA_LIBRARY, ProbeRole.NVIDIA_TOOL);
        gapsFor(boundTo(Vendor.AMD, AMD_DRIVER), results, gaps, notes, ProbeRole.AMD_TOOL, ProbeRole.AMD_TOOL);
        return gaps;
    }

    private void gapsFor(List<Gpu> targets, Map<Probe, ProbeResult> results, List<String> gaps, List<Diagnostic> notes,
                         ProbeRole first, ProbeRole second) {
        if (targets.isEmpty()) {
            return;
        }
        List<String> fell = new ArrayList<>();
        List<String> answered = new ArrayList<>();
        for (Map.Entry<Probe, ProbeResult> e : results.entrySet()) {
            ProbeRole role = e.getKey().role();
            if (role != first && role != second) {
                continue;
            }
            ProbeResult.Outcome o = e.getValue().outcome();
            if (o == ProbeResult.Outcome.FAILED || o == ProbeResult.Outcome.PARTIAL) {
                fell.add(e.getKey().name() + " " + o.id());
            } else if (o == ProbeResult.Outcome.OK) {
                answered.add(e.getKey().name());
            }
        }
        for (Gpu g : uncovered(targets, results, first, second)) {
            if (!fell.isEmpty()) {
                gaps.add(describe(List.of(g)) + ": no source described it (" + String.join(", ", fell) + ")");
            } else if (!answered.isEmpty()) {
                notes.add(Diagnostic.warning("plan", null, null, describe(List.of(g)) + " is bound to the "
                        + g.kernelDriver() + " driver but " + String.join(", ", answered)
                        + " did not list it; it is described from the PCI bus alone"));
            }
        }
    }

    /**
     * A failed probe whose vendor has no GPU on the bus (rocm-smi on an NVIDIA host, for one) covers nothing
     * this pass needs: its errors become notes.
     */
    boolean coversNothingPresent(Probe probe) {
        return switch (probe.role()) {
            case NVIDIA_LIBRARY, NVIDIA_TOOL -> boundTo(Vendor.NVIDIA, NVIDIA_DRIVER).isEmpty();
            case AMD_TOOL -> boundTo(Vendor.AMD, AMD_DRIVER).isEmpty();
            case OPENCL, BUS -> false;
        };
    }

    /**
     * By identity: the lists hold the bus's own GPUs, and a record's generated {@code equals} would spin its
     * method handles at the start of every live detection (docs/performance.md, "probes hashed without
     * ObjectMethods").
     */
    private static boolean holds(List<Gpu> gpus, Gpu g) {
        for (Gpu each : gpus) {
            if (each == g) {
                return true;
            }
        }
        return false;
    }

    /** The vendor's GPUs on the bus bound to {@code driver}; with a null driver, all of them. */
    private List<Gpu> boundTo(Vendor vendor, String driver) {
        List<Gpu> out = new ArrayList<>();
        for (Gpu g : bus) {
            if (g.vendor() == vendor && (driver == null || driver.equals(g.kernelDriver()))) {
                out.add(g);
            }
        }
        return out;
    }

    private boolean hasTableName(Gpu g) {
        if (g.pciVendorId() == null || g.pciDeviceId() == null) {
            return false;
        }
        return tables.pciIds().device(g.pciVendorId(), g.pciDeviceId()).isPresent()
                || g.vendor() == Vendor.AMD && tables.amdGpuIds().name(g.pciDeviceId(), g.pciRevision()).isPresent();
    }

    private List<Gpu> undescribedByVendorSources(Map<Probe, ProbeResult> soFar) {
        List<Gpu> nvidia = uncovered(boundTo(Vendor.NVIDIA, null), soFar, ProbeRole.NVIDIA_LIBRARY, ProbeRole.NVIDIA_TOOL);
        List<Gpu> amd = uncovered(boundTo(Vendor.AMD, null), soFar, ProbeRole.AMD_TOOL, ProbeRole.AMD_TOOL);
        List<Gpu> left = new ArrayList<>();
        for (Gpu g : bus) {
            if (g.vendor() == Vendor.NVIDIA ? holds(nvidia, g) : g.vendor() != Vendor.AMD || holds(amd, g)) {
                left.add(g);
            }
        }
        return left;
    }

    /**
     * The names of the probes of the roles that were consulted ({@code inFull}: only those that answered in
     * full), each not {@code ok} followed by its outcome.
     */
    private static List<String> names(Map<Probe, ProbeResult> soFar, ProbeRole first, ProbeRole second, boolean inFull) {
        List<String> names = new ArrayList<>();
        for (Map.Entry<Probe, ProbeResult> e : soFar.entrySet()) {
            ProbeRole role = e.getKey().role();
            ProbeResult.Outcome o = e.getValue().outcome();
            if ((role == first || role == second) && o != ProbeResult.Outcome.SKIPPED && (!inFull || o == ProbeResult.Outcome.OK)) {
                names.add(e.getKey().name() + (o == ProbeResult.Outcome.OK ? "" : " (" + o.id() + ")"));
            }
        }
        return names;
    }

    /**
     * The targets no probe of the roles described in full: a probe that answered in full covers a GPU it
     * listed at the same PCI address (bus, device and function where it prints no domain); one that prints
     * no addresses covers the rest only if it listed at least as many GPUs as are left.
     */
    private static List<Gpu> uncovered(List<Gpu> targets, Map<Probe, ProbeResult> results, ProbeRole first, ProbeRole second) {
        List<Gpu> left = new ArrayList<>(targets);
        int withoutAddress = 0;
        for (Map.Entry<Probe, ProbeResult> e : results.entrySet()) {
            Probe probe = e.getKey();
            ProbeResult r = e.getValue();
            if ((probe.role() != first && probe.role() != second) || r.outcome() != ProbeResult.Outcome.OK) {
                continue;
            }
            int unaddressed = 0;
            for (Gpu g : r.gpus()) {
                if (g.pciAddress() == null) {
                    unaddressed++;
                } else {
                    left.removeIf(t -> sameFunction(g.pciAddress(), t.pciAddress(), probe.printsPciDomain()));
                }
            }
            withoutAddress = Math.max(withoutAddress, unaddressed);
        }
        return withoutAddress >= left.size() ? List.of() : left;
    }

    private static boolean sameFunction(PciAddress a, PciAddress b, boolean withDomain) {
        return b != null && a.bus() == b.bus() && a.device() == b.device() && a.function() == b.function()
                && (!withDomain || a.domain() == b.domain());
    }

    private static String count(List<Gpu> gpus, String what) {
        return gpus.size() + " " + what + (gpus.size() == 1 ? "" : "s");
    }

    /** {@code 0000:41:00.0 (10de:2204)}, comma-separated. */
    static String describe(List<Gpu> gpus) {
        List<String> parts = new ArrayList<>();
        for (Gpu g : gpus) {
            parts.add(g.pciAddress() + " (" + g.pciVendorId() + ":" + g.pciDeviceId() + ")");
        }
        return String.join(", ", parts);
    }
}
