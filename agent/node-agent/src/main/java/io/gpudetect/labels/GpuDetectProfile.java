package io.gpudetect.labels;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Our own labels under {@code gpu-detect.io/}: a per-node summary that stays meaningful on mixed nodes.
 * Everything that can differ between cards is counted per model ({@code gpu.model.<m>.count}) instead of
 * picking one card; single-valued keys ({@code gpu.model}) appear only when every card agrees. Integrated GPUs
 * beside discrete ones are counted apart ({@code gpu.integrated.count}), see {@link #nodeGpus}. The key and
 * value formats are documented in {@code docs/labels.md}.
 */
public final class GpuDetectProfile implements LabelProfile {

    public static final String NAME = "gpu-detect";
    /** The default prefix; a provider may choose its own ({@code --prefix}). */
    public static final String PREFIX = "gpu-detect.io";
    private static final java.util.regex.Pattern DNS_SUBDOMAIN =
            java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    private final String prefix;

    public GpuDetectProfile() {
        this(PREFIX);
    }

    /** @throws IllegalArgumentException when {@code prefix} is not a DNS subdomain, as a label key prefix must be */
    public GpuDetectProfile(String prefix) {
        if (prefix.length() > 253 || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
            throw new IllegalArgumentException("label prefix '" + prefix
                    + "' is not a DNS subdomain (expected lower-case words joined by dots, like gpu-detect.io)");
        }
        this.prefix = prefix;
    }

    public String prefix() {
        return prefix;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SortedMap<String, String> labels(Inventory inventory) {
        List<Gpu> gpus = nodeGpus(inventory);
        SortedMap<String, String> out = new TreeMap<>();
        put(out, "gpu.count", String.valueOf(gpus.size()));
        long integrated = inventory.realGpus().stream().filter(Gpu::integrated).count();
        if (integrated > 0) {
            put(out, "gpu.integrated.count", String.valueOf(integrated));
        }
        FabricLabels.add(inventory.fabric(), gpus.stream().map(Gpu::pciAddress).filter(java.util.Objects::nonNull).toList(),
                out, prefix);
        if (gpus.isEmpty()) {
            return out;
        }
        TreeSet<String> vendors = gpus.stream().map(GpuFacts::vendor).collect(Collectors.toCollection(TreeSet::new));
        put(out, "gpu.vendors", String.join("_", vendors));
        for (String vendor : vendors) {
            List<Gpu> ofVendor = gpus.stream().filter(g -> GpuFacts.vendor(g).equals(vendor)).toList();
            put(out, "gpu.vendor." + vendor + ".count", String.valueOf(ofVendor.size()));
            String driver = GpuFacts.mostNumerous(GpuFacts.countBy(ofVendor, Gpu::driverVersion, LabelText::value));
            if (driver != null) {
                put(out, "gpu.vendor." + vendor + ".driver", driver);
            }
        }
        Map<String, List<Gpu>> byModel = gpus.stream()
                .collect(Collectors.groupingBy(GpuFacts::model, TreeMap::new, Collectors.toList()));
        if (byModel.size() == 1) {
            put(out, "gpu.model", byModel.keySet().iterator().next());
        }
        put(out, "gpu.mixed", String.valueOf(byModel.size() > 1));
        Integer minGi = GpuFacts.min(gpus, Gpu::memoryGi);
        if (minGi != null) {
            put(out, "gpu.memory-gi.min", String.valueOf(minGi));
        }
        byModel.forEach((model, cards) -> {
            String p = "gpu.model." + model;
            put(out, p + ".count", String.valueOf(cards.size()));
            Integer gi = GpuFacts.min(cards, Gpu::memoryGi);
            if (gi != null) {
                put(out, p + ".memory-gi", String.valueOf(gi));
            }
            String iface = GpuFacts.mostNumerous(GpuFacts.countBy(cards, Gpu::interfaceType, i -> LabelText.segment(i.id())));
            if (iface != null) {
                put(out, p + ".interface", iface);
            }
        });
        long migCapable = gpus.stream().filter(MigFacts::isMigCapable).count();
        if (migCapable > 0) {
            put(out, "gpu.mig.capable.count", String.valueOf(migCapable));
            put(out, "gpu.mig.enabled.count", String.valueOf(gpus.stream().filter(MigFacts::isMigEnabled).count()));
            put(out, "gpu.mig.instances", String.valueOf(gpus.stream()
                    .filter(MigFacts::isMigEnabled).mapToInt(g -> g.partitioning().instances().size()).sum()));
        }
        put(out, "gpu.memory.unified", String.valueOf(gpus.stream().anyMatch(g -> Gpu.UNIFIED_MEMORY.equals(g.memoryKind()))));
        if (gpus.stream().anyMatch(g -> g.pcieLink() != null && g.pcieLink().degraded() != null)) {
            // Counted only where some source read the link widths: 0 then says "checked, none degraded".
            put(out, "gpu.pcie.degraded.count", String.valueOf(gpus.stream()
                    .filter(g -> g.pcieLink() != null && Boolean.TRUE.equals(g.pcieLink().degraded())).count()));
        }
        InterconnectLabels.ownLabels(out, name -> LabelText.key(prefix, name), gpus);
        long unhealthy = gpus.stream()
                .filter(g -> g.health() != null && g.health().status() != Health.Status.OK).count();
        put(out, "gpu.unhealthy.count", String.valueOf(unhealthy));
        return out;
    }

    /**
     * The GPUs the summary describes: the discrete ones; on a node without any, the integrated ones. A processor's
     * graphics beside cards is not what the node is scheduled for, and must not make it mixed or change its
     * vendors; on a node that has nothing else (an APU mini-PC, a Jetson) it is the node's GPU, and its vendor's
     * device plugin offers it.
     */
    static List<Gpu> nodeGpus(Inventory inventory) {
        List<Gpu> real = inventory.realGpus();
        List<Gpu> discrete = real.stream().filter(g -> !g.integrated()).toList();
        return discrete.isEmpty() ? real : discrete;
    }

    private void put(SortedMap<String, String> out, String name, String value) {
        out.put(LabelText.key(prefix, name), value);
    }
}
