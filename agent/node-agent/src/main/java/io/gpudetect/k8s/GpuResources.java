package io.gpudetect.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * GPU extended resources on a node ({@code nvidia.com/gpu}, {@code amd.com/gpu}, {@code gpu.intel.com/*}):
 * what the Node advertises and what the pods bound to it request. Pure functions over API objects.
 */
public final class GpuResources {

    private GpuResources() {
    }

    public static boolean isGpuResource(String name) {
        return name.equals("nvidia.com/gpu") || name.startsWith("nvidia.com/mig-") || name.equals("amd.com/gpu")
                || name.startsWith("gpu.intel.com/");
    }

    /** The node's {@code status.allocatable} GPU resources. */
    public static SortedMap<String, Long> allocatable(Node node) {
        SortedMap<String, Long> out = new TreeMap<>();
        if (node == null || node.getStatus() == null || node.getStatus().getAllocatable() == null) {
            return out;
        }
        node.getStatus().getAllocatable().forEach((k, q) -> {
            if (isGpuResource(k)) {
                out.put(k, whole(q));
            }
        });
        return out;
    }

    /**
     * GPU resources requested by pods that still hold them (phase not Succeeded or Failed): per pod the
     * larger of the containers' sum and the largest init container, as the scheduler counts; a limit stands
     * in for a missing request, as Kubernetes defaults it for extended resources. A container's resource that
     * a DRA driver serves ({@code status.extendedResourceClaimStatus}) is left out: its device is counted from
     * the claim, as DRA's, and no device plugin gave it.
     */
    public static SortedMap<String, Long> requested(Collection<BoundPod> pods) {
        SortedMap<String, Long> out = new TreeMap<>();
        for (BoundPod pod : pods) {
            String phase = pod.getStatus() == null ? null : pod.getStatus().phase();
            if ("Succeeded".equals(phase) || "Failed".equals(phase) || pod.getSpec() == null) {
                continue;
            }
            if (list(pod.getSpec().containers()).isEmpty() && list(pod.getSpec().initContainers()).isEmpty()) {
                // A cached pod keeps only containers that hold a GPU resource (BoundPod.Spec): most pods have none,
                // and this runs for every pod of the node at every pass.
                continue;
            }
            java.util.Set<String> servedByDra = new java.util.HashSet<>();
            if (pod.getStatus() != null && pod.getStatus().extendedResourceClaimStatus() != null) {
                for (BoundPod.RequestMapping m : list(pod.getStatus().extendedResourceClaimStatus().requestMappings())) {
                    servedByDra.add(m.containerName() + "/" + m.resourceName());
                }
            }
            Map<String, Long> sum = new TreeMap<>();
            for (BoundPod.Container c : list(pod.getSpec().containers())) {
                requests(c).forEach((k, v) -> {
                    if (!servedByDra.contains(c.name() + "/" + k)) {
                        sum.merge(k, v, Long::sum);
                    }
                });
            }
            for (BoundPod.Container c : list(pod.getSpec().initContainers())) {
                requests(c).forEach((k, v) -> {
                    if (!servedByDra.contains(c.name() + "/" + k)) {
                        sum.merge(k, v, Math::max);
                    }
                });
            }
            sum.forEach((k, v) -> out.merge(k, v, Long::sum));
        }
        return out;
    }

    private static Map<String, Long> requests(BoundPod.Container c) {
        Map<String, Long> out = new TreeMap<>();
        if (c == null || c.resources() == null) {
            return out;
        }
        Map<String, Quantity> limits = c.resources().limits();
        Map<String, Quantity> requests = c.resources().requests();
        if (limits != null) {
            limits.forEach((k, q) -> {
                if (isGpuResource(k)) {
                    out.put(k, whole(q));
                }
            });
        }
        if (requests != null) {
            requests.forEach((k, q) -> {
                if (isGpuResource(k)) {
                    out.put(k, whole(q));
                }
            });
        }
        return out;
    }

    private static <T> List<T> list(List<T> l) {
        return l == null ? List.of() : l;
    }

    private static long whole(Quantity q) {
        return Quantity.getAmountInBytes(q).longValue();
    }
}
