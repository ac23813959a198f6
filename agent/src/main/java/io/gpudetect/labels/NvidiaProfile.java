package io.gpudetect.labels;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Partition;
import io.gpudetect.model.Vendor;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * {@code nvidia.com/*} labels as NVIDIA's GPU Feature Discovery writes them, for workloads that already
 * select on them: {@code gpu.product}, {@code gpu.count}, {@code gpu.memory} (MiB), {@code gpu.family},
 * {@code gpu.compute.major/minor}, {@code cuda.driver-version.*}, {@code cuda.runtime-version.*},
 * {@code mig.capable} and, for MIG slices whose profile is known, {@code mig-<profile>.count}.
 *
 * <p>Differences from GFD, on purpose: on a mixed node the single-valued keys describe the most numerous
 * product (ties to the first name in sort order) instead of whichever card a map visited last, and
 * {@code gpu.count} counts all NVIDIA cards; no {@code gfd.timestamp}; no {@code mig.strategy} (that is
 * the device plugin's setting, not a fact of the host). {@code nvidia.com/gpu.present} belongs to the
 * {@code akash} profile: Akash's inventory operator writes it, for NVIDIA's device plugin to select on.
 */
public final class NvidiaProfile implements LabelProfile {

    public static final String NAME = "nvidia";
    public static final String PREFIX = "nvidia.com";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SortedMap<String, String> labels(Inventory inventory) {
        List<Gpu> gpus = GpuFacts.ofVendor(inventory.realGpus(), Vendor.NVIDIA);
        SortedMap<String, String> out = new TreeMap<>();
        if (gpus.isEmpty()) {
            return out;
        }
        put(out, "gpu.count", String.valueOf(gpus.size()));
        // A card no tool could name still counts, as "unknown", so that gpu.product is never missing.
        String product = GpuFacts.mostNumerous(GpuFacts.countBy(gpus, g -> LabelText.value(g.name()), v -> v));
        List<Gpu> primary = gpus.stream().filter(g -> LabelText.value(g.name()).equals(product)).toList();
        put(out, "gpu.product", product);
        Long mib = GpuFacts.min(primary, Gpu::memoryMiB);
        if (mib != null) {
            put(out, "gpu.memory", String.valueOf(mib));
        }
        String family = GpuFacts.mostNumerous(GpuFacts.countBy(primary, Gpu::architecture, LabelText::segment));
        if (family != null) {
            put(out, "gpu.family", family);
        }
        String cc = GpuFacts.mostNumerous(GpuFacts.countBy(primary, Gpu::computeCapability, LabelText::value));
        String[] ccParts = GpuFacts.versionParts(cc);
        if (ccParts.length == 2) {
            put(out, "gpu.compute.major", ccParts[0]);
            put(out, "gpu.compute.minor", ccParts[1]);
        }
        String driver = GpuFacts.mostNumerous(GpuFacts.countBy(gpus, Gpu::driverVersion, LabelText::value));
        versionLabels(out, "cuda.driver-version", driver, "revision");
        String runtime = GpuFacts.mostNumerous(GpuFacts.countBy(gpus, Gpu::runtimeVersion, LabelText::value));
        versionLabels(out, "cuda.runtime-version", runtime, null);
        put(out, "mig.capable", String.valueOf(gpus.stream().anyMatch(MigFacts::isMigCapable)));
        TreeMap<String, Integer> slices = new TreeMap<>();
        gpus.stream().filter(MigFacts::isMigEnabled).flatMap(g -> g.partitioning().instances().stream())
                .map(Partition::profile).filter(p -> p != null && !p.isBlank())
                .forEach(p -> slices.merge(LabelText.value(p), 1, Integer::sum));
        slices.forEach((profile, n) -> put(out, "mig-" + profile + ".count", String.valueOf(n)));
        return out;
    }

    /** {@code .full}, {@code .major}, {@code .minor} and (for the driver) {@code .revision} of a dotted version. */
    private static void versionLabels(SortedMap<String, String> out, String name, String version, String thirdName) {
        String[] parts = GpuFacts.versionParts(version);
        if (parts.length == 0) {
            return;
        }
        put(out, name + ".full", version);
        put(out, name + ".major", parts[0]);
        if (parts.length > 1) {
            put(out, name + ".minor", parts[1]);
        }
        if (thirdName != null && parts.length > 2) {
            put(out, name + "." + thirdName, parts[2]);
        }
    }

    private static void put(SortedMap<String, String> out, String name, String value) {
        out.put(LabelText.key(PREFIX, name), value);
    }
}
