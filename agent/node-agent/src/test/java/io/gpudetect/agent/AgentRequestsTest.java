package io.gpudetect.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.gpudetect.inventory.Inventories;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.k8s.AgentClient;
import io.gpudetect.k8s.BoundPod;
import io.gpudetect.k8s.NodeView;
import io.gpudetect.k8s.RetryAfterHint;
import io.gpudetect.k8s.dra.DraApi;
import io.gpudetect.k8s.dra.DraShapes;
import io.gpudetect.k8s.dra.NodeSelectorIgnoringMock;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.testing.MutableClock;
import io.gpudetect.testing.NodePods;
import io.gpudetect.testing.Observations;
import io.gpudetect.testing.Profiles;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What one agent asks of the API server, counted from the mock server's request log: its client as in production
 * ({@link AgentClient}), a node with the kubelet's most pods ({@link NodePods}: 110, ten of them holding a GPU) and a
 * DRA ResourceSlice. At start: one list and one watch each of its Node, its record, its node's pods and its node's
 * slices, the discovery of {@code resource.k8s.io}, and the first pass's writes; then a steady pass sends nothing,
 * and a heartbeat is one status patch. docs/provider.md ("The agent's load on the API server") builds its per-hour
 * and 5,000-node figures on these counts.
 */
class AgentRequestsTest {

    private static final String NODE = "gpu-node-1";
    private static final int GPU_PODS = 10;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private NodeSelectorIgnoringMock mock;
    private KubernetesClient client;
    private NodeAgent agent;
    private NodeView view;

    @BeforeEach
    void cluster() {
        mock = new NodeSelectorIgnoringMock();
        mock.server.expectCustomResource(CustomResourceDefinitionContext.fromCustomResourceType(GpuCapacity.class));
        mock.server.expect().get().withPath("/apis/resource.k8s.io").andReturn(200, DraShapes.apiGroup("v1")).always();
        mock.client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).withUid("uid-1").endMetadata()
                .withNewStatus().addToAllocatable("nvidia.com/gpu", new Quantity("8")).endStatus().build()).create();
        for (int p = 0; p < NodePods.KUBELET_MAX_PODS; p++) {
            Pod pod = Serialization.unmarshal(NodePods.pod(NODE, p, p < GPU_PODS), Pod.class);
            mock.client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
        }
        mock.client.genericKubernetesResources(new DraApi("v1").slices())
                .resource(Serialization.unmarshal(NodePods.slice(NODE, 8), GenericKubernetesResource.class)).create();
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://localhost:" + mock.server.getPort())
                .withRequestRetryBackoffLimit(0).build();
        client = AgentClient.build(config, new RetryAfterHint());
        requests();
    }

    @AfterEach
    void close() {
        if (agent != null) {
            agent.close();
        }
        if (view != null) {
            view.close();
        }
        client.close();
        mock.close();
    }

    @Test
    void atStartOneListAndOneWatchOfEachThenNothingUntilTheHeartbeat() throws Exception {
        agent = new NodeAgent(AgentSettings.defaults(NODE, Profiles.of("gpu-detect"), "test"),
                Observations.of(() -> EIGHT_H100), client, new RetryAfterHint(),
                new AgentLog(new PrintWriter(new StringWriter()), clock), new AgentMetrics(),
                new PrintWriter(new StringWriter()), clock);
        agent.start();
        // As AgentLoop does: the first pass right after the informers started, before they may have synced.
        PassReport first = agent.pass();
        assertNull(first.error(), "the first pass wrote what it needed");
        awaitSteady();
        List<String> atStart = requests();
        System.out.println("AgentRequestsTest: requests at start (the first pass and the informers' lists and watches):");
        atStart.forEach(r -> System.out.println("  " + r));

        Map<String, Integer> watches = count(atStart, r -> r.startsWith("GET ") && r.contains("watch=true"));
        assertEquals(Map.of(
                        "GET /api/v1/nodes?fieldSelector=metadata.name=" + NODE, 1,
                        "GET /api/v1/pods?fieldSelector=spec.nodeName=" + NODE, 1,
                        "GET /apis/gpu-detect.io/v1alpha1/gpucapacities?fieldSelector=metadata.name=" + NODE, 1,
                        "GET /apis/resource.k8s.io/v1/resourceslices?fieldSelector=spec.nodeName=" + NODE, 1),
                watches, "one watch each: the Node by name, the node's pods and slices by field selector, the record by name");
        for (String watch : atStart) {
            if (watch.contains("watch=true")) {
                assertTrue(watch.contains("timeoutSeconds=600") && watch.contains("allowWatchBookmarks=true"), watch);
            }
        }
        Map<String, Integer> writes = count(atStart, r -> !r.startsWith("GET "));
        assertEquals(Map.of("PATCH /api/v1/nodes/" + NODE, 1, "PATCH /api/v1/nodes/" + NODE + "/status", 1,
                        "POST /apis/gpu-detect.io/v1alpha1/gpucapacities", 1,
                        "PATCH /apis/gpu-detect.io/v1alpha1/gpucapacities/" + NODE + "/status", 1), writes,
                "the first pass patches the Node's labels and its GpuHealthy condition, creates the record and writes"
                        + " its status (a create cannot)");
        Map<String, Integer> reads = count(atStart, r -> r.startsWith("GET ") && !r.contains("watch=true"));
        assertEquals(1, reads.getOrDefault("GET /apis/resource.k8s.io", 0), "discovery asked once: " + reads);
        int reads1 = reads.values().stream().mapToInt(Integer::intValue).sum();
        // Four informers' lists, discovery, and what the first pass read itself while an informer had not synced
        // (its Node, pods, slices, record: at most one read each).
        assertTrue(reads1 >= 5 && reads1 <= 9, "reads at start: " + reads);

        for (int i = 0; i < 4; i++) {
            clock.advance(Duration.ofSeconds(60));
            agent.pass();
        }
        assertEquals(List.of(), requests(), "steady passes at a 60 s interval send nothing");
        // The record was written at the start; its heartbeat falls due five minutes later.
        clock.advance(Duration.ofSeconds(60));
        agent.pass();
        assertEquals(List.of("PATCH /apis/gpu-detect.io/v1alpha1/gpucapacities/" + NODE + "/status"), requests(),
                "a heartbeat is one status patch");
        for (int i = 0; i < 4; i++) {
            clock.advance(Duration.ofSeconds(60));
            agent.pass();
        }
        assertEquals(List.of(), requests(), "nothing again until the next heartbeat");
    }

    @Test
    void theInformersKeepOnlyWhatTheAgentReadsOfEachPod() throws Exception {
        view = new NodeView(client, NODE);
        view.start(uid -> { }, (what, t) -> { });
        List<BoundPod> cached = List.of();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (cached.size() < NodePods.KUBELET_MAX_PODS && System.nanoTime() < deadline) {
            Thread.sleep(50);
            cached = view.pods();
        }
        assertEquals(NodePods.KUBELET_MAX_PODS, cached.size());
        int gpuContainers = 0;
        for (BoundPod pod : cached) {
            assertEquals(List.of("name", "namespace", "resourceVersion", "uid"), setFields(pod.getMetadata()),
                    "a cached pod's metadata: no labels, annotations, owners or managed fields");
            for (BoundPod.Container c : pod.getSpec().containers()) {
                gpuContainers++;
                assertEquals(Map.of("nvidia.com/gpu", new Quantity("1")), c.resources().limits(), c.name());
                assertEquals(Map.of("nvidia.com/gpu", new Quantity("1")), c.resources().requests(), c.name());
            }
            assertEquals("Running", pod.getStatus().phase());
        }
        assertEquals(GPU_PODS, gpuContainers, "only containers holding a GPU are kept, with their GPU resources alone");
    }

    /** The metadata fields that hold something. */
    @SuppressWarnings({"unchecked", "deprecation"}) // Serialization.jsonMapper(): a plain mapper for a test's look
    private static List<String> setFields(io.fabric8.kubernetes.api.model.ObjectMeta m) {
        List<String> set = new ArrayList<>();
        Map<String, Object> fields = new TreeMap<>(Serialization.jsonMapper().convertValue(m, Map.class));
        fields.forEach((k, v) -> {
            if (v != null && !(v instanceof Map<?, ?> map && map.isEmpty()) && !(v instanceof List<?> l && l.isEmpty())) {
                set.add(k);
            }
        });
        return set;
    }

    /** Passes until one sends nothing: every informer has synced and the record sink holds the record. */
    private void awaitSteady() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        // First the informers' lists and watches, with no pass: the agent's next pass comes a minute after its
        // first, and passes run back to back here would each read what an informer has not synced yet (on a
        // loaded machine ten reads of the pods, where an agent makes one).
        int seen = -1;
        while (System.nanoTime() < deadline && mock.server.getRequestCount() != seen) {
            seen = mock.server.getRequestCount();
            Thread.sleep(1_500);
        }
        while (System.nanoTime() < deadline) {
            Thread.sleep(200);
            int before = mock.server.getRequestCount();
            agent.pass();
            if (mock.server.getRequestCount() == before) {
                return;
            }
        }
    }

    /** The requests since the last call, as METHOD PATH with the query decoded; the informers' watch requests too. */
    private List<String> requests() {
        List<String> seen = new ArrayList<>();
        RecordedRequest r;
        try {
            while ((r = mock.server.takeRequest(100, TimeUnit.MILLISECONDS)) != null) {
                seen.add(r.getMethod() + " " + URLDecoder.decode(r.getPath(), StandardCharsets.UTF_8));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return seen;
    }

    /** The requests that {@code keep}, by method, path and field selector (the rest of the query left out). */
    private static Map<String, Integer> count(List<String> requests, java.util.function.Predicate<String> keep) {
        Map<String, Integer> out = new TreeMap<>();
        for (String r : requests) {
            if (!keep.test(r)) {
                continue;
            }
            int q = r.indexOf('?');
            String key = q < 0 ? r : r.substring(0, q);
            if (q >= 0) {
                for (String param : r.substring(q + 1).split("&")) {
                    if (param.startsWith("fieldSelector=")) {
                        key += "?" + param;
                    }
                }
            }
            out.merge(key, 1, Integer::sum);
        }
        return out;
    }

    private static final Inventory EIGHT_H100 = eightH100();

    private static Inventory eightH100() {
        List<Gpu> gpus = new ArrayList<>();
        for (int g = 0; g < 8; g++) {
            gpus.add(Gpu.builder("test").vendor(Vendor.NVIDIA).model("h100")
                    .pciAddress(PciAddress.of(String.format("0000:%02x:00.0", 0x18 + g * 0x10)))
                    .uuid(String.format("GPU-4f1c2b3a-%04d-4e5f-8a9b-0c1d2e3f4a5b", g)).build());
        }
        return Inventories.of("test", gpus, List.of(), List.of());
    }
}
