package io.gpudetect.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GpuResourcesTest {

    @Test
    void allocatableKeepsOnlyGpuResources() {
        var node = new NodeBuilder().withNewStatus().addToAllocatable("nvidia.com/gpu", new Quantity("8"))
                .addToAllocatable("gpu.intel.com/i915", new Quantity("1")).addToAllocatable("cpu", new Quantity("64"))
                .addToAllocatable("amd.com/gpu", new Quantity("2")).endStatus().build();
        assertEquals(Map.of("nvidia.com/gpu", 8L, "gpu.intel.com/i915", 1L, "amd.com/gpu", 2L),
                GpuResources.allocatable(node));
    }

    @Test
    void requestedCountsLiveLiveGpuPodsAsTheSchedulerDoes() {
        Pod running = pod("Running", List.of(gpu("nvidia.com/gpu", "2", true), gpu("nvidia.com/gpu", "1", false)),
                List.of(gpu("nvidia.com/gpu", "4", true)));
        Pod pending = pod("Pending", List.of(gpu("amd.com/gpu", "1", false)), List.of());
        Pod done = pod("Succeeded", List.of(gpu("nvidia.com/gpu", "8", true)), List.of());
        Pod failed = pod("Failed", List.of(gpu("nvidia.com/gpu", "8", true)), List.of());
        // Running pod: containers sum to 3, its init container needs 4: the pod holds 4.
        assertEquals(Map.of("nvidia.com/gpu", 4L, "amd.com/gpu", 1L),
                GpuResources.requested(List.of(running, pending, done, failed)));
    }

    private static Container gpu(String resource, String n, boolean asLimitOnly) {
        var b = new ContainerBuilder().withName("c").withNewResources();
        if (asLimitOnly) {
            b.addToLimits(resource, new Quantity(n));
        } else {
            b.addToRequests(resource, new Quantity(n)).addToLimits(resource, new Quantity(n));
        }
        return b.endResources().build();
    }

    private static Pod pod(String phase, List<Container> containers, List<Container> init) {
        return new PodBuilder().withNewSpec().withContainers(containers).withInitContainers(init).endSpec()
                .withNewStatus().withPhase(phase).endStatus().build();
    }
}
