package io.gpudetect.k8s;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.record.GpuCapacityStatus;
import java.util.Objects;

/**
 * Writes the node's {@link GpuCapacity}: created once with an owner reference to the Node, then patched
 * only where spec or status changed. The last version written is kept in memory, so a steady node costs
 * no request at all; after any error the memory is dropped and the next pass reads the record again.
 */
public final class CapacityRecordSink {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private GpuCapacity known;
    /** True once {@link #known} reflects the server (null then means: there is no record yet). */
    private boolean loaded;

    public CapacityRecordSink(KubernetesClient client) {
        this.client = client;
    }

    /** What this pass wrote: how many requests changed something. */
    public record Outcome(boolean created, boolean specPatched, boolean statusPatched) {
        public int writes() {
            return (created ? 1 : 0) + (specPatched ? 1 : 0) + (statusPatched ? 1 : 0);
        }
    }

    /**
     * Reads the record once (at start, or after an error) so that the next status can carry its
     * {@code lastGoodPass}; does nothing while the last written version is known.
     */
    public void load(String nodeName) {
        if (!loaded) {
            try {
                known = client.resources(GpuCapacity.class).withName(nodeName).get();
                loaded = true;
            } catch (RuntimeException e) {
                forget();
                throw e;
            }
        }
    }

    /**
     * Brings the record to {@code spec} and {@code status}. With {@code keepSpec} (an incomplete pass) an
     * existing spec is left alone and only the status is written; a missing record is still created.
     */
    public Outcome sync(Node node, GpuCapacitySpec spec, boolean keepSpec, GpuCapacityStatus status) {
        String name = node.getMetadata().getName();
        try {
            boolean created = false;
            load(name);
            if (known == null) {
                GpuCapacity fresh = new GpuCapacity();
                fresh.setMetadata(new ObjectMetaBuilder().withName(name).withOwnerReferences(ownerReference(node))
                        .addToLabels("app.kubernetes.io/managed-by", "gpu-detect").build());
                fresh.setSpec(spec);
                known = client.resources(GpuCapacity.class).resource(fresh).create();
                created = true;
            }
            boolean specPatched = false;
            if (!created && !keepSpec && !Objects.equals(known.getSpec(), spec)) {
                known = knownResource().patch(PatchContext.of(PatchType.JSON), replace("/spec", spec));
                specPatched = true;
            }
            boolean statusPatched = false;
            if (!Objects.equals(known.getStatus(), status)) {
                known = knownResource().subresource("status").patch(PatchContext.of(PatchType.JSON),
                        replace("/status", status));
                statusPatched = true;
            }
            return new Outcome(created, specPatched, statusPatched);
        } catch (RuntimeException e) {
            forget();
            throw e;
        }
    }

    /**
     * The record's operations built from the known object, not its name: fabric8 reads a resource named only
     * by name from the server before patching it, which would add a GET to every write (every heartbeat).
     */
    private Resource<GpuCapacity> knownResource() {
        return client.resources(GpuCapacity.class).resource(known);
    }

    private void forget() {
        known = null;
        loaded = false;
    }

    /** The status last written or read, to carry {@code lastGoodPass} from pass to pass; null when unknown. */
    public GpuCapacityStatus knownStatus() {
        return known == null ? null : known.getStatus();
    }

    /** The spec last written or read; null when unknown. */
    public GpuCapacitySpec knownSpec() {
        return known == null ? null : known.getSpec();
    }

    /** The owner reference that ties the record's life to the Node's. */
    static OwnerReference ownerReference(Node node) {
        return new OwnerReferenceBuilder().withApiVersion("v1").withKind("Node")
                .withName(node.getMetadata().getName()).withUid(node.getMetadata().getUid())
                .withBlockOwnerDeletion(false).withController(true).build();
    }

    /** A JSON patch that sets one member whether or not it exists ({@code add} replaces an existing member). */
    private static String replace(String path, Object value) {
        ArrayNode ops = JSON.createArrayNode();
        ops.addObject().put("op", "add").put("path", path).set("value", JSON.valueToTree(value));
        return ops.toString();
    }
}
