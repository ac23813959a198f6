package io.gpudetect.k8s;

import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.kubernetes.api.model.NamedExtension;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpudetect.record.GpuCapacity;

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
 */
public final class AgentClient {

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
    @SuppressWarnings("deprecation") // Serialization.jsonMapper(): the mapper KubeConfigUtils parses with
    public static Config autoConfigure() {
        Serialization.jsonMapper().addMixIn(NamedExtension.class, ExtensionAsPlainJson.class);
        return Config.autoConfigure(null);
    }

    /** Jackson mix-in for {@link NamedExtension}: its {@code extension} read as plain JSON (maps and lists). */
    abstract static class ExtensionAsPlainJson {
        @JsonDeserialize(using = JsonDeserializer.None.class)
        abstract void setExtension(Object extension);
    }

    /**
     * A client for {@code config}. {@code retryAfter} sees every response (see {@link RetryAfterHint}).
     */
    public static KubernetesClient build(Config config, RetryAfterHint retryAfter) {
        return new KubernetesClientBuilder().withConfig(config).withKubernetesSerialization(serialization())
                .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor(RetryAfterHint.NAME, retryAfter))
                .build();
    }

    /** JSON for the agent's kinds only, without fabric8's scan of every model jar. */
    public static KubernetesSerialization serialization() {
        KubernetesSerialization serialization = new KubernetesSerialization(new ObjectMapper(), false);
        serialization.registerKubernetesResource(Status.class);
        serialization.registerKubernetesResource(Node.class);
        serialization.registerKubernetesResource(BoundPod.class);
        serialization.registerKubernetesResource(GpuCapacity.class);
        return serialization;
    }
}
