package io.gpudetect.labels;

import io.gpudetect.model.Gpu;
import java.util.Locale;

/** What the labels need to know of NVIDIA MIG from a GPU's partitioning. */
final class MigFacts {

    private MigFacts() {
    }

    /** A card whose tool reported a MIG mode (enabled or not); a card without MIG reports none. */
    static boolean isMigCapable(Gpu gpu) {
        return gpu.partitioning() != null && "mig".equals(gpu.partitioning().kind() == null ? null
                : gpu.partitioning().kind().toLowerCase(Locale.ROOT));
    }

    static boolean isMigEnabled(Gpu gpu) {
        return isMigCapable(gpu) && Boolean.TRUE.equals(gpu.partitioning().enabled());
    }
}
