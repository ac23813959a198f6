package io.gpudetect.record;

import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Partition;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Pure functions from a pass to the capacity record's spec and status. */
public final class CapacityRecords {

    private CapacityRecords() {
    }

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
                .map(g -> entry(g, listed == null ? null : listed.at(g.pciAddress()))).toList();
        Map<String, GpuCapacitySpec.ModelTotal> totals = new TreeMap<>();
        for (GpuCapacitySpec.GpuEntry e : entries) {
            String key = e.vendor() + "|" + e.model() + "|" + e.memoryGi() + "|" + e.interfaceType();
            totals.merge(key, new GpuCapacitySpec.ModelTotal(e.vendor(), e.model(), e.memoryGi(), e.interfaceType(), 1),
                    (a, b) -> new GpuCapacitySpec.ModelTotal(a.vendor(), a.model(), a.memoryGi(), a.interfaceType(),
                            a.count() + b.count()));
        }
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
        return new GpuCapacitySpec(entries, List.copyOf(totals.values()), slices, new TreeMap<>(allocatable),
                new TreeMap<>(requested), host, listed == null ? null : listed.present(), agentVersion);
    }

    private static GpuCapacitySpec.GpuEntry entry(Gpu g, List<String> drmCards) {
        return new GpuCapacitySpec.GpuEntry(g.vendor() == null ? "other" : g.vendor().id(), g.model(), g.name(),
                g.memoryMiB(), g.memoryGi(), g.interfaceType(), address(g), g.uuid(),
                g.health() == null || g.health().status() == null ? null : g.health().status().id(),
                g.partitioning() == null ? null : g.partitioning().enabled(),
                g.pciVendorId(), g.pciDeviceId(), g.pciSubsystemVendorId(), g.pciSubsystemDeviceId(), drmCards);
    }

    private static String address(Gpu g) {
        return g.pciAddress() == null ? null : g.pciAddress().toString();
    }

    /**
     * The status after this pass. {@code lastGoodPass} moves to {@code now} (to the second) only on a
     * complete pass and only once {@code heartbeat} has passed since the previous value, so repeated
     * identical passes give an equal status and cause no write.
     */
    public static GpuCapacityStatus status(Inventory inventory, GpuCapacityStatus previous, Instant now, Duration heartbeat) {
        boolean complete = inventory.complete();
        List<GpuCapacityStatus.Problem> problems = inventory.diagnostics().stream()
                .filter(d -> d.severity() != Diagnostic.Severity.INFO)
                .sorted(Comparator.comparing((Diagnostic d) -> d.probe() == null ? "" : d.probe())
                        .thenComparing(d -> d.file() == null ? "" : d.file())
                        .thenComparing(d -> d.line() == null ? 0 : d.line())
                        .thenComparing(Diagnostic::message))
                .map(d -> new GpuCapacityStatus.Problem(d.severity().id(), d.probe(), d.file(), d.line(), d.message()))
                .toList();
        String lastGood = previous == null ? null : previous.lastGoodPass();
        if (complete && isDue(lastGood, now, heartbeat)) {
            lastGood = now.truncatedTo(ChronoUnit.SECONDS).toString();
        }
        return new GpuCapacityStatus(complete ? "complete" : "incomplete", problems, lastGood, null);
    }

    private static boolean isDue(String lastGood, Instant now, Duration heartbeat) {
        if (lastGood == null) {
            return true;
        }
        try {
            return !Instant.parse(lastGood).plus(heartbeat).isAfter(now);
        } catch (DateTimeParseException e) {
            return true;
        }
    }

}
