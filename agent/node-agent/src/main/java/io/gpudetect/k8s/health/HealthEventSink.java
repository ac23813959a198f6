package io.gpudetect.k8s.health;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpudetect.sink.Change;
import io.gpudetect.sink.DesiredState;
import io.gpudetect.sink.Sink;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Posts {@code events.k8s.io/v1} Events on the Node, one per change of a GPU's state ({@link HealthEvents}). Events
 * about a Node go in the {@code default} namespace, where the kubelet and node-problem-detector post theirs and
 * where {@code kubectl describe node} and {@code kubectl events --for node/NAME} look. Read as generic resources:
 * the agent leaves fabric8's events model out of its class path.
 */
public final class HealthEventSink implements Sink<HealthEventSink.Published, HealthEventSink.EventsChange> {

    /** The namespace of Events about cluster-scoped objects. */
    public static final String NAMESPACE = "default";
    public static final String REPORTING_CONTROLLER = "gpu-detect.io/agent";
    /** What the agent did when it noticed the change (the API requires an action). */
    public static final String ACTION = "DetectGpuHealth";
    static final ResourceDefinitionContext EVENTS = new ResourceDefinitionContext.Builder().withGroup("events.k8s.io")
            .withVersion("v1").withKind("Event").withPlural("events").withNamespaced(true).build();
    /** MicroTime, as the API writes it. */
    private static final DateTimeFormatter MICRO = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSX")
            .withZone(ZoneOffset.UTC);

    private final KubernetesClient client;

    public HealthEventSink(KubernetesClient client) {
        this.client = client;
    }

    /**
     * What the agent last published of its GPUs' health (the record's states before this pass wrote it), and the
     * Node the Events are about.
     *
     * @param nodeUid the Node's uid, so that an Event is not shown for a later Node of the same name; null unknown
     */
    public record Published(List<GpuHealthState> gpus, String nodeUid) {
    }

    /** The Events to post, as the objects sent. */
    public record EventsChange(List<GenericKubernetesResource> events) implements Change {
        @Override
        public boolean writes() {
            return !events.isEmpty();
        }

        @Override
        public String summary() {
            return events.isEmpty() ? "none" : events.stream().map(e -> String.valueOf(e.getAdditionalProperties().get("reason")))
                    .collect(Collectors.joining(",", "post=", ""));
        }

        @Override
        public String preview() {
            return events.stream().map(e -> "# would post Event in " + NAMESPACE + ":\n" + Serialization.asJson(e))
                    .collect(Collectors.joining("\n"));
        }
    }

    @Override
    public String name() {
        return "events";
    }

    /** Not read from the cluster: the pass hands the record it read ({@link HealthEvents#published}). */
    @Override
    public Published read(DesiredState desired) {
        throw new UnsupportedOperationException("the Events' basis is the record as the pass read it");
    }

    @Override
    public EventsChange decide(Published published, DesiredState desired) {
        List<HealthEvents.GpuChange> changes = HealthEvents.changes(published.gpus(), desired.health(), desired.complete());
        List<GenericKubernetesResource> events = new ArrayList<>();
        for (int i = 0; i < changes.size(); i++) {
            events.add(event(desired.nodeName(), published.nodeUid(), changes.get(i), desired.now(), i));
        }
        return new EventsChange(events);
    }

    @Override
    public int apply(EventsChange change) {
        for (GenericKubernetesResource e : change.events()) {
            client.genericKubernetesResources(EVENTS).inNamespace(NAMESPACE).resource(e).create();
        }
        return change.events().size();
    }

    /**
     * One Event. Its name is the Node's and the time in hex, as client-go names Events, plus the change's place in
     * the pass, so that two GPUs changing in one pass get two names.
     */
    static GenericKubernetesResource event(String nodeName, String nodeUid, HealthEvents.GpuChange change, Instant now,
                                           int n) {
        long nanos = now.getEpochSecond() * 1_000_000_000L + now.getNano() + n;
        GenericKubernetesResource e = new GenericKubernetesResource();
        e.setApiVersion("events.k8s.io/v1");
        e.setKind("Event");
        e.setMetadata(new ObjectMetaBuilder().withName(nodeName + "." + Long.toHexString(nanos)).withNamespace(NAMESPACE)
                .build());
        Map<String, Object> regarding = new LinkedHashMap<>();
        regarding.put("apiVersion", "v1");
        regarding.put("kind", "Node");
        regarding.put("name", nodeName);
        if (nodeUid != null) {
            regarding.put("uid", nodeUid);
        }
        e.setAdditionalProperty("eventTime", MICRO.format(now));
        e.setAdditionalProperty("reportingController", REPORTING_CONTROLLER);
        e.setAdditionalProperty("reportingInstance", instance(nodeName));
        e.setAdditionalProperty("action", ACTION);
        e.setAdditionalProperty("reason", change.reason());
        e.setAdditionalProperty("type", change.type());
        e.setAdditionalProperty("note", change.note());
        e.setAdditionalProperty("regarding", regarding);
        return e;
    }

    /** The agent on this node, within the API's 128 characters. */
    static String instance(String nodeName) {
        String instance = "gpu-detect-agent-" + nodeName;
        return instance.length() > 128 ? instance.substring(0, 128) : instance;
    }
}
