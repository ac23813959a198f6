package io.gpudetect.labels;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Function;

/** Small shared questions the profiles ask of a list of GPUs, answered the same way by all of them. */
final class GpuFacts {

    private GpuFacts() {
    }

    /** The model slug, or a slug of the raw name for a card the tables do not know, or {@code unknown}. */
    static String model(Gpu gpu) {
        if (gpu.model() != null && !gpu.model().isBlank()) {
            return LabelText.segment(gpu.model());
        }
        return LabelText.segment(gpu.name());
    }

    static String vendor(Gpu gpu) {
        return (gpu.vendor() == null ? Vendor.OTHER : gpu.vendor()).id();
    }

    static List<Gpu> ofVendor(Collection<Gpu> gpus, Vendor vendor) {
        return gpus.stream().filter(g -> g.vendor() == vendor).toList();
    }

    /** How many GPUs give each value of {@code key}; GPUs whose value is null are not counted. */
    static <T> TreeMap<String, Integer> countBy(Collection<Gpu> gpus, Function<Gpu, T> key, Function<T, String> text) {
        TreeMap<String, Integer> counts = new TreeMap<>();
        for (Gpu g : gpus) {
            T v = key.apply(g);
            if (v != null) {
                counts.merge(text.apply(v), 1, Integer::sum);
            }
        }
        return counts;
    }

    /**
     * The most numerous entry, ties to the first in sort order: one deterministic choice for keys that
     * hold a single value on a mixed node (GFD let map order choose, and its labels flapped).
     */
    static String mostNumerous(Map<String, Integer> counts) {
        return counts.entrySet().stream()
                .max(Comparator.<Map.Entry<String, Integer>>comparingInt(Map.Entry::getValue)
                        .thenComparing(Map.Entry::getKey, Comparator.reverseOrder()))
                .map(Map.Entry::getKey).orElse(null);
    }

    /** The smallest non-null value of a number over the GPUs, or null. */
    static <N extends Comparable<N>> N min(Collection<Gpu> gpus, Function<Gpu, N> field) {
        return gpus.stream().map(field).filter(Objects::nonNull).min(Comparator.naturalOrder()).orElse(null);
    }

    /** Numeric parts of a dotted version: {@code 535.86.05} gives {@code [535, 86, 05]} (text kept, leading zeros too). */
    static String[] versionParts(String version) {
        if (version == null || version.isBlank()) {
            return new String[0];
        }
        return version.strip().split("\\.");
    }
}
