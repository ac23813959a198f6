package io.gpudetect.k8s.dra;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.gpudetect.record.dra.DraAllocation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads a ResourceClaim's {@code status.allocation.devices.results[]} ({@code driver}, {@code pool},
 * {@code device}: the same in v1beta1, v1beta2 and v1).
 */
public final class ResourceClaims {

    private ResourceClaims() {
    }

    /** The devices allocated to the claim; empty while it is not allocated. */
    public static List<DraAllocation> allocations(GenericKubernetesResource claim) {
        Map<String, Object> status = ResourceSlices.map(claim.getAdditionalProperties().get("status"));
        Map<String, Object> devices = ResourceSlices.map(ResourceSlices.map(status.get("allocation")).get("devices"));
        String name = claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName();
        List<DraAllocation> out = new ArrayList<>();
        for (Object o : ResourceSlices.list(devices.get("results"))) {
            Map<String, Object> r = ResourceSlices.map(o);
            String driver = ResourceSlices.text(r.get("driver"));
            String pool = ResourceSlices.text(r.get("pool"));
            String device = ResourceSlices.text(r.get("device"));
            if (driver != null && pool != null && device != null) {
                out.add(new DraAllocation(driver, pool, device, name));
            }
        }
        return out;
    }

    /** Whether the claim has been allocated (an allocation, once made, stays until the claim is released). */
    public static boolean allocated(GenericKubernetesResource claim) {
        return ResourceSlices.map(claim.getAdditionalProperties().get("status")).get("allocation") != null;
    }
}
