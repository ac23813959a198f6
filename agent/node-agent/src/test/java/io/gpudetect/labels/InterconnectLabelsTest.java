package io.gpudetect.labels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuInterface;
import io.gpudetect.model.GpuLinks;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/** The interconnect keys of our profile and the nvidia profile's gpu.clique. */
class InterconnectLabelsTest {

    private static final String UUID = "9277d399-0674-44a9-b64e-d85bb19ce2b0";

    private static Gpu gpu(int bus, GpuLinks links) {
        return Gpu.builder("nvml").vendor(Vendor.NVIDIA).name("NVIDIA H100 80GB HBM3").model("h100")
                .pciAddress(PciAddress.of(String.format("0000:%02x:00.0", bus))).interfaceType(GpuInterface.SXM)
                .links(links).build();
    }

    private static Inventory node(List<Gpu> gpus) {
        return new Inventory("test", gpus, List.of(), List.of(), null, List.of(), null);
    }

    private static GpuLinks switched(int up, int down, GpuLinks.Fabric fabric) {
        List<GpuLinks.Link> links = new ArrayList<>();
        links.add(new GpuLinks.Link(GpuLinks.Kind.NVLINK, true, 4, GpuLinks.Remote.NVSWITCH, null, up));
        if (down > 0) {
            links.add(new GpuLinks.Link(GpuLinks.Kind.NVLINK, false, null, GpuLinks.Remote.UNKNOWN, null, down));
        }
        return new GpuLinks(links, fabric);
    }

    @Test
    void eightGpusOnNvswitchWithALinkDownGiveFourSummaryKeys() {
        List<Gpu> gpus = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            gpus.add(gpu(0x18 + i, i == 3 ? switched(17, 1, null) : switched(18, 0, null)));
        }
        SortedMap<String, String> labels = new GpuDetectProfile().labels(node(gpus));
        assertEquals("nvswitch", labels.get("gpu-detect.io/gpu.interconnect"));
        assertEquals("true", labels.get("gpu-detect.io/gpu.interconnect.all-joined"));
        assertEquals("1", labels.get("gpu-detect.io/gpu.interconnect.links-down"));
        assertEquals("nvlink", labels.get("gpu-detect.io/gpu.interconnect.kind"));
        assertEquals(4, labels.keySet().stream().filter(k -> k.contains("interconnect")).count(), "no key per link");
        assertFalse(new NvidiaProfile().labels(node(gpus)).containsKey("nvidia.com/gpu.clique"), "no fabric, no clique");
    }

    @Test
    void linksNotReadGiveNoKeysAndNoLinksSayNone() {
        SortedMap<String, String> unknown = new GpuDetectProfile().labels(node(List.of(gpu(0x18, null))));
        assertFalse(unknown.keySet().stream().anyMatch(k -> k.contains("interconnect")));
        SortedMap<String, String> none = new GpuDetectProfile().labels(node(List.of(
                gpu(0x18, new GpuLinks(List.of(), null)), gpu(0x19, new GpuLinks(List.of(), null)))));
        assertEquals("none", none.get("gpu-detect.io/gpu.interconnect"));
        assertEquals("false", none.get("gpu-detect.io/gpu.interconnect.all-joined"));
        assertNull(none.get("gpu-detect.io/gpu.interconnect.kind"));
    }

    @Test
    void theCliqueIsWrittenAsGfdWritesItWhenEveryAttachedGpuAgrees() {
        GpuLinks.Fabric done = new GpuLinks.Fabric(UUID, 32766L, "completed", "NVML_SUCCESS");
        GpuLinks.Fabric other = new GpuLinks.Fabric(UUID, 1L, "completed", "NVML_SUCCESS");
        GpuLinks.Fabric notYet = new GpuLinks.Fabric(null, null, "in-progress", "NVML_SUCCESS");
        assertEquals(UUID + ".32766", new NvidiaProfile().labels(node(List.of(gpu(1, switched(18, 0, done)),
                gpu(2, switched(18, 0, done))))).get("nvidia.com/gpu.clique"));
        // GFD leaves out a GPU that is not attached yet, and writes nothing when the attached ones disagree.
        assertEquals(UUID + ".32766", new NvidiaProfile().labels(node(List.of(gpu(1, switched(18, 0, done)),
                gpu(2, switched(18, 0, notYet))))).get("nvidia.com/gpu.clique"));
        assertNull(new NvidiaProfile().labels(node(List.of(gpu(1, switched(18, 0, done)),
                gpu(2, switched(18, 0, other))))).get("nvidia.com/gpu.clique"));
    }
}
