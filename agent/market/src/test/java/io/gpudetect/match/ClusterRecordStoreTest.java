package io.gpudetect.match;

import io.gpudetect.record.GpuCapacity;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Records and Nodes read from a cluster: fabric8's mock API server in CRUD mode. */
@EnableKubernetesMockClient(crud = true)
class ClusterRecordStoreTest {

    KubernetesClient client;

    @Test
    void readsRecordsAndFlagsNodesWithout() throws InvalidInputException {
        GenericKubernetesResource record = Serialization.unmarshal("""
                apiVersion: gpu-detect.io/v1alpha1
                kind: GpuCapacity
                metadata: {name: gpu-1}
                spec:
                  gpus:
                  - {vendor: nvidia, model: l40s, memoryGi: 48, interface: pcie, pciAddress: "0000:3b:00.0"}
                  - {vendor: nvidia, model: l40s, memoryGi: 48, interface: pcie, pciAddress: "0000:86:00.0"}
                  allocatable: {nvidia.com/gpu: 2}
                  requested: {nvidia.com/gpu: 1}
                status: {lastGoodPass: "2026-05-01T11:59:00Z"}
                """, GenericKubernetesResource.class);
        client.genericKubernetesResources(ResourceDefinitionContext.fromResourceType(GpuCapacity.class)).resource(record).create();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-1").endMetadata().withNewStatus()
                .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("cpu-1").endMetadata().build()).create();

        CapacityRecordOffers offers = new CapacityRecordOffers(CapacityRecordOffers.cluster(client));
        List<NodeOffer> nodes = offers.offers();

        assertEquals(List.of("cpu-1", "gpu-1"), nodes.stream().map(NodeOffer::node).toList());
        assertTrue(nodes.get(0).recordMissing());
        NodeOffer gpu = nodes.get(1);
        assertEquals(2, gpu.gpus().size());
        assertEquals(1, gpu.free("nvidia"));
        assertTrue(offers.describe().startsWith("cluster http"), offers.describe());

        MatchResult r = Matcher.match(new Demand("t", List.of(new Placement("s", "p", "p", 1, new GpuRequest(1,
                List.of(new GpuChoice(io.gpudetect.model.Vendor.NVIDIA, "l40s", 48, false, "pcie", null)))))),
                offers.describe(), nodes);
        assertEquals(List.of("gpu-1"), r.placements().get(0).assigned());
    }
}
