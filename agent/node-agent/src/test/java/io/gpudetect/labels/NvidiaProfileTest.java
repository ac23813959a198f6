package io.gpudetect.labels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gpudetect.inventory.Inventories;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.labels.NvidiaProfile.MigStrategy;
import io.gpudetect.labels.NvidiaProfile.Settings;
import io.gpudetect.labels.NvidiaProfile.SharingStrategy;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Partition;
import io.gpudetect.model.Partitioning;
import io.gpudetect.model.Vendor;
import java.util.List;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/**
 * The nvidia profile under GFD's MIG strategies and sharing, with the values GFD's {@code internal/lm}
 * (k8s-device-plugin {@code 1b826acc}: resource.go, mig-strategy.go, nvml.go) gives for the same cards.
 */
class NvidiaProfileTest {

    private static Gpu a100(boolean migOn, String... profiles) {
        List<Partition> slices = java.util.Arrays.stream(profiles)
                .map(p -> new Partition(p, 1, 0, p.startsWith("1g") ? 4864L : 19968L, p.startsWith("1g") ? 14 : 42, null)).toList();
        return Gpu.builder("nvml").vendor(Vendor.NVIDIA).name("NVIDIA A100-SXM4-40GB").memoryMiB(40960L)
                .computeCapability("8.0").driverVersion("550.54.15").runtimeVersion("12.4").pciClass("0302")
                .partitioning(new Partitioning("mig", migOn, migOn, slices)).build();
    }

    private static SortedMap<String, String> labels(Settings s, String machine, Gpu... gpus) {
        return new NvidiaProfile(s).labels(Inventories.of("test", List.of(gpus), List.of(), List.of(), machine));
    }

    @Test
    void defaultConfigurationOnAShapeLikeGfdsOwnTest() {
        SortedMap<String, String> l = labels(Settings.DEFAULT, "ProLiant DL380 Gen10/Plus", a100(false));
        // machine-type.go sanitise: '/' deleted, spaces joined by '-'.
        assertEquals("ProLiant-DL380-Gen10Plus", l.get("nvidia.com/gpu.machine"));
        assertEquals("compute", l.get("nvidia.com/gpu.mode"));
        assertEquals("NVIDIA-A100-SXM4-40GB", l.get("nvidia.com/gpu.product"));
        assertEquals("1", l.get("nvidia.com/gpu.replicas"));
        assertEquals("none", l.get("nvidia.com/gpu.sharing-strategy"));
        assertEquals("ampere", l.get("nvidia.com/gpu.family"));
        assertEquals("550", l.get("nvidia.com/cuda.driver.major"));
        assertEquals("15", l.get("nvidia.com/cuda.driver.rev"));
        assertEquals("12", l.get("nvidia.com/cuda.runtime.major"));
        assertFalse(l.containsKey("nvidia.com/mig.strategy"));
    }

    /**
     * GFD writes no {@code nvidia.com/gpu.present}; the GPU Operator's NFD rule and Akash's operator own it
     * (docs/labels.md, profile {@code nvidia}): the profile never writes it, on any card or MIG layout.
     */
    @Test
    void leavesGpuPresentToItsOwners() {
        for (Gpu gpu : List.of(a100(false), a100(true, "1g.5gb"), a100(true, "3g.20gb", "3g.20gb"))) {
            for (Settings s : List.of(Settings.DEFAULT, new Settings(MigStrategy.MIXED, SharingStrategy.NONE, 1))) {
                SortedMap<String, String> l = labels(s, null, gpu);
                assertEquals("NVIDIA-A100-SXM4-40GB", l.get("nvidia.com/gpu.product").replace("-MIG-INVALID", ""));
                assertFalse(l.containsKey("nvidia.com/gpu.present"), l.toString());
            }
        }
    }

    @Test
    void timeSlicingAppendsSharedAndWritesReplicas() {
        SortedMap<String, String> l = labels(new Settings(MigStrategy.NONE, SharingStrategy.TIME_SLICING, 4), null, a100(false));
        assertEquals("NVIDIA-A100-SXM4-40GB-SHARED", l.get("nvidia.com/gpu.product"));
        assertEquals("4", l.get("nvidia.com/gpu.replicas"));
        assertEquals("time-slicing", l.get("nvidia.com/gpu.sharing-strategy"));
        assertEquals("false", l.get("nvidia.com/mps.capable"));
        assertEquals("unknown", l.get("nvidia.com/gpu.machine"));
        SortedMap<String, String> mps = labels(new Settings(MigStrategy.NONE, SharingStrategy.MPS, 2), null, a100(false));
        assertEquals("true", mps.get("nvidia.com/mps.capable"));
        assertEquals("mps", mps.get("nvidia.com/gpu.sharing-strategy"));
        assertThrows(IllegalArgumentException.class, () -> new Settings(MigStrategy.NONE, SharingStrategy.NONE, 2));
    }

    @Test
    void migEnabledCardsHaveNoReplicasUnderStrategyNone() {
        SortedMap<String, String> l = labels(Settings.DEFAULT, null, a100(true, "1g.5gb"));
        assertEquals("0", l.get("nvidia.com/gpu.replicas"));
        assertEquals("NVIDIA-A100-SXM4-40GB", l.get("nvidia.com/gpu.product"));
        assertEquals("40960", l.get("nvidia.com/gpu.memory"));
    }

    @Test
    void singleStrategyDescribesTheOneProfile() {
        SortedMap<String, String> l = labels(new Settings(MigStrategy.SINGLE, SharingStrategy.NONE, 1), null,
                a100(true, "1g.5gb", "1g.5gb"), a100(true, "1g.5gb"));
        assertEquals("single", l.get("nvidia.com/mig.strategy"));
        assertEquals("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", l.get("nvidia.com/gpu.product"));
        assertEquals("3", l.get("nvidia.com/gpu.count"));
        assertEquals("1", l.get("nvidia.com/gpu.replicas"));
        assertEquals("4864", l.get("nvidia.com/gpu.memory"));
        assertEquals("14", l.get("nvidia.com/gpu.multiprocessors"));
        assertEquals("1", l.get("nvidia.com/gpu.slices.gi"));
        assertEquals("1", l.get("nvidia.com/gpu.slices.ci"));
        assertEquals("ampere", l.get("nvidia.com/gpu.family"));
    }

    @Test
    void singleStrategyWithTwoProfilesOrAFullCardIsInvalid() {
        Settings single = new Settings(MigStrategy.SINGLE, SharingStrategy.NONE, 1);
        for (SortedMap<String, String> l : List.of(labels(single, null, a100(true, "1g.5gb", "3g.20gb")),
                labels(single, null, a100(true, "1g.5gb"), a100(false)), labels(single, null, a100(true)))) {
            assertEquals("NVIDIA-A100-SXM4-40GB-MIG-INVALID", l.get("nvidia.com/gpu.product"));
            assertEquals("0", l.get("nvidia.com/gpu.count"));
            assertEquals("0", l.get("nvidia.com/gpu.replicas"));
            assertEquals("", l.get("nvidia.com/gpu.sharing-strategy"));
            assertEquals("0", l.get("nvidia.com/gpu.memory"));
        }
    }

    @Test
    void mixedStrategyWritesOneResourcePerProfile() {
        SortedMap<String, String> l = labels(new Settings(MigStrategy.MIXED, SharingStrategy.NONE, 1), null,
                a100(true, "1g.5gb", "1g.5gb", "3g.20gb"), a100(false));
        assertEquals("mixed", l.get("nvidia.com/mig.strategy"));
        assertEquals("2", l.get("nvidia.com/mig-1g.5gb.count"));
        assertEquals("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", l.get("nvidia.com/mig-1g.5gb.product"));
        assertEquals("1", l.get("nvidia.com/mig-3g.20gb.count"));
        assertEquals("3", l.get("nvidia.com/mig-3g.20gb.slices.gi"));
        assertEquals("19968", l.get("nvidia.com/mig-3g.20gb.memory"));
        assertEquals("1", l.get("nvidia.com/gpu.replicas"), "a card without MIG keeps nvidia.com/gpu shareable");
        assertEquals("NVIDIA-A100-SXM4-40GB", l.get("nvidia.com/gpu.product"));
    }

    @Test
    void gfdsSanitiseDeletesWhatItDoesNotKeep() {
        assertEquals("NVIDIA-RTX-A4000A4500", NvidiaProfile.gfdValue("NVIDIA RTX A4000/A4500"));
        assertEquals("Tesla-K40m", NvidiaProfile.gfdValue("  Tesla   K40m "));
        assertEquals("NVIDIA-H100-80GB-HBM3", NvidiaProfile.gfdValue("NVIDIA H100 80GB HBM3"));
    }
}
