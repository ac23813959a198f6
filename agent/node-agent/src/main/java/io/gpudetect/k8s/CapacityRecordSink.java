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
import io.gpudetect.record.CapacityRecords;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.record.GpuCapacityStatus;
import io.gpudetect.sink.Change;
import io.gpudetect.sink.DesiredState;
import io.gpudetect.sink.Sink;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * The node's {@link GpuCapacity}: created once with an owner reference to the Node, then patched only where
 * spec or status changed. The last version written is kept in memory, so a steady node costs no request at
 * all; after any error the memory is dropped and the next pass reads the record again.
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
public final class CapacityRecordSink
        implements Sink<CapacityRecordSink.Held, CapacityRecordSink.RecordChange>, AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final NodeView view;
    private GpuCapacity known;
    /** True once {@link #known} reflects the server (null then means: there is no record yet). */
    private boolean loaded;
    private SharedIndexInformer<GpuCapacity> informer;

    public CapacityRecordSink(KubernetesClient client, NodeView view) {
        this.client = client;
        this.view = view;
    }

    /**
     * What to send for the record, in this order: create it (with {@code spec}), re-own it, patch its spec,
     * patch its status. A part that is null (or false) is not sent.
     *
     * @param owner the Node; null in a dry run without a cluster
     */
    public record RecordChange(String name, Node owner, boolean create, boolean reown, GpuCapacitySpec spec,
                               GpuCapacityStatus status) implements Change {
        @Override
        public boolean writes() {
            return create || reown || spec != null || status != null;
        }

        /** How many requests {@link #apply} sends for it. */
        public int requests() {
            return (create ? 1 : 0) + (reown ? 1 : 0) + (spec != null && !create ? 1 : 0) + (status != null ? 1 : 0);
        }

        @Override
        public String summary() {
            if (!writes()) {
                return "none";
            }
            StringBuilder b = new StringBuilder();
            if (create) {
                b.append("create,");
            }
            if (reown) {
                b.append("reown,");
            }
            if (spec != null && !create) {
                b.append("spec,");
            }
            if (status != null) {
                b.append("status,");
            }
            return b.substring(0, b.length() - 1);
        }

        @Override
        public String preview() {
            if (!writes()) {
                return "";
            }
            java.util.Map<String, Object> parts = new java.util.LinkedHashMap<>();
            if (spec != null) {
                parts.put("spec", spec);
            }
            if (status != null) {
                parts.put("status", status);
            }
            try {
                return "# would " + (create ? "write" : "patch") + " GpuCapacity " + name + " (owned by Node " + name
                        + "):\n" + JSON.writerWithDefaultPrettyPrinter().writeValueAsString(parts);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException("GpuCapacity not serialisable", e);
            }
        }
    }

    @Override
    public String name() {
        return "gpucapacity";
    }

    /**
     * The record's owner and the record as held.
     *
     * @param owner  the Node as the pass read it; null in a dry run without a cluster (the record is then not read)
     * @param record the record as last written or read; null when there is none
     */
    public record Held(Node owner, GpuCapacity record) {
    }

    /** The record as last written or read, reading it once at start, or after an error. */
    @Override
    public synchronized Held read(DesiredState desired) {
        Node owner = view.passNode();
        if (owner == null) {
            return new Held(null, null);
        }
        load(desired.nodeName());
        return new Held(owner, known);
    }

    /**
     * The record, read once if it is not known yet (the pass's own read then costs nothing); null when there is none.
     *
     * @throws io.fabric8.kubernetes.client.KubernetesClientException when the API server cannot be read
     */
    public synchronized GpuCapacity loaded(String nodeName) {
        load(nodeName);
        return known;
    }

    /**
     * The record as held now, the very object a pass would decide from; null while it is not known (not read yet,
     * or forgotten after an error or a deletion) or there is none.
     */
    public synchronized GpuCapacity heldRecord() {
        return loaded ? known : null;
    }

    /** An incomplete pass keeps an existing spec and writes only the status; a missing record is still created. */
    @Override
    public RecordChange decide(Held current, DesiredState desired) {
        String name = desired.nodeName();
        Node node = current.owner();
        GpuCapacity held = current.record();
        GpuCapacityStatus status = desired.recordStatus().after(held == null ? null : held.getStatus());
        if (held == null) {
            return new RecordChange(name, node, true, false,
                    CapacityRecords.withHealthSince(desired.recordSpec(), null, desired.now()), status);
        }
        boolean reown = !ownedBy(held, node);
        GpuCapacitySpec wanted = CapacityRecords.withHealthSince(desired.recordSpec(), held.getSpec(), desired.now());
        GpuCapacitySpec spec = desired.complete() && !Objects.equals(held.getSpec(), wanted) ? wanted : null;
        return new RecordChange(name, node, false, reown, spec,
                Objects.equals(held.getStatus(), status) ? null : status);
    }

    @Override
    public synchronized int apply(RecordChange change) {
        try {
            if (change.create()) {
                GpuCapacity fresh = new GpuCapacity();
                fresh.setMetadata(new ObjectMetaBuilder().withName(change.name())
                        .withOwnerReferences(ownerReference(change.owner()))
                        .addToLabels("app.kubernetes.io/managed-by", "gpu-detect").build());
                fresh.setSpec(change.spec());
                known = client.resources(GpuCapacity.class).resource(fresh).create();
                loaded = true;
            }
            if (change.reown()) {
                known = known().patch(PatchContext.of(PatchType.JSON), replace("/metadata/ownerReferences",
                        List.of(ownerReference(change.owner()))));
            }
            if (change.spec() != null && !change.create()) {
                known = known().patch(PatchContext.of(PatchType.JSON), replace("/spec", change.spec()));
            }
            if (change.status() != null) {
                known = known().subresource("status").patch(PatchContext.of(PatchType.JSON),
                        replace("/status", change.status()));
            }
            return change.requests();
        } catch (RuntimeException e) {
            forget();
            throw e;
        }
    }

    /** Reads the record unless the last version written or read is known. */
    private void load(String nodeName) {
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

    /** The record as last known, as a resource to patch: fabric8 then does not GET it before each patch. */
    private Resource<GpuCapacity> known() {
        return client.resources(GpuCapacity.class).resource(known);
    }

    /**
     * Starts the informer on the record named {@code nodeName} (once; later calls do nothing) without waiting.
     * {@code onDeleted} runs on the informer's thread when the record disappears; {@code watchFailed} each time
     * the informer's list or watch fails (it retries on its own).
     */
    public synchronized void watch(String nodeName, Runnable onDeleted, BiConsumer<String, Throwable> watchFailed) {
        if (informer != null) {
            return;
        }
        informer = client.resources(GpuCapacity.class).withName(nodeName).runnableInformer(0);
        informer.exceptionHandler((started, t) -> {
            watchFailed.accept("GpuCapacity " + nodeName, t);
            return true;
        });
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
