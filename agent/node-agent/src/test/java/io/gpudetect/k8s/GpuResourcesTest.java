package io.gpudetect.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
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
        BoundPod running = pod("Running", List.of(gpu("nvidia.com/gpu", "2", true), gpu("nvidia.com/gpu", "1", false)),
                List.of(gpu("nvidia.com/gpu", "4", true)));
        BoundPod pending = pod("Pending", List.of(gpu("amd.com/gpu", "1", false)), List.of());
        BoundPod done = pod("Succeeded", List.of(gpu("nvidia.com/gpu", "8", true)), List.of());
        BoundPod failed = pod("Failed", List.of(gpu("nvidia.com/gpu", "8", true)), List.of());
        // Running pod: containers sum to 3, its init container needs 4: the pod holds 4.
        assertEquals(Map.of("nvidia.com/gpu", 4L, "amd.com/gpu", 1L),
                GpuResources.requested(List.of(running, pending, done, failed)));
    }

    @Test
    void aResourceThatADraDriverServesIsNotCountedAsADevicePluginRequest() {
        // Kubernetes 1.34+ (DRAExtendedResource): the scheduler serves the container's nvidia.com/gpu from a
        // claim it made and says so in status.extendedResourceClaimStatus (k8s.io/api core/v1 types.go).
        Pod pod = new PodBuilder().withNewMetadata().withName("p").withNamespace("default").endMetadata().withNewSpec()
                .withNodeName("node-1").withContainers(new ContainerBuilder(gpu("nvidia.com/gpu", "1", false)).withName("a").build(),
                        new ContainerBuilder(gpu("nvidia.com/gpu", "2", false)).withName("b").build())
                .endSpec().withNewStatus().withPhase("Running").endStatus().build();
        pod.getStatus().setAdditionalProperty("extendedResourceClaimStatus", Map.of("resourceClaimName", "p-extended-resources-x2k9",
                "requestMappings", List.of(Map.of("containerName", "b", "resourceName", "nvidia.com/gpu", "requestName", "container-1-request-0"))));
        KubernetesSerialization json = new KubernetesSerialization();
        BoundPod read = json.unmarshal(json.asJson(pod), BoundPod.class);
        assertEquals(Map.of("nvidia.com/gpu", 1L), GpuResources.requested(List.of(read)), "container a's only: b's is DRA's");
        assertEquals("p-extended-resources-x2k9", read.getStatus().extendedResourceClaimStatus().resourceClaimName());
    }

    @Test
    void aBoundPodKeepsOnlyWhatTheAgentReads() {
        BoundPod p = pod("Running", List.of(gpu("nvidia.com/gpu", "2", false)), List.of());
        assertEquals("node-1", p.getSpec().nodeName());
        assertEquals("p", p.getMetadata().getName());
        assertEquals("default", p.getMetadata().getNamespace());
        assertEquals(Map.of(), p.getMetadata().getLabels());
        assertEquals(new Quantity("2"), p.getSpec().containers().get(0).resources().requests().get("nvidia.com/gpu"));
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

    /** A pod as the API server sends it (fabric8's full model, as JSON), read the way the agent reads it. */
    private static BoundPod pod(String phase, List<Container> containers, List<Container> init) {
        Pod pod = new PodBuilder().withNewMetadata().withName("p").withNamespace("default").addToLabels("app", "x")
                .endMetadata().withNewSpec().withNodeName("node-1").withContainers(containers)
                .withInitContainers(init).endSpec().withNewStatus().withPhase(phase).endStatus().build();
        KubernetesSerialization json = new KubernetesSerialization();
        return json.unmarshal(json.asJson(pod), BoundPod.class);
    }
}
