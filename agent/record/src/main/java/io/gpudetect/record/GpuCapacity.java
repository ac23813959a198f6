package io.gpudetect.record;

import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;
import io.fabric8.kubernetes.client.CustomResource;

/**
 * {@code GpuCapacity}: one per node, cluster-scoped, named after the node and owned by it (an owner
 * reference to the Node, never to the agent's pod, so it lives and dies with the node: NFD 1752,
 * gpu-operator 2914). A bidder answers "can this node serve 2 GPUs of model X with at least 24 Gi?" from
 * its spec alone. This class is the single source of the CRD in {@code daemonset/crds/}.
 */
@Group(GpuCapacity.GROUP)
@Version(GpuCapacity.VERSION)
@Kind("GpuCapacity")
@Singular("gpucapacity")
@Plural("gpucapacities")
public class GpuCapacity extends CustomResource<GpuCapacitySpec, GpuCapacityStatus> {

    public static final String GROUP = "gpu-detect.io";
    public static final String VERSION = "v1alpha1";
    public static final String CRD_NAME = "gpucapacities." + GROUP;
}
