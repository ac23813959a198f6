package io.gpudetect.k8s;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.gpudetect.k8s.health.HealthMarks;
import io.gpudetect.sink.NodeFacts;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The agent's view of its own Node and of the pods bound to it, kept by two informers (a watch on one
 * node name, and on pods with {@code spec.nodeName=<node>}, read as {@link BoundPod}s) instead of polling: in the steady state a pass
 * reads both from memory and sends nothing. Until an informer has synced (at start, or through an API
 * server outage) a read goes to the API server directly and may throw.
 */
public final class NodeView implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final String nodeName;
    private SharedIndexInformer<Node> nodeInformer;
    private SharedIndexInformer<BoundPod> podInformer;
    /** A version of the node newer than the informer's, see {@link #node()}; null when the cache is current. */
    private Node newer;
    /** The informer's resource version when {@link #newer} was observed (null: it had no node). */
    private String newerThan;
    /** The Node as this pass read it ({@link #readForPass}); null when there is none or it could not be read. */
    private Node passNode;
    /**
     * How many adds, updates and deletes the pod informer has handed its handlers: while it stays as it was, the
     * node's pods are as the last pass read them, and that pass's list and requests stand ({@link #pods}).
     */
    private final InformerChanges<BoundPod> podEvents = new InformerChanges<>();
    /** The node's pods as last read from the informer's store, and the event count read before it; null for none. */
    private volatile PodsRead lastPods;
    /** The GPU resources the pods of {@link #lastPods} request, and that list; null until first asked. */
    private volatile Requested lastRequested;

    private record PodsRead(long events, List<BoundPod> pods) {
    }

    private record Requested(List<BoundPod> pods, SortedMap<String, Long> requested) {
    }

    /** The facts {@link #readForPass} made last, and the very Node object and requests it made them from. */
    private volatile FactsRead lastFacts;

    private record FactsRead(Node node, SortedMap<String, Long> requested, NodeFacts facts) {
    }

    public NodeView(KubernetesClient client, String nodeName) {
        this.client = client;
        this.nodeName = nodeName;
    }

    /**
     * Starts both informers without waiting (they retry on their own while the API server is away), calling
     * {@code nodeAdded} with the Node's uid whenever the informer sees the Node added: at its first
     * list, after a re-list, and when the Node is created again after a deletion; and {@code watchFailed} with
     * what failed each time a list or watch fails (the informer then retries on its own).
     */
    public synchronized void start(Consumer<String> nodeAdded, BiConsumer<String, Throwable> watchFailed) {
        if (nodeInformer == null) {
            nodeInformer = client.nodes().withName(nodeName).runnableInformer(0);
            nodeInformer.exceptionHandler((started, t) -> {
                watchFailed.accept("node " + nodeName, t);
                return true;
            });
            nodeInformer.addEventHandler(new ResourceEventHandler<Node>() {
                @Override
                public void onAdd(Node node) {
                    nodeAdded.accept(node.getMetadata() == null ? null : node.getMetadata().getUid());
                }

                @Override
                public void onUpdate(Node before, Node after) {
                    // A re-list after a missed delete and create shows up as an update with a new uid.
                    if (before.getMetadata() != null && after.getMetadata() != null
                            && !java.util.Objects.equals(before.getMetadata().getUid(), after.getMetadata().getUid())) {
                        nodeAdded.accept(after.getMetadata().getUid());
                    }
                }

                @Override
                public void onDelete(Node node, boolean finalStateUnknown) {
                    // Nothing to label until it comes back.
                }
            });
            nodeInformer.start();
        }
        if (podInformer == null) {
            podInformer = client.resources(BoundPod.class).inAnyNamespace().withField("spec.nodeName", nodeName).runnableInformer(0);
            podInformer.exceptionHandler((started, t) -> {
                watchFailed.accept("pods on " + nodeName, t);
                return true;
            });
            podInformer.addEventHandler(podEvents);
            podInformer.start();
        }
    }

    /**
     * Reads the Node for one pass, keeps it as the version the pass's targets decide from ({@link #passNode}) and
     * returns what the pass needs of it, with the GPU resources its pods request; empty when the Node does not
     * exist. A dry run reads it from the API server ({@code fresh}), since it starts no informer.
     *
     * @throws io.fabric8.kubernetes.client.KubernetesClientException when the API server cannot be read
     */
    public Optional<NodeFacts> readForPass(boolean fresh) {
        synchronized (this) {
            passNode = null;
        }
        Node node = fresh ? fresh() : node();
        if (node == null) {
            return Optional.empty();
        }
        NodeFacts facts = facts(node, requested(pods()));
        synchronized (this) {
            passNode = node;
        }
        return Optional.of(facts);
    }

    /**
     * The facts of {@code node}, the very facts of the last pass while it read the very Node object and requests.
     * The informer's store holds a Node until an event replaces it with a new object, nothing here changes one in
     * place, and the facts are a pure function of the two: while the kubelet and everyone else leave the Node alone,
     * a pass does not copy its labels and annotations again, and the unchanged-inputs check compares the facts by
     * identity (NodeAgent.Unchanged).
     */
    private NodeFacts facts(Node node, SortedMap<String, Long> requested) {
        FactsRead last = lastFacts;
        if (last != null && last.node() == node && last.requested() == requested) {
            return last.facts();
        }
        NodeFacts facts = new NodeFacts(node.getMetadata().getUid(), node.getMetadata().getLabels(),
                node.getMetadata().getAnnotations(), GpuResources.allocatable(node), requested, HealthMarks.of(node),
                bootId(node));
        lastFacts = new FactsRead(node, requested, facts);
        return facts;
    }

    /** What {@code pods} request of GPU resources: the last answer again while the list is the very same. */
    private SortedMap<String, Long> requested(List<BoundPod> pods) {
        Requested last = lastRequested;
        if (last != null && last.pods() == pods) {
            return last.requested();
        }
        SortedMap<String, Long> requested = Collections.unmodifiableSortedMap(GpuResources.requested(pods));
        lastRequested = new Requested(pods, requested);
        return requested;
    }

    /** The boot id the kubelet reports for the node; null when it reports none. */
    static String bootId(Node node) {
        String id = node.getStatus() == null || node.getStatus().getNodeInfo() == null ? null
                : node.getStatus().getNodeInfo().getBootID();
        return id == null || id.isBlank() ? null : id;
    }

    /** The Node as the pass in progress read it; null when it has none (a dry run without a cluster). */
    public synchronized Node passNode() {
        return passNode;
    }

    /**
     * The newest Node the agent knows, for a target written after the labels in the same pass (the condition, the
     * taint): the label patch may have moved it, and a decision from the version the pass started with would be
     * refused for its resourceVersion. Null when the pass read no Node (a dry run without a cluster).
     */
    public Node newestInPass() {
        return passNode() == null ? null : node();
    }

    /**
     * The start of a JSON patch (RFC 6902) of a Node decided from the version {@code resourceVersion}: an op that sets
     * {@code metadata.resourceVersion} to it, so the API server refuses the patch (409) if the Node changed meanwhile
     * and the pass decides again ({@link #rereadAfterRefusal}). No op when null (a dry run without a cluster prints
     * the patch). The label, condition and taint patches all start so.
     */
    public static ArrayNode guardedPatch(String resourceVersion) {
        ArrayNode ops = JSON.createArrayNode();
        if (resourceVersion != null) {
            ops.addObject().put("op", "replace").put("path", "/metadata/resourceVersion").put("value", resourceVersion);
        }
        return ops;
    }

    /**
     * Sends {@code jsonPatch} as one JSON patch of {@code basis}, or of its {@code status} subresource; the Node the
     * server returns becomes the agent's view of it ({@link #observed}), newer than the informer's cache until the
     * watch delivers the change.
     */
    public void patch(Node basis, boolean status, String jsonPatch) {
        // resource(node), not withName(name): fabric8 then has the object and does not GET it before patching.
        var node = client.nodes().resource(basis);
        observed(status ? node.subresource("status").patch(PatchContext.of(PatchType.JSON), jsonPatch)
                : node.patch(PatchContext.of(PatchType.JSON), jsonPatch));
    }

    /** The resource version of the Node as the informer last saw it; null when it holds none. */
    public String cachedVersion() {
        Node node = node();
        return node == null ? null : node.getMetadata().getResourceVersion();
    }

    public String nodeName() {
        return nodeName;
    }

    /**
     * The node, from the informer once synced, else from the API server; null when it does not exist.
     * Where the agent has seen a newer version than the informer's (a write's answer, a fresh read) while
     * the informer still holds the version that was current then, the newer one is returned: after an API
     * server outage the watch resumes only some time after the first write succeeds, and a decision from
     * the stale cache would be refused.
     */
    public Node node() {
        if (nodeInformer != null && nodeInformer.hasSynced()) {
            return newestOf(nodeInformer.getStore().getByKey(nodeName));
        }
        return fresh();
    }

    /** How many times one pass decides again after the node changed under it. */
    public static final int MAX_ATTEMPTS = 5;

    /**
     * The Node to decide a refused patch of it again from, or empty when the refusal is not worth it. 409: the node
     * changed since it was read (its resourceVersion no longer matches). 422: an operation no longer applies (a
     * {@code remove} of a key someone else removed, a {@code test} of a list index that moved), which a decision
     * from a stale cache produces; from a fresh read the same refusal would be a real error, so a 422 is decided
     * again once. The label, condition and taint patches all follow this.
     */
    public Optional<Node> rereadAfterRefusal(int refusal, int attempt) {
        boolean stale = switch (refusal) {
            case 409 -> attempt < MAX_ATTEMPTS;
            case 422 -> attempt == 1;
            default -> false;
        };
        if (!stale) {
            return Optional.empty();
        }
        // A short pause before reading again, so that two writers racing for the node do not retry in lockstep.
        try {
            Thread.sleep(50L * attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Optional.ofNullable(fresh());
    }

    /** The node as the API server has it now: after a refused patch, the cache may be behind. */
    public Node fresh() {
        Node node = client.nodes().withName(nodeName).get();
        observed(node);
        return node;
    }

    /** Records {@code node} (the answer to a write or a read) as the newest version of the node seen. */
    public synchronized void observed(Node node) {
        if (node == null || nodeInformer == null) {
            newer = null;
            return;
        }
        newer = node;
        Node cached = nodeInformer.getStore().getByKey(nodeName);
        newerThan = cached == null ? null : cached.getMetadata().getResourceVersion();
    }

    /**
     * The informer's node, unless a newer version was observed while the informer held this one. Any other
     * version in the cache (the watch delivered our change, or anything after it) ends the override.
     */
    private synchronized Node newestOf(Node cached) {
        if (newer != null) {
            String cachedVersion = cached == null ? null : cached.getMetadata().getResourceVersion();
            if (java.util.Objects.equals(cachedVersion, newerThan)
                    && !java.util.Objects.equals(cachedVersion, newer.getMetadata().getResourceVersion())) {
                return newer;
            }
            newer = null;
        }
        return cached;
    }

    /**
     * Pods bound to the node, unmodifiable. Filtered here as well as by the field selector: a server that ignores the
     * selector (fabric8's mock server does) must not make other nodes' pods count. From the synced informer, the very
     * list of the last call while the informer has handed its handlers no event since: every pass asks, twice, for up
     * to 110 pods, and what it makes of them (their GPU requests here, their claims in {@code DraView}) is kept with
     * the list, in the interpreter (docs/performance.md, "Modes read in turn, pods read when they change").
     */
    public List<BoundPod> pods() {
        if (podInformer != null && podInformer.hasSynced()) {
            long events = podEvents.count();
            PodsRead last = lastPods;
            if (last != null && last.events() == events) {
                return last.pods();
            }
            List<BoundPod> bound = onThisNode(podInformer.getStore().list());
            lastPods = new PodsRead(events, bound);
            return bound;
        }
        return onThisNode(client.resources(BoundPod.class).inAnyNamespace().withField("spec.nodeName", nodeName).list()
                .getItems());
    }

    private List<BoundPod> onThisNode(List<BoundPod> pods) {
        // A loop, not a stream: up to 110 pods, in the interpreter.
        List<BoundPod> bound = new java.util.ArrayList<>(pods.size());
        for (BoundPod p : pods) {
            if (p.getSpec() != null && nodeName.equals(p.getSpec().nodeName())) {
                bound.add(p);
            }
        }
        return Collections.unmodifiableList(bound);
    }

    @Override
    public synchronized void close() {
        if (nodeInformer != null) {
            nodeInformer.close();
            nodeInformer = null;
        }
        if (podInformer != null) {
            podInformer.close();
            podInformer = null;
        }
    }
}
