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
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.record.GpuCapacityStatus;
import java.util.List;
import java.util.Objects;

/**
 * Writes the node's {@link GpuCapacity}: created once with an owner reference to the Node, then patched
 * only where spec or status changed. The last version written is kept in memory, so a steady node costs
 * no request at all; after any error the memory is dropped and the next pass reads the record again.
 *
 * <p>An informer on the one record name ({@link #watch}) tells the sink when someone else deletes or edits
 * the record: a deletion drops the memory and asks for a pass at once, so the record is back within a
 * pass instead of after the next change; an edit replaces the memory, so the next pass puts the agent's
 * values back. In the steady state that is one open watch and no request.
 *
 * <p>A record whose owner reference names another Node uid (the Node was deleted and created again under
 * the same name, and the record outlived it) is re-owned by the current Node, so it goes away with this
 * Node and the garbage collector does not delete it for the old one.
 */
public final class CapacityRecordSink implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private GpuCapacity known;
    /** True once {@link #known} reflects the server (null then means: there is no record yet). */
    private boolean loaded;
    private SharedIndexInformer<GpuCapacity> informer;

    public CapacityRecordSink(KubernetesClient client) {
        this.client = client;
    }

    /** What this pass wrote: how many requests changed something. */
    public record Outcome(boolean created, boolean specPatched, boolean statusPatched, boolean reowned) {
        public Outcome(boolean created, boolean specPatched, boolean statusPatched) {
            this(created, specPatched, statusPatched, false);
        }

        public int writes() {
            return (created ? 1 : 0) + (specPatched ? 1 : 0) + (statusPatched ? 1 : 0) + (reowned ? 1 : 0);
        }
    }

    /**
     * Reads the record once (at start, or after an error) so that the next status can carry its
     * {@code lastGoodPass}; does nothing while the last written version is known.
     */
    public synchronized void load(String nodeName) {
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
    public synchronized Outcome sync(Node node, GpuCapacitySpec spec, boolean keepSpec, GpuCapacityStatus status) {
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
            boolean reowned = false;
            if (!created && !ownedBy(known, node)) {
                known = known().patch(PatchContext.of(PatchType.JSON), replace("/metadata/ownerReferences",
                        List.of(ownerReference(node))));
                reowned = true;
            }
            boolean specPatched = false;
            if (!created && !keepSpec && !Objects.equals(known.getSpec(), spec)) {
                known = known().patch(PatchContext.of(PatchType.JSON), replace("/spec", spec));
                specPatched = true;
            }
            boolean statusPatched = false;
            if (!Objects.equals(known.getStatus(), status)) {
                known = known().subresource("status").patch(PatchContext.of(PatchType.JSON), replace("/status", status));
                statusPatched = true;
            }
            return new Outcome(created, specPatched, statusPatched, reowned);
        } catch (RuntimeException e) {
            forget();
            throw e;
        }
    }

    /** The record as last known, as a resource to patch: fabric8 then does not GET it before each patch. */
    private Resource<GpuCapacity> known() {
        return client.resources(GpuCapacity.class).resource(known);
    }

    /**
     * Starts the informer on the record named {@code nodeName} (once; later calls do nothing) without waiting.
     * {@code onDeleted} runs on the informer's thread when the record disappears.
     */
    public synchronized void watch(String nodeName, Runnable onDeleted) {
        if (informer != null) {
            return;
        }
        informer = client.resources(GpuCapacity.class).withName(nodeName).runnableInformer(0);
        informer.exceptionHandler((started, t) -> true);
        informer.addEventHandler(new ResourceEventHandler<GpuCapacity>() {
            @Override
            public void onAdd(GpuCapacity record) {
                // Our own create, or the first list: the memory already has it or the next load reads it.
            }

            @Override
            public void onUpdate(GpuCapacity before, GpuCapacity after) {
                adoptIfForeign(after);
            }

            @Override
            public void onDelete(GpuCapacity record, boolean finalStateUnknown) {
                synchronized (CapacityRecordSink.this) {
                    forget();
                }
                onDeleted.run();
            }
        });
        informer.start();
    }

    /** An edit we did not make (its resourceVersion is not the one we wrote) becomes what the next pass compares with. */
    private synchronized void adoptIfForeign(GpuCapacity seen) {
        if (known != null && seen.getMetadata() != null && known.getMetadata() != null
                && !Objects.equals(known.getMetadata().getResourceVersion(), seen.getMetadata().getResourceVersion())) {
            known = seen;
        }
    }

    static boolean ownedBy(GpuCapacity record, Node node) {
        List<OwnerReference> owners = record.getMetadata() == null ? null : record.getMetadata().getOwnerReferences();
        return owners != null && owners.stream().anyMatch(o -> "Node".equals(o.getKind())
                && Objects.equals(o.getUid(), node.getMetadata().getUid()));
    }

    private void forget() {
        known = null;
        loaded = false;
    }

    /** The status last written or read, to carry {@code lastGoodPass} from pass to pass; null when unknown. */
    public synchronized GpuCapacityStatus knownStatus() {
        return known == null ? null : known.getStatus();
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

    @Override
    public synchronized void close() {
        if (informer != null) {
            informer.close();
            informer = null;
        }
    }
}
