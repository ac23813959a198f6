package io.gpudetect.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.gpudetect.inventory.Inventories;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.sink.DesiredState;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.Targets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The capacity record sink's decisions as a table: (record held, pass output) -> what is sent. */
@EnableKubernetesMockClient(crud = true)
class CapacityRecordSinkTest {

    /** A Tesla t4() host, from the shared recordings (the test is skipped without them). */
    static Inventory t4() {
        return Fixtures.detect(Fixtures.host("tesla-t4_515.105.01_v11"));
    }

    /** An RTX 4090 host, from the shared recordings. */
    static Inventory rtx4090() {
        return Fixtures.detect(Fixtures.host("geforce-rtx-4090_535.86.05_v12"));
    }
    /** A pass whose only probe timed out: no GPU seen, and not complete. */
    static final Inventory FAILED = Inventories.of("test", List.of(),
            List.of(new Inventory.ProbeSummary("nvidia-smi-xml", ProbeResult.Outcome.FAILED, 0)),
            List.of(Diagnostic.error("nvidia-smi-xml", "nvidia-smi.xml", null, "nvidia-smi timed out after 5s")));
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final Duration HEARTBEAT = Duration.ofMinutes(5);

    KubernetesClient client;
    private NodeView view;

    @BeforeEach
    void node() {
        client.getKubernetesSerialization().registerKubernetesResource(GpuCapacity.class);
        view = new NodeView(client, "n1");
    }

    /** Which Node n1 the server holds: a name per Node created (the server gives each its own uid). */
    private String served;
    /** The uid the server gave each Node served. */
    private final Map<String, String> uids = new HashMap<>();

    /** Node n1 as {@code which} on the server (none for null), created anew when it changes, read for the next pass. */
    private void serve(String which) {
        if (!Objects.equals(which, served)) {
            client.nodes().withName("n1").delete();
            if (which != null) {
                uids.put(which, client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata()
                        .build()).create().getMetadata().getUid());
            }
            served = which;
        }
        view.readForPass(true);
    }

    @Test
    void decisions() {
        CapacityRecordSink sink = new CapacityRecordSink(client, view);
        record Row(String what, String node, DesiredState desired, String expected) {
        }
        List<Row> rows = List.of(
                new Row("no record: created, then its status", "node-1", Targets.record(t4(), true, T0, HEARTBEAT),
                        "create,status"),
                new Row("the same pass again: nothing", "node-1", Targets.record(t4(), true, T0, HEARTBEAT), "none"),
                new Row("before the heartbeat is due: nothing", "node-1",
                        Targets.record(t4(), true, T0.plusSeconds(60), HEARTBEAT), "none"),
                new Row("the heartbeat is due: the status", "node-1",
                        Targets.record(t4(), true, T0.plus(HEARTBEAT), HEARTBEAT), "status"),
                new Row("the host changed: the spec", "node-1",
                        Targets.record(rtx4090(), true, T0.plus(HEARTBEAT), HEARTBEAT), "spec"),
                new Row("an incomplete pass keeps the spec, says so in the status", "node-1",
                        Targets.record(FAILED, false, T0.plus(HEARTBEAT), HEARTBEAT), "status"),
                new Row("a new Node under the same name: re-owned", "node-2",
                        Targets.record(rtx4090(), true, T0.plus(HEARTBEAT), HEARTBEAT), "reown,status"),
                new Row("no node (a dry run without a cluster): the whole record, nothing read", null,
                        Targets.record(t4(), true, T0, HEARTBEAT), "create,status"));
        for (Row row : rows) {
            serve(row.node());
            CapacityRecordSink.RecordChange change = Targets.decide(sink, row.desired());
            assertEquals(row.expected(), change.summary(), row.what());
            if (row.node() != null && change.writes()) {
                assertEquals(change.requests(), sink.apply(change), row.what());
            }
        }
        GpuCapacity record = client.resources(GpuCapacity.class).withName("n1").get();
        assertEquals("rtx4090", record.getSpec().gpus().get(0).model());
        assertEquals(uids.get("node-2"), record.getMetadata().getOwnerReferences().get(0).getUid());
    }
}
