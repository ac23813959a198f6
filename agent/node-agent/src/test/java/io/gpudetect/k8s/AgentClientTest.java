package io.gpudetect.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamedExtension;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpudetect.record.GpuCapacity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentClientTest {

    private final KubernetesSerialization json = AgentClient.serialization();

    @Test
    void watchEventsOfTheWatchedKindsAreReadAsTheAgentsTypes() {
        assertInstanceOf(BoundPod.class, event("{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p\","
                + " \"namespace\": \"default\"}, \"spec\": {\"nodeName\": \"n\", \"volumes\": [{\"name\": \"v\", \"emptyDir\": {}}]}}"));
        assertInstanceOf(Node.class, event("{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"n\"}}"));
        assertInstanceOf(GpuCapacity.class, event("{\"apiVersion\": \"gpu-detect.io/v1alpha1\", \"kind\": \"GpuCapacity\","
                + " \"metadata\": {\"name\": \"n\"}}"));
        // A watch that ends with an error sends a Status: the informer must see it as one to re-list.
        assertInstanceOf(Status.class, event("{\"apiVersion\": \"v1\", \"kind\": \"Status\", \"code\": 410}"));
    }

    @Test
    void theClientOpensConnectionsWithoutAConnectTimeout() {
        // With one, the JDK's client keeps each connection's first exchange, its whole response body included, for
        // the connection's life: the informers' first lists (AgentClient.build's comment).
        Config config = new io.fabric8.kubernetes.client.ConfigBuilder(Config.empty()).withMasterUrl("http://127.0.0.1:1")
                .withConnectionTimeout(10_000).withRequestTimeout(10_000).build();
        try (var client = AgentClient.build(config, new RetryAfterHint())) {
            assertEquals(0, client.getConfiguration().getConnectionTimeout());
            assertEquals(10_000, client.getConfiguration().getRequestTimeout(), "every request keeps its timeout");
        }
    }

    @Test
    void aNodeIsReadForItsMetadataResourcesConditionsTaintsAndBootIdOnly() {
        Node node = (Node) event("{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"n\", \"uid\": \"u\","
                + " \"resourceVersion\": \"7\", \"labels\": {\"a\": \"b\"}, \"annotations\": {\"c\": \"d\"},"
                + " \"managedFields\": [{\"manager\": \"kubelet\", \"fieldsV1\": {\"f:status\": {}}}]},"
                + " \"spec\": {\"podCIDR\": \"10.0.0.0/24\", \"taints\": [{\"key\": \"k\", \"effect\": \"NoSchedule\"}]},"
                + " \"status\": {\"allocatable\": {\"nvidia.com/gpu\": \"8\"}, \"capacity\": {\"nvidia.com/gpu\": \"8\"},"
                + " \"conditions\": [{\"type\": \"Ready\", \"status\": \"True\"}], \"images\": [{\"names\": [\"x\"]}],"
                + " \"nodeInfo\": {\"kubeletVersion\": \"v1.30\", \"bootID\": \"b-1\"}}}");
        assertEquals(List.of("n", "u", "7", Map.of("a", "b"), Map.of("c", "d")), List.of(node.getMetadata().getName(),
                node.getMetadata().getUid(), node.getMetadata().getResourceVersion(), node.getMetadata().getLabels(),
                node.getMetadata().getAnnotations()));
        assertEquals(Map.of("nvidia.com/gpu", 8L), GpuResources.allocatable(node));
        assertEquals(new Quantity("8"), node.getStatus().getCapacity().get("nvidia.com/gpu"));
        assertEquals(List.of(), node.getMetadata().getManagedFields());
        // The health outputs write one condition and one taint by index: the lists are read, nothing else of spec.
        assertEquals(List.of("k"), node.getSpec().getTaints().stream().map(t -> t.getKey()).toList());
        assertNull(node.getSpec().getPodCIDR());
        assertEquals(List.of("Ready"), node.getStatus().getConditions().stream().map(c -> c.getType()).toList());
        // The boot id tells a reboot (the lost-GPU memory, LostGpus); the rest of the node info is skipped.
        assertEquals("b-1", node.getStatus().getNodeInfo().getBootID());
        assertNull(node.getStatus().getNodeInfo().getKubeletVersion());
        assertEquals(Map.of(), node.getStatus().getNodeInfo().getAdditionalProperties());
        assertEquals(Map.of(), node.getStatus().getAdditionalProperties(), "skipped, not kept aside");
        assertEquals(Map.of(), node.getAdditionalProperties());
    }

    @Test
    void noOtherKindIsLoaded() {
        assertNull(json.getRegisteredKubernetesResource("v1", "LimitRange"));
        assertNull(json.getRegisteredKubernetesResource("apps/v1", "Deployment"));
        assertInstanceOf(GenericKubernetesResource.class,
                event("{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"c\"}}"));
    }

    @Test
    void aKubeconfigExtensionIsReadAsPlainJson() throws Exception {
        // The mix-in must match fabric8's setter, or it is silently ignored and the kind scan comes back.
        ObjectMapper mapper = new ObjectMapper().addMixIn(NamedExtension.class, AgentClient.ExtensionAsPlainJson.class);
        NamedExtension e = mapper.readValue("{\"name\": \"x\", \"extension\": {\"kind\": \"Unknown\", \"a\": 1}}",
                NamedExtension.class);
        assertEquals(Map.of("kind", "Unknown", "a", 1), e.getExtension());
    }

    @Test
    void configuresFromAKubeconfigWithExtensions(@TempDir Path dir) throws Exception {
        Path kubeconfig = dir.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "https://10.0.0.1:6443", extensions: [{name: x, extension: {kind: Unknown}}]}}]
                users: [{name: u, user: {token: t}}]
                contexts: [{name: c, context: {cluster: c, user: u, extensions: [{name: y, extension: {a: 1}}]}}]
                current-context: c
                """);
        Config config = AgentClient.fromKubeconfig(Files.readString(kubeconfig));
        assertEquals("https://10.0.0.1:6443/", config.getMasterUrl());
        assertEquals("c", config.getCurrentContext().getName());
    }

    @Test
    void poolThreadsAreDaemonsThatEndWhenIdle() throws Exception {
        ThreadPoolExecutor pool = (ThreadPoolExecutor) AgentClient.pool("test-pool");
        try {
            assertEquals(0, pool.getCorePoolSize());
            assertEquals(AgentClient.IDLE_SECONDS, pool.getKeepAliveTime(TimeUnit.SECONDS));
            Thread thread = CompletableFuture.supplyAsync(Thread::currentThread, pool).get(10, TimeUnit.SECONDS);
            assertTrue(thread.isDaemon());
            assertEquals("test-pool-1", thread.getName());
        } finally {
            pool.shutdownNow();
        }
    }

    private Object event(String object) {
        return json.unmarshal("{\"type\": \"ADDED\", \"object\": " + object + "}", WatchEvent.class).getObject();
    }
}
