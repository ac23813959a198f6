package io.gpudetect.k8s.dra;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.GroupVersionForDiscovery;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.List;
import java.util.Optional;

/**
 * The version of {@code resource.k8s.io} the agent reads. fabric8 7.1 models only v1alpha2, v1alpha3 and
 * v1beta1 of the group, so slices and claims are read as generic resources of the newest version the server
 * serves among {@link #READABLE}: v1 (GA in Kubernetes 1.34), else v1beta2 (1.33), else v1beta1 (1.32). Older
 * alphas (1.26-1.31) are not read: their shapes differ and DRA drivers of today do not publish them.
 */
public record DraApi(String version) {

    public static final String GROUP = "resource.k8s.io";
    /** Newest first. */
    public static final List<String> READABLE = List.of("v1", "v1beta2", "v1beta1");

    /**
     * The version to read, from the server's discovery document of the group (one request, at start);
     * empty when the server serves none of {@link #READABLE} (DRA off, or a cluster older than 1.32).
     */
    public static Optional<DraApi> served(KubernetesClient client) {
        APIGroup group = client.getApiGroup(GROUP);
        if (group == null || group.getVersions() == null) {
            return Optional.empty();
        }
        List<String> served = group.getVersions().stream().map(GroupVersionForDiscovery::getVersion).toList();
        return choose(served);
    }

    /** The newest of {@link #READABLE} among {@code served}. */
    public static Optional<DraApi> choose(List<String> served) {
        return READABLE.stream().filter(served::contains).findFirst().map(DraApi::new);
    }

    public String apiVersion() {
        return GROUP + "/" + version;
    }

    /** ResourceSlices: cluster-scoped. */
    public ResourceDefinitionContext slices() {
        return new ResourceDefinitionContext.Builder().withGroup(GROUP).withVersion(version).withKind("ResourceSlice")
                .withPlural("resourceslices").withNamespaced(false).build();
    }

    /** ResourceClaims: namespaced. */
    public ResourceDefinitionContext claims() {
        return new ResourceDefinitionContext.Builder().withGroup(GROUP).withVersion(version).withKind("ResourceClaim")
                .withPlural("resourceclaims").withNamespaced(true).build();
    }
}
