package io.gpudetect.record;

import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Partition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Pure functions from a pass to the capacity record's spec and status. */
public final class CapacityRecords {

    private CapacityRecords() {
    }

    /** Totals by vendor and model (as written), memory (as a number) and interface (as written), unknown first. */
    private static final Comparator<GpuCapacitySpec.ModelTotal> TOTALS_ORDER =
            Comparator.comparing((GpuCapacitySpec.ModelTotal t) -> t.vendor().id())
                    .thenComparing(GpuCapacitySpec.ModelTotal::model, Comparator.nullsFirst(Comparator.naturalOrder()))
                    .thenComparing(GpuCapacitySpec.ModelTotal::memoryGi, Comparator.nullsFirst(Comparator.naturalOrder()))
                    .thenComparing(t -> t.interfaceType() == null ? "" : t.interfaceType().id());

    /**
     * The spec for this pass: GPUs, totals and slices from the inventory, resources from the Node and its pods, and
     * each GPU's DRM card nodes from {@code drm} (read through the same source as the inventory, so a replayed
     * bundle and the live host give the same record). {@link DrmCards.NotKnown} leaves {@code sysClassDrm} and every
     * {@code drmCards} out.
     */
    public static GpuCapacitySpec spec(Inventory inventory, Map<String, Long> allocatable, Map<String, Long> requested,
                                       GpuCapacitySpec.HostFacts host, DrmCards drm, String agentVersion) {
        List<Gpu> gpus = inventory.realGpus();
        DrmCards.Listed listed = drm instanceof DrmCards.Listed l ? l : null;
        List<GpuCapacitySpec.GpuEntry> entries = gpus.stream()
                .map(g -> GpuCapacitySpec.GpuEntry.of(g, listed == null ? null : listed.at(g.pciAddress()),
                        inventory.fabric() == null ? null
                                : FabricSpec.NearestNic.of(inventory.fabric().nearestNicOf(g.pciAddress())))).toList();
        Map<GpuCapacitySpec.ModelTotal.Kind, Integer> counts = new java.util.HashMap<>();
        for (GpuCapacitySpec.GpuEntry e : entries) {
            counts.merge(GpuCapacitySpec.ModelTotal.Kind.of(e), 1, Integer::sum);
        }
        List<GpuCapacitySpec.ModelTotal> totals = counts.entrySet().stream()
                .map(c -> GpuCapacitySpec.ModelTotal.of(c.getKey(), c.getValue())).sorted(TOTALS_ORDER).toList();
        List<GpuCapacitySpec.Slice> slices = new ArrayList<>();
        for (Gpu g : gpus) {
            if (g.partitioning() == null || !Boolean.TRUE.equals(g.partitioning().enabled())) {
                continue;
            }
            for (Partition p : g.partitioning().instances()) {
                slices.add(new GpuCapacitySpec.Slice(address(g), g.uuid(), g.partitioning().kind(), p.profile(),
                        p.gpuInstanceId(), p.computeInstanceId(), p.memoryMiB(), p.multiprocessors(), p.uuid()));
            }
        }
        return new GpuCapacitySpec(entries, totals, slices, new TreeMap<>(allocatable),
                new TreeMap<>(requested), host, listed == null ? null : listed.present(), agentVersion, null,
                FabricSpec.of(inventory.fabric()));
    }

    /**
     * {@code wanted} with each GPU's {@code healthSince}: the held record's time for the same GPU (by PCI address,
     * else UUID) where its health and reasons are the same as now, else {@code now}. A record is written only when
     * what it holds changes, so the time moves only when the health does.
     */
    public static GpuCapacitySpec withHealthSince(GpuCapacitySpec wanted, GpuCapacitySpec held, Instant now) {
        if (wanted == null) {
            return null;
        }
        List<GpuCapacitySpec.GpuEntry> gpus = new ArrayList<>(wanted.gpus().size());
        // GPUs with neither a PCI address nor a UUID (a lost GPU NVML gives no handle for) are paired in order.
        List<GpuCapacitySpec.GpuEntry> unnamedHeld = held == null ? List.of()
                : held.gpus().stream().filter(e -> e.pciAddress() == null && e.uuid() == null).toList();
        int unnamed = 0;
        for (GpuCapacitySpec.GpuEntry g : wanted.gpus()) {
            boolean named = g.pciAddress() != null || g.uuid() != null;
            int position = named ? -1 : unnamed++;
            if (g.health() == null) {
                gpus.add(g);
                continue;
            }
            GpuCapacitySpec.GpuEntry before = held == null ? null
                    : named ? sameGpu(held.gpus(), g) : position < unnamedHeld.size() ? unnamedHeld.get(position) : null;
            boolean same = before != null && before.healthSince() != null && before.health() == g.health()
                    && java.util.Objects.equals(before.healthReasons(), g.healthReasons());
            gpus.add(g.withHealthSince(same ? before.healthSince() : now.toString()));
        }
        return wanted.withGpus(gpus);
    }

    private static GpuCapacitySpec.GpuEntry sameGpu(List<GpuCapacitySpec.GpuEntry> gpus, GpuCapacitySpec.GpuEntry g) {
        for (GpuCapacitySpec.GpuEntry e : gpus) {
            if (g.pciAddress() != null ? g.pciAddress().equals(e.pciAddress())
                    : g.uuid() != null && g.uuid().equals(e.uuid())) {
                return e;
            }
        }
        return null;
    }

    private static String address(Gpu g) {
        return g.pciAddress() == null ? null : g.pciAddress().toString();
    }

    /**
     * The status this pass wants, with {@code outcome} as the pass decided it (an inventory can be complete while
     * the pass is not: two profiles produced the same key); see {@link StatusUpdate#after}.
     */
    public static StatusUpdate status(Inventory inventory, PassOutcome outcome, Instant now, Duration heartbeat,
                                      String akashLabels) {
        List<GpuCapacityStatus.Problem> problems = inventory.diagnostics().stream()
                .filter(d -> d.severity() != Diagnostic.Severity.INFO)
                .sorted(Comparator.comparing((Diagnostic d) -> d.probe() == null ? "" : d.probe())
                        .thenComparing(d -> d.file() == null ? "" : d.file())
                        .thenComparing(d -> d.line() == null ? 0 : d.line())
                        .thenComparing(Diagnostic::message))
                .map(d -> new GpuCapacityStatus.Problem(d.severity().id(), d.probe(), d.file(), d.line(), d.message()))
                .toList();
        return new StatusUpdate(outcome, problems, akashLabels, now, heartbeat);
    }

}
