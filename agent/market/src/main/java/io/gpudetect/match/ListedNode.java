package io.gpudetect.match;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;

/**
 * A Node as {@code --cluster} lists it: its name, its cordon and its conditions, which is all {@link KubeNode} reads.
 * Everything else in the API server's answer is skipped while parsing: a Node as the kubelet writes it carries its
 * images, addresses, nodeInfo and managed fields (10-20 KB), which fabric8's {@code Node} would build into objects,
 * thousands of them a page.
 */
@Group("")
@Version("v1")
@Kind("Node")
@Plural("nodes")
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonDeserialize(using = JsonDeserializer.None.class) // a bean, not looked up by kind as KubernetesResource says
public final class ListedNode implements HasMetadata {

    private static final long serialVersionUID = 1L;

    private String apiVersion = "v1";
    @JsonIgnoreProperties(value = {"managedFields", "annotations", "labels", "ownerReferences"}, ignoreUnknown = true)
    private ObjectMeta metadata;
    private Spec spec;
    private Status status;

    public ListedNode() {
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
        return "Node";
    }

    /** Ignored: always {@code Node}. */
    public void setKind(String kind) {
        // a node is a node
    }

    @Override
    public ObjectMeta getMetadata() {
        return metadata;
    }

    @Override
    public void setMetadata(ObjectMeta metadata) {
        this.metadata = metadata;
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

    /** {@code spec}: whether the node is cordoned. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Spec(Boolean unschedulable) {
    }

    /** {@code status}: its conditions only. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Status(List<Condition> conditions) {
    }

    /** One condition: its type, status and reason. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Condition(String type, String status, String reason) {
    }
}
