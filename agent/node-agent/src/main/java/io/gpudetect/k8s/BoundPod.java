package io.gpudetect.k8s;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;
import java.util.Map;

/**
 * A pod as the agent reads it: the few fields that say which GPUs it holds (its node, its phase, its
 * containers' resources) and the metadata an informer keys its cache by. Everything else in the API's
 * answer is skipped while parsing.
 *
 * <p>Why not fabric8's {@code Pod}: its model is some 150 classes (every volume source, probe, security
 * context ...), each with a builder and a fluent class that Jackson's introspection loads too, and their
 * deserializers stay cached in the client's object mapper: ~6 MB of heap and ~450 classes for a pod informer
 * on a node with no pods at all. Cached pods also keep only name, namespace, uid and resource version of their
 * metadata (no labels, annotations or managed fields), and of their containers only those holding a GPU resource,
 * with those resources alone: a node's pods then cost the agent next to nothing (docs/performance.md, "The agent
 * in a large cluster").
 */
@Group("")
@Version("v1")
@Kind("Pod")
@Plural("pods")
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonDeserialize(using = JsonDeserializer.None.class) // a bean, not looked up by kind as KubernetesResource says
public final class BoundPod implements HasMetadata, Namespaced {

    private String apiVersion = "v1";
    private ObjectMeta metadata;
    private Spec spec;
    private Status status;

    public BoundPod() {
    }

    public BoundPod(ObjectMeta metadata, Spec spec, Status status) {
        setMetadata(metadata);
        this.spec = spec;
        this.status = status;
    }

    @Override
    public String getApiVersion() {
        return apiVersion;
    }

    @Override
    public void setApiVersion(String apiVersion) {
        this.apiVersion = apiVersion;
    }

    @Override
    public String getKind() {
        return "Pod";
    }

    /** Ignored: always {@code Pod}. */
    public void setKind(String kind) {
        // a pod is a pod
    }

    @Override
    public ObjectMeta getMetadata() {
        return metadata;
    }

    /** Keeps only what identifies this version of the pod. */
    @Override
    public void setMetadata(ObjectMeta m) {
        if (m == null) {
            metadata = null;
            return;
        }
        ObjectMeta kept = new ObjectMeta();
        kept.setName(m.getName());
        kept.setNamespace(m.getNamespace());
        kept.setUid(m.getUid());
        kept.setResourceVersion(m.getResourceVersion());
        kept.setDeletionTimestamp(m.getDeletionTimestamp());
        metadata = kept;
    }

    public Spec getSpec() {
        return spec;
    }

    public void setSpec(Spec spec) {
        this.spec = spec;
    }

    public Status getStatus() {
        return status;
    }

    public void setStatus(Status status) {
        this.status = status;
    }

    /**
     * {@code spec}: the node it is bound to, its containers that hold a GPU resource and the ResourceClaims it
     * names (DRA). A container that holds no GPU resource is not kept: the informer's cache holds every pod of the
     * node (the kubelet's default most is 110), and a GPU is what the agent counts.
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Spec(String nodeName, List<Container> containers, List<Container> initContainers,
                       List<PodResourceClaim> resourceClaims) {
        public Spec {
            containers = holdingGpus(containers);
            initContainers = holdingGpus(initContainers);
        }

        private static List<Container> holdingGpus(List<Container> all) {
            if (all == null) {
                return null;
            }
            List<Container> kept = all.stream().filter(c -> c != null && c.resources() != null
                    && (!c.resources().limits().isEmpty() || !c.resources().requests().isEmpty())).toList();
            return kept.isEmpty() ? List.of() : kept;
        }
    }

    /**
     * {@code spec.resourceClaims[]}: a claim the pod uses, named directly ({@code resourceClaimName}) or made
     * for the pod from a template (its name is then in {@link Status#resourceClaimStatuses}).
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PodResourceClaim(String name, String resourceClaimName, String resourceClaimTemplateName) {
    }

    /** A container (or init container): its name and resources. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Container(String name, Resources resources) {
    }

    /**
     * {@code resources}: limits and requests of GPU resources ({@link GpuResources#isGpuResource}) by name, never
     * null; a container's CPU, memory and other resources are not kept.
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    public record Resources(Map<String, Quantity> limits, Map<String, Quantity> requests) {
        public Resources {
            limits = gpusOnly(limits);
            requests = gpusOnly(requests);
        }

        private static Map<String, Quantity> gpusOnly(Map<String, Quantity> all) {
            if (all == null || all.isEmpty()) {
                return Map.of();
            }
            Map<String, Quantity> gpus = new java.util.TreeMap<>();
            all.forEach((name, quantity) -> {
                if (GpuResources.isGpuResource(name)) {
                    gpus.put(name, quantity);
                }
            });
            return gpus.isEmpty() ? Map.of() : Map.copyOf(gpus);
        }
    }

    /**
     * {@code status}: the phase, and the names of the ResourceClaims made for the pod: from its templates
     * ({@code resourceClaimStatuses}, Kubernetes 1.28+) and for extended resources that DRA serves
     * ({@code extendedResourceClaimStatus}, 1.34+ with DRAExtendedResource).
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Status(String phase, List<ClaimStatus> resourceClaimStatuses,
                         ExtendedResourceClaimStatus extendedResourceClaimStatus) {
    }

    /** {@code status.resourceClaimStatuses[]}: the claim made for {@code spec.resourceClaims[name]}; null name: none was needed. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ClaimStatus(String name, String resourceClaimName) {
    }

    /**
     * {@code status.extendedResourceClaimStatus}: the claim the scheduler made for the pod's extended resources
     * that a DRA driver serves, and which container's resource each request of it stands for.
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ExtendedResourceClaimStatus(String resourceClaimName, List<RequestMapping> requestMappings) {
    }

    /** {@code requestMappings[]}: container {@code containerName}'s {@code resourceName} is served by the claim. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record RequestMapping(String containerName, String resourceName) {
    }
}
