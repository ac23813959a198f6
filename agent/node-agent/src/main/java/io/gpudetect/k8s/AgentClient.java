package io.gpudetect.k8s;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonIncludeProperties;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.kubernetes.api.model.NamedExtension;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.NodeSystemInfo;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientImpl;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpudetect.record.GpuCapacity;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The node agent's Kubernetes client: fabric8 with the JDK HTTP client, made to hold only what the agent
 * uses, because it lives in every node's pod for the node's lifetime.
 *
 * <p>Its serialization knows only the kinds the agent watches ({@link Node}, {@link BoundPod} as
 * {@code v1/Pod}, {@link GpuCapacity}) and {@link Status}, which a watch sends when it ends with an error.
 * fabric8's default loads every model class listed by every model jar (a {@code ServiceLoader} over some
 * 320 kinds, each read for its annotations: ~450 classes and their heap) the first time it has to look a
 * kind up, which for the agent is its first watch event. A watch event of any other kind would be read as a
 * {@code GenericKubernetesResource}; the agent opens no such watch.
 *
 * <p>It also reads only the parts of a Node the agent uses: its metadata, {@code status.allocatable} (and
 * {@code capacity}), {@code status.conditions}, {@code spec.taints} (the health outputs write one entry of each
 * by its index) and {@code status.nodeInfo.bootID}; no object's {@code metadata.managedFields}. The rest of a Node
 * (the rest of its spec, images, the rest of the node info, addresses ...) is skipped while parsing, so neither its deserializers (~0.6 MB of heap
 * for some twenty model types) nor the cached Node's copy of it stay in memory. A Node read through this
 * client is for reading those fields and patching by JSON patch, never for writing back whole.
 *
 * <p>Its two thread pools (the JDK HTTP client's, and fabric8's for informer callbacks) are unbounded like
 * fabric8's defaults, but an idle thread ends after {@link #IDLE_SECONDS} instead of 60 s: in the steady state
 * a pass sends nothing and the watches are quiet, so between passes the agent keeps no pool thread at all
 * (each costs its stack and the JVM's per-thread memory, ~100 KB), where the defaults kept the seven or
 * nine that the start-up burst made for a minute after each burst.
 *
 * <p>What each of these saves: docs/performance.md, "Start-up and footprint tricks", rows "agent's client
 * knows only its kinds", "Node read for its metadata and resources only" and "idle pool threads end after 5 s".
 */
public final class AgentClient {

    /** How long an idle pool thread waits for work before it ends. */
    static final int IDLE_SECONDS = 5;

    private AgentClient() {
    }

    /**
     * The configuration kubectl would use (in-cluster service account, else {@code KUBECONFIG} or
     * {@code ~/.kube/config}), read without fabric8's scan of every model jar: fabric8 reads a kubeconfig's
     * {@code extensions} entries with its kind-looking deserializer, and building that deserializer for its
     * shared JSON mapper loads all ~320 registered kinds (see the class comment), in the agent's process only
     * for this. Here an extension is read as plain JSON (the agent reads none); nothing else in a kubeconfig
     * names a kind. In a pod (service account, no kubeconfig) nothing is parsed at all.
     */
    public static Config autoConfigure() {
        readExtensionsAsPlainJson();
        return Config.autoConfigure(null);
    }

    /** As {@link #autoConfigure()}, from the text of a kubeconfig file. */
    public static Config fromKubeconfig(String kubeconfig) {
        readExtensionsAsPlainJson();
        return Config.fromKubeconfig(kubeconfig);
    }

    @SuppressWarnings("deprecation") // Serialization.jsonMapper(): the mapper KubeConfigUtils parses with
    private static void readExtensionsAsPlainJson() {
        Serialization.jsonMapper().addMixIn(NamedExtension.class, ExtensionAsPlainJson.class);
    }

    /** Jackson mix-in for {@link ObjectMeta}: the API server's field-ownership records are not read. */
    @JsonIgnoreProperties({"managedFields"})
    abstract static class MetadataWithoutManagedFields {
    }

    /** Jackson mix-in for {@link NodeSpec}: only the taints are read (not pod CIDRs, provider id ...). */
    @JsonIncludeProperties({"taints"})
    abstract static class NodeSpecTaintsOnly {
    }

    /**
     * Jackson mix-in for {@link NodeStatus}: only the resources, the conditions and the node info (of which only the
     * boot id, {@link NodeInfoBootIdOnly}) are read.
     */
    @JsonIncludeProperties({"allocatable", "capacity", "conditions", "nodeInfo"})
    abstract static class NodeStatusResourcesAndConditions {
    }

    /** Jackson mix-in for {@link NodeSystemInfo}: only the boot id, which tells a reboot (remembered lost GPUs). */
    @JsonIncludeProperties({"bootID"})
    abstract static class NodeInfoBootIdOnly {
    }

    /** Jackson mix-in for {@link NamedExtension}: its {@code extension} read as plain JSON (maps and lists). */
    abstract static class ExtensionAsPlainJson {
        @JsonDeserialize(using = JsonDeserializer.None.class)
        abstract void setExtension(Object extension);
    }

    /**
     * A client for {@code config}. {@code retryAfter} sees every response (see {@link RetryAfterHint}).
     *
     * <p>Sets {@code config}'s connection timeout to 0 (none), because the JDK's HTTP client keeps the first
     * exchange of every connection it opened with a connect timeout for as long as the connection lives (its
     * {@code PlainHttpConnection} holds the connect timer, the timer its exchange, the exchange the response and
     * fabric8's handler the whole body, JDK 17 to 25). The agent's connections live as long as its watches: each
     * kept the body of the informers' first list, on a node with the kubelet's 110 pods about 0.7 MB of pods'
     * JSON for good (docs/performance.md, "The agent in a large cluster"). Without it a connection is still
     * bounded: every list, get and patch carries the request timeout ({@code requestTimeout}, 10 s unless the
     * configuration says otherwise), which in the JDK's client runs from the send, connecting included; only a
     * watch, which has no request timeout, may wait for the system's TCP connect timeout, and its informer then
     * retries as after any failed watch.
     */
    public static KubernetesClient build(Config config, RetryAfterHint retryAfter) {
        config.setConnectionTimeout(0);
        return new KubernetesClientBuilder().withConfig(config).withKubernetesSerialization(serialization())
                .withHttpClientFactory(new HttpClientFactory())
                .withTaskExecutorSupplier(new KubernetesClientBuilder.ExecutorSupplier() {
                    @Override
                    public Executor get() {
                        return pool("gpu-detect-k8s");
                    }

                    @Override
                    public void onClose(Executor executor) {
                        ((ExecutorService) executor).shutdownNow();
                    }
                })
                .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor(RetryAfterHint.NAME, retryAfter))
                .build();
    }

    /**
     * Like {@code Executors.newCachedThreadPool} (fabric8's default for both pools: no bound, so no task ever
     * waits for another to free a thread), with daemon threads that end after {@link #IDLE_SECONDS} idle.
     * Unbounded, it refuses a task only once shut down: an informer's retry that a failing request starts on a
     * pool thread while the client closes (the API server down at {@code agent --once}'s end). The refusal ends
     * that thread as before, but is not printed: the JVM's default handler wrote its stack trace after the
     * agent's last line. Anything else a pool thread lets escape is printed as before.
     */
    static ExecutorService pool(String name) {
        AtomicInteger count = new AtomicInteger();
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, IDLE_SECONDS, TimeUnit.SECONDS, new SynchronousQueue<>(),
                task -> {
                    Thread t = new Thread(task, name + "-" + count.incrementAndGet());
                    t.setDaemon(true);
                    t.setUncaughtExceptionHandler((thread, e) -> {
                        if (!(e instanceof RejectedExecutionException)) {
                            thread.getThreadGroup().uncaughtException(thread, e);
                        }
                    });
                    return t;
                });
    }

    /**
     * fabric8's JDK HTTP client, named explicitly (no {@code ServiceLoader} search of every jar for a
     * factory) and given a pool from {@link #pool}. fabric8 shares one JDK client among the clients derived
     * from it, and closing any of them closes it, pool included, as fabric8's own factory does.
     */
    static final class HttpClientFactory extends JdkHttpClientFactory {

        private final List<ExecutorService> pools = new CopyOnWriteArrayList<>();

        @Override
        protected java.net.http.HttpClient.Builder createNewHttpClientBuilder() {
            ExecutorService pool = pool("gpu-detect-http");
            pools.add(pool);
            return java.net.http.HttpClient.newBuilder().executor(pool);
        }

        @Override
        protected void closeHttpClient(JdkHttpClientImpl client) {
            for (ExecutorService pool : pools) {
                pool.shutdownNow();
            }
        }
    }

    /** JSON for the agent's kinds only, without fabric8's scan of every model jar (see the class comment). */
    public static KubernetesSerialization serialization() {
        ObjectMapper mapper = new ObjectMapper().addMixIn(ObjectMeta.class, MetadataWithoutManagedFields.class)
                .addMixIn(NodeSpec.class, NodeSpecTaintsOnly.class)
                .addMixIn(NodeStatus.class, NodeStatusResourcesAndConditions.class)
                .addMixIn(NodeSystemInfo.class, NodeInfoBootIdOnly.class);
        KubernetesSerialization serialization = new KubernetesSerialization(mapper, false);
        serialization.registerKubernetesResource(Status.class);
        serialization.registerKubernetesResource(Node.class);
        serialization.registerKubernetesResource(BoundPod.class);
        serialization.registerKubernetesResource(GpuCapacity.class);
        return serialization;
    }
}
