package io.gpudetect.k8s.health;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpudetect.sink.Change;
import io.gpudetect.sink.DesiredState;
import io.gpudetect.sink.Sink;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;

/**
 * The agent's DRA {@code DeviceTaintRule}s ({@link DeviceTaintRules}), read by an informer on the rules that carry
 * its node label and written one create or delete per rule. fabric8 7.1 has no model of the kind, so the rules are
 * generic resources of the newest version the server serves the kind in: {@code resource.k8s.io/v1} (the kind's
 * stable version), else {@code v1beta2} (Kubernetes 1.36), else {@code v1alpha3} (1.33 to 1.35, behind the
 * {@code DRADeviceTaints} feature gate); the three share the fields the agent writes. Where none serves it, the output
 * stays off and the agent says so once.
 */
public final class DeviceTaintRuleSink implements Sink<DeviceTaintRuleSink.Held, DeviceTaintRuleSink.RulesChange>,
        AutoCloseable {

    /** Newest first. */
    public static final List<String> VERSIONS = List.of("v1", "v1beta2", "v1alpha3");

    private final KubernetesClient client;
    private final String nodeName;
    private final DeviceTaints effect;
    private Optional<ResourceDefinitionContext> api;
    private SharedIndexInformer<GenericKubernetesResource> informer;

    public DeviceTaintRuleSink(KubernetesClient client, String nodeName, DeviceTaints effect) {
        this.client = client;
        this.nodeName = nodeName;
        this.effect = effect;
    }

    /** The agent's rules as held; {@code served} false where the cluster serves no DeviceTaintRule. */
    public record Held(boolean served, SortedMap<String, DeviceTaintRules.Rule> rules) {
    }

    /** The rules to create and delete, decided from {@code basis}. */
    public record RulesChange(DeviceTaintRules.Decision decision, String apiVersion) implements Change {
        @Override
        public boolean writes() {
            return decision.writes();
        }

        @Override
        public String summary() {
            return writes() ? "create=" + decision.create().size() + ",delete=" + decision.delete().size() : "none";
        }

        @Override
        public String preview() {
            String nl = "\n";
            return decision.delete().stream().map(n -> "# would delete DeviceTaintRule " + n).collect(Collectors.joining(nl))
                    + (decision.delete().isEmpty() ? "" : nl)
                    + decision.create().stream().map(r -> "# would create DeviceTaintRule:" + nl
                            + Serialization.asJson(object(apiVersion, "", r))).collect(Collectors.joining(nl));
        }
    }

    /**
     * The served version of the kind, asked once (again after a failed attempt); empty where none of
     * {@link #VERSIONS} lists {@code devicetaintrules}.
     */
    public synchronized Optional<ResourceDefinitionContext> api() {
        if (api == null) {
            Optional<ResourceDefinitionContext> found = Optional.empty();
            for (String version : VERSIONS) {
                APIResourceList resources;
                try {
                    resources = client.getApiResources("resource.k8s.io/" + version);
                } catch (KubernetesClientException e) {
                    if (e.getCode() != 404) {
                        throw e;
                    }
                    resources = null; // the version is not served at all
                }
                if (resources != null && resources.getResources() != null && resources.getResources().stream()
                        .map(APIResource::getName).anyMatch("devicetaintrules"::equals)) {
                    found = Optional.of(new ResourceDefinitionContext.Builder().withGroup("resource.k8s.io")
                            .withVersion(version).withKind("DeviceTaintRule").withPlural("devicetaintrules")
                            .withNamespaced(false).build());
                    break;
                }
            }
            api = found;
        }
        return api;
    }

    /**
     * Starts the informer on the agent's rules, without waiting; false where the cluster serves no DeviceTaintRule.
     *
     * @throws KubernetesClientException when discovery fails (retried at the next pass)
     */
    public synchronized boolean start(BiConsumer<String, Throwable> watchFailed) {
        Optional<ResourceDefinitionContext> served = api();
        if (served.isEmpty()) {
            return false;
        }
        if (informer == null) {
            informer = client.genericKubernetesResources(served.get()).withLabel(DeviceTaintRules.NODE_LABEL, nodeName)
                    .runnableInformer(0);
            informer.exceptionHandler((started, t) -> {
                watchFailed.accept("devicetaintrules of " + nodeName, t);
                return true;
            });
            informer.start();
        }
        return true;
    }

    @Override
    public String name() {
        return "devicetaintrules";
    }

    /** The agent's rules: from the informer once synced, else listed (which may throw). */
    @Override
    public synchronized Held read(DesiredState desired) {
        Optional<ResourceDefinitionContext> served = api();
        if (served.isEmpty()) {
            return new Held(false, new TreeMap<>());
        }
        List<GenericKubernetesResource> items = informer != null && informer.hasSynced() ? informer.getStore().list()
                : client.genericKubernetesResources(served.get()).withLabel(DeviceTaintRules.NODE_LABEL, nodeName).list()
                        .getItems();
        SortedMap<String, DeviceTaintRules.Rule> rules = new TreeMap<>();
        for (GenericKubernetesResource r : items) {
            Map<String, String> labels = r.getMetadata().getLabels();
            if (labels != null && nodeName.equals(labels.get(DeviceTaintRules.NODE_LABEL))) {
                rules.put(r.getMetadata().getName(), parse(r));
            }
        }
        return new Held(true, rules);
    }

    @Override
    public RulesChange decide(Held held, DesiredState desired) {
        String version = api == null || api.isEmpty() ? null : api.get().getGroup() + "/" + api.get().getVersion();
        if (!held.served()) {
            return new RulesChange(new DeviceTaintRules.Decision(List.of(), List.of(),
                    "this cluster serves no DeviceTaintRule"), null);
        }
        return new RulesChange(DeviceTaintRules.decide(desired.nodeName(),
                desired.recordSpec() == null ? null : desired.recordSpec().handout(), desired.health(), effect,
                held.rules(), desired.complete()), version);
    }

    /** Deletes, then creates: a rule whose effect changed is replaced under the same name. */
    @Override
    public int apply(RulesChange change) {
        ResourceDefinitionContext served = api().orElseThrow();
        int sent = 0;
        for (String name : change.decision().delete()) {
            client.genericKubernetesResources(served).withName(name).delete();
            sent++;
        }
        for (DeviceTaintRules.Rule r : change.decision().create()) {
            client.genericKubernetesResources(served).resource(object(change.apiVersion(), nodeName, r)).create();
            sent++;
        }
        return sent;
    }

    /** The rule as sent: the agent's label, the device selected by driver, pool and name, and the taint. */
    static GenericKubernetesResource object(String apiVersion, String nodeName, DeviceTaintRules.Rule r) {
        GenericKubernetesResource o = new GenericKubernetesResource();
        o.setApiVersion(apiVersion);
        o.setKind("DeviceTaintRule");
        o.setMetadata(new ObjectMetaBuilder().withName(r.name()).addToLabels(DeviceTaintRules.NODE_LABEL, nodeName)
                .addToLabels("app.kubernetes.io/managed-by", "gpu-detect").build());
        Map<String, Object> selector = new LinkedHashMap<>();
        selector.put("driver", r.driver());
        selector.put("pool", r.pool());
        selector.put("device", r.device());
        Map<String, Object> taint = new LinkedHashMap<>();
        taint.put("key", DeviceTaintRules.TAINT_KEY);
        taint.put("value", r.value());
        taint.put("effect", r.effect());
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("deviceSelector", selector);
        spec.put("taint", taint);
        o.setAdditionalProperty("spec", spec);
        return o;
    }

    @SuppressWarnings("unchecked")
    static DeviceTaintRules.Rule parse(GenericKubernetesResource o) {
        Map<String, Object> spec = o.getAdditionalProperties().get("spec") instanceof Map<?, ?> m
                ? (Map<String, Object>) m : Map.of();
        Map<String, Object> selector = spec.get("deviceSelector") instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
        Map<String, Object> taint = spec.get("taint") instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
        return new DeviceTaintRules.Rule(o.getMetadata().getName(), text(selector.get("driver")), text(selector.get("pool")),
                text(selector.get("device")), text(taint.get("value")), text(taint.get("effect")));
    }

    private static String text(Object o) {
        return o == null ? null : o.toString();
    }

    @Override
    public synchronized void close() {
        if (informer != null) {
            informer.close();
            informer = null;
        }
    }
}
