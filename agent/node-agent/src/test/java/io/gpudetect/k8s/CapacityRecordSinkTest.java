package io.gpudetect.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.record.CapacityRecords;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.sink.PassOutput;
import io.gpudetect.testing.Fixtures;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
    static final Inventory FAILED = new Inventory("test", List.of(),
            List.of(new Inventory.ProbeSummary("nvidia-smi-xml", ProbeResult.Outcome.FAILED, 0)),
            List.of(Diagnostic.error("nvidia-smi-xml", "nvidia-smi.xml", null, "nvidia-smi timed out after 5s")));
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final Duration HEARTBEAT = Duration.ofMinutes(5);

    KubernetesClient client;
    private Node node;

    @BeforeEach
    void node() {
        client.getKubernetesSerialization().registerKubernetesResource(GpuCapacity.class);
        node = client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").withUid("uid-1").endMetadata()
                .build()).create();
    }

    private static PassOutput output(Node node, Inventory inventory, boolean complete, Instant now) {
        GpuCapacitySpec spec = CapacityRecords.spec(inventory, Map.of(), Map.of(), null, null, "test");
        return new PassOutput("n1", node, new TreeMap<>(), complete, spec,
                known -> CapacityRecords.status(inventory, known, now, HEARTBEAT));
    }

    @Test
    void decisions() {
        CapacityRecordSink sink = new CapacityRecordSink(client);
        record Row(String what, PassOutput output, String expected) {
        }
        Node recreated = new NodeBuilder(node).editMetadata().withUid("uid-2").endMetadata().build();
        List<Row> rows = List.of(
                new Row("no record: created, then its status", output(node, t4(), true, T0), "create,status"),
                new Row("the same pass again: nothing", output(node, t4(), true, T0), "none"),
                new Row("before the heartbeat is due: nothing", output(node, t4(), true, T0.plusSeconds(60)), "none"),
                new Row("the heartbeat is due: the status", output(node, t4(), true, T0.plus(HEARTBEAT)), "status"),
                new Row("the host changed: the spec", output(node, rtx4090(), true, T0.plus(HEARTBEAT)), "spec"),
                new Row("an incomplete pass keeps the spec, says so in the status",
                        output(node, FAILED, false, T0.plus(HEARTBEAT)), "status"),
                new Row("a new Node under the same name: re-owned",
                        output(recreated, rtx4090(), true, T0.plus(HEARTBEAT)), "reown,status"),
                new Row("no node (a dry run without a cluster): the whole record, nothing read",
                        output(null, t4(), true, T0), "create,status"));
        for (Row row : rows) {
            CapacityRecordSink.RecordChange change = sink.decide(row.output());
            assertEquals(row.expected(), change.summary(), row.what());
            if (row.output().node() != null && change.writes()) {
                assertEquals(change.requests(), sink.apply(change), row.what());
            }
        }
        GpuCapacity record = client.resources(GpuCapacity.class).withName("n1").get();
        assertEquals("rtx4090", record.getSpec().gpus().get(0).model());
        assertEquals("uid-2", record.getMetadata().getOwnerReferences().get(0).getUid());
    }
}
