package io.gpudetect.k8s.dra;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.gpudetect.k8s.BoundPod;
import io.gpudetect.record.dra.DraAllocation;
import io.gpudetect.record.dra.DraSlice;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The node's ResourceSlices and the allocations of the claims its pods hold, read so that a steady pass sends
 * no request:
 * <ul>
 * <li>slices: an informer on {@code resourceslices} with the field selector {@code spec.nodeName=<node>} (the API
 * server supports that selector on slices since 1.31), in the newest version the server serves ({@link DraApi});
 * <li>claims: a namespaced GET by name for each claim a pod on this node holds ({@link PodClaims}), kept while a
 * pod names it. An allocated claim is not read again: its allocation stays as it is until no pod holds it. One
 * not allocated yet is read again only when the pod that names it changed. No watch on claims: a watch cannot
 * select the claims of one node's pods, and a cluster-wide one would cost every node every claim.
 * </ul>
 * Which version the server serves is asked once, at the first read that gets an answer; a server that serves
 * none gives no slices and no request after that.
 */
public final class DraView implements AutoCloseable {

    private final KubernetesClient client;
    private final String nodeName;
    /** Null until discovery answered; then empty when DRA is not served. */
    private Optional<DraApi> api;
    private SharedIndexInformer<GenericKubernetesResource> informer;
    private BiConsumer<String, Throwable> watchFailed;
    private final Map<String, ClaimRead> claims = new HashMap<>();
    /** How many events the slice informer has handed its handlers: the parsed slices stand while it stays. */
    private final io.gpudetect.k8s.InformerChanges<GenericKubernetesResource> sliceEvents =
            new io.gpudetect.k8s.InformerChanges<>();
    /** The node's slices as last parsed from the informer's store, and the event count read before; null for none. */
    private SlicesRead lastSlices;
    /** The pods the last {@link #allocations} was asked for (the very list) and its answer; null for none. */
    private List<BoundPod> lastPods;
    private Allocations lastAllocations;

    private record SlicesRead(long events, List<DraSlice> slices) {
    }

    /** A claim as last read, and the resource version of the pod that named it then. */
    private record ClaimRead(boolean allocated, List<DraAllocation> allocations, String podVersion) {
    }

    /** The claims' allocations, and the claims that could not be read, each with why. */
    public record Allocations(List<DraAllocation> allocations, List<String> unread) {

        public Allocations {
            allocations = List.copyOf(allocations);
            unread = List.copyOf(unread);
        }
    }

    public DraView(KubernetesClient client, String nodeName) {
        this.client = client;
        this.nodeName = nodeName;
    }

    /**
     * Starts the slice informer, without waiting, once the served version is known (asking for it now). A
     * failed discovery is retried at the next {@link #slices()}.
     */
    public synchronized void start(BiConsumer<String, Throwable> watchFailed) {
        this.watchFailed = watchFailed;
        try {
            api().ifPresent(this::startInformer);
        } catch (KubernetesClientException e) {
            watchFailed.accept("resource.k8s.io discovery", e);
        }
    }

    /** The served version; asks the server once (and again after a failed attempt). */
    public synchronized Optional<DraApi> api() {
        if (api == null) {
            api = DraApi.served(client);
        }
        return api;
    }

    private void startInformer(DraApi served) {
        if (informer != null || watchFailed == null) {
            return;
        }
        informer = client.genericKubernetesResources(served.slices()).withField("spec.nodeName", nodeName)
                .runnableInformer(0);
        informer.exceptionHandler((started, t) -> {
            watchFailed.accept("resourceslices on " + nodeName, t);
            return true;
        });
        informer.addEventHandler(sliceEvents);
        informer.start();
    }

    /**
     * The node's slices, from the informer once synced, else listed from the API server (which may throw).
     * Filtered here as well as by the field selector: a server that ignores it (fabric8's mock server) must not
     * make other nodes' devices count. From the synced informer, the very list parsed at the last call while the
     * informer has handed its handlers no event since: parsing a slice of 8 GPUs at every pass was most of what a
     * DRA node's steady pass added (docs/performance.md, "Modes read in turn, pods read when they change").
     */
    public synchronized List<DraSlice> slices() {
        Optional<DraApi> served = api();
        if (served.isEmpty()) {
            return List.of();
        }
        startInformer(served.get());
        if (informer != null && informer.hasSynced()) {
            long events = sliceEvents.count();
            if (lastSlices != null && lastSlices.events() == events) {
                return lastSlices.slices();
            }
            List<DraSlice> parsed = parsed(informer.getStore().list());
            lastSlices = new SlicesRead(events, parsed);
            return parsed;
        }
        return parsed(client.genericKubernetesResources(served.get().slices()).withField("spec.nodeName", nodeName).list()
                .getItems());
    }

    private List<DraSlice> parsed(List<GenericKubernetesResource> items) {
        return List.copyOf(items.stream().filter(s -> nodeName.equals(ResourceSlices.nodeName(s))).map(ResourceSlices::parse)
                .sorted(java.util.Comparator.comparing(DraSlice::name)).toList());
    }

    /**
     * The allocations of the claims held by {@code pods} (the pods on this node). A claim that cannot be read
     * (forbidden: an older chart without the right; or the server is away) is named in {@link Allocations#unread}
     * and read again at the next pass. Asked again for the very list of the last call ({@code NodeView.pods} hands
     * the same list while its informer saw no event), with no claim unread then, the answer is the last one: a claim
     * is read again only when unread or when the pod naming it changed, and the pods did not.
     */
    public synchronized Allocations allocations(List<BoundPod> pods) {
        Optional<DraApi> served = api();
        if (served.isEmpty()) {
            claims.clear();
            return new Allocations(List.of(), List.of());
        }
        if (pods == lastPods && lastAllocations != null && lastAllocations.unread().isEmpty()) {
            return lastAllocations;
        }
        List<DraAllocation> out = new ArrayList<>();
        List<String> unread = new ArrayList<>();
        Set<String> named = new HashSet<>();
        for (BoundPod pod : pods) {
            String namespace = pod.getMetadata().getNamespace();
            String podVersion = pod.getMetadata().getResourceVersion();
            for (String claim : PodClaims.of(pod)) {
                String key = namespace + "/" + claim;
                if (!named.add(key)) {
                    continue;
                }
                ClaimRead known = claims.get(key);
                if (known == null || !known.allocated() && !java.util.Objects.equals(known.podVersion(), podVersion)) {
                    try {
                        GenericKubernetesResource read = client.genericKubernetesResources(served.get().claims())
                                .inNamespace(namespace).withName(claim).get();
                        known = read == null ? new ClaimRead(false, List.of(), podVersion)
                                : new ClaimRead(ResourceClaims.allocated(read), ResourceClaims.allocations(read), podVersion);
                        claims.put(key, known);
                    } catch (KubernetesClientException e) {
                        claims.remove(key);
                        unread.add("claim " + key + " not readable (HTTP " + e.getCode() + ")");
                        continue;
                    }
                }
                out.addAll(known.allocations());
            }
        }
        claims.keySet().retainAll(named);
        lastPods = pods;
        lastAllocations = new Allocations(out, unread);
        return lastAllocations;
    }

    @Override
    public synchronized void close() {
        if (informer != null) {
            informer.close();
            informer = null;
        }
    }
}
