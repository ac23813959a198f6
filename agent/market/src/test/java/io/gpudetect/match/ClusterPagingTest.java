package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code --cluster} lists a page at a time: the API server's {@code continue} token is followed to the last page, so
 * no list of a large cluster's Nodes arrives, or is held, whole (the CRUD mock ignores {@code limit}: this one answers
 * pages as a real server does).
 */
@EnableKubernetesMockClient
class ClusterPagingTest {

    KubernetesMockServer server;
    KubernetesClient client;

    @Test
    void everyPageOfNodesAndRecordsIsRead() throws InvalidInputException {
        server.expect().get().withPath("/apis/gpu-detect.io/v1alpha1/gpucapacities?limit=500")
                .andReturn(200, """
                        {"apiVersion": "gpu-detect.io/v1alpha1", "kind": "GpuCapacityList", "metadata": {"continue": "r2"},
                         "items": [{"apiVersion": "gpu-detect.io/v1alpha1", "kind": "GpuCapacity", "metadata": {"name": "a"},
                                    "spec": {"gpus": []}, "status": {"lastGoodPass": "2026-05-01T10:00:00Z"}}]}
                        """).once();
        server.expect().get().withPath("/apis/gpu-detect.io/v1alpha1/gpucapacities?continue=r2&limit=500")
                .andReturn(200, """
                        {"apiVersion": "gpu-detect.io/v1alpha1", "kind": "GpuCapacityList", "metadata": {},
                         "items": [{"apiVersion": "gpu-detect.io/v1alpha1", "kind": "GpuCapacity", "metadata": {"name": "b"},
                                    "spec": {"gpus": []}, "status": {"lastGoodPass": "2026-05-01T10:00:00Z"}}]}
                        """).once();
        server.expect().get().withPath("/api/v1/nodes?limit=500").andReturn(200, new NodeListBuilder()
                .withNewMetadata().withContinue("n2").endMetadata()
                .addToItems(new NodeBuilder().withNewMetadata().withName("a").endMetadata().build()).build()).once();
        server.expect().get().withPath("/api/v1/nodes?continue=n2&limit=500").andReturn(200, new NodeListBuilder()
                .withNewMetadata().endMetadata()
                .addToItems(new NodeBuilder().withNewMetadata().withName("c").endMetadata().build()).build()).once();

        RecordSet set = CapacityRecordOffers.cluster(client).records();

        assertEquals(List.of("a", "b"), set.records().stream().map(RecordSet.Located::node).toList());
        assertEquals(List.of("a", "c"), set.nodes().stream().map(KubeNode::name).toList());
    }
}
