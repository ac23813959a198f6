package io.gpudetect.k8s.dra;

import io.gpudetect.k8s.BoundPod;
import java.util.List;
import java.util.TreeSet;

/** The ResourceClaims a pod holds, by name in its namespace. */
public final class PodClaims {

    private PodClaims() {
    }

    /**
     * The names of the claims {@code pod} holds: those its spec names directly, those made for it from
     * templates ({@code status.resourceClaimStatuses}) and the one made for its DRA-served extended resources
     * ({@code status.extendedResourceClaimStatus}). None for a pod that has ended (Succeeded or Failed): its
     * claims are released.
     */
    public static List<String> of(BoundPod pod) {
        BoundPod.Status status = pod.getStatus();
        String phase = status == null ? null : status.phase();
        if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
            return List.of();
        }
        boolean named = pod.getSpec() != null && pod.getSpec().resourceClaims() != null
                && !pod.getSpec().resourceClaims().isEmpty();
        boolean made = status != null && (status.resourceClaimStatuses() != null && !status.resourceClaimStatuses().isEmpty()
                || status.extendedResourceClaimStatus() != null);
        if (!named && !made) {
            // Most pods on a node hold no claim: asked of every pod at every pass (a node may have 110), in the
            // interpreter (docs/performance.md, "The agent in a large cluster").
            return List.of();
        }
        TreeSet<String> names = new TreeSet<>();
        if (pod.getSpec() != null && pod.getSpec().resourceClaims() != null) {
            for (BoundPod.PodResourceClaim c : pod.getSpec().resourceClaims()) {
                if (c != null && c.resourceClaimName() != null) {
                    names.add(c.resourceClaimName());
                }
            }
        }
        if (status != null && status.resourceClaimStatuses() != null) {
            for (BoundPod.ClaimStatus c : status.resourceClaimStatuses()) {
                if (c != null && c.resourceClaimName() != null) {
                    names.add(c.resourceClaimName());
                }
            }
        }
        if (status != null && status.extendedResourceClaimStatus() != null
                && status.extendedResourceClaimStatus().resourceClaimName() != null) {
            names.add(status.extendedResourceClaimStatus().resourceClaimName());
        }
        return List.copyOf(names);
    }
}
