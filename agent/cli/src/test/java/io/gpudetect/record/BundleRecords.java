package io.gpudetect.record;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.source.BundleSource;
import io.gpudetect.testing.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** The record the agent writes for a bundle, and the bundles the record tests build from the committed ones. */
final class BundleRecords {

    /** The H100 SXM5 that gpu-detect recorded on a lent VM (test-fixtures/live-bundles). */
    static final String H100 = "h100-sxm5-80gb_580.159.04_vm";

    /** The NVIDIA card's function folder in {@link #intelIgpuBesideNvidia}. */
    static final String NVIDIA_FUNCTION = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0";

    private BundleRecords() {
    }

    static Path h100() {
        return Fixtures.root().resolve("live-bundles").resolve(H100);
    }

    /** A copy of the case {@code sysfs_intel-igpu-beside-nvidia} (an Intel iGPU at 00:02.0, an NVIDIA card at 01:00.0) in {@code dir}. */
    static Path intelIgpuBesideNvidia(Path dir) throws Exception {
        return Fixtures.sysfsWithDrm(dir);
    }

    /** The spec the agent writes for {@code bundle}, as {@link CapacityRecords#spec} makes it in a pass. */
    static GpuCapacitySpec spec(Path bundle) throws Exception {
        return CapacityRecords.spec(Fixtures.detect(bundle), Map.of("nvidia.com/gpu", 1L), Map.of(), null,
                DrmCards.read(BundleSource.open(bundle)), "test");
    }

    /** The entry of the GPU at {@code address}. */
    static GpuCapacitySpec.GpuEntry gpu(GpuCapacitySpec spec, String address) {
        return spec.gpus().stream().filter(g -> address.equals(g.pciAddress())).findFirst()
                .orElseThrow(() -> new AssertionError("no GPU at " + address + " in " + spec.gpus()));
    }

    /** The record as JSON, as the agent writes it to the API server. */
    static String json(String node, GpuCapacitySpec spec) {
        GpuCapacity record = new GpuCapacity();
        record.setMetadata(new ObjectMetaBuilder().withName(node).build());
        record.setSpec(spec);
        return Serialization.asJson(record);
    }

    /** {@code json} written to {@code dir/name}. */
    static Path file(Path dir, String name, String json) throws Exception {
        return Files.writeString(dir.resolve(name), json);
    }
}
