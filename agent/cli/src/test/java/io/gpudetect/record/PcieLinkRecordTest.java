package io.gpudetect.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpudetect.model.PcieLink;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The PCIe link per GPU in the capacity record: generation and lanes now and at most, and whether it is degraded. */
class PcieLinkRecordTest {

    @TempDir
    Path dir;

    @Test
    void theH100sLinkIsGen5x16OfGen5x16AsNvidiaSmiPrintedIt() throws Exception {
        // nvidia-smi.xml, pci_gpu_link_info: max_link_gen 5, current_link_gen 5, max_link_width 16x, current 16x.
        GpuCapacitySpec.GpuEntry h100 = BundleRecords.gpu(BundleRecords.spec(BundleRecords.h100()), "0000:00:06.0");
        // The current generation is left out of the record: it follows the load.
        assertEquals(new PcieLink(null, 5, 16, 16), h100.pcieLink());
        assertEquals(Boolean.FALSE, h100.pcieLink().degraded());
    }

    @Test
    void aX16CardThatTrainedAtX8IsDegradedInTheRecordAndItsJson() throws Exception {
        Path bundle = BundleRecords.intelIgpuBesideNvidia(dir.resolve("bundle"));
        Path f = bundle.resolve(BundleRecords.NVIDIA_FUNCTION);
        Files.writeString(f.resolve("current_link_speed"), "8.0 GT/s PCIe\n");
        Files.writeString(f.resolve("max_link_speed"), "16.0 GT/s PCIe\n");
        Files.writeString(f.resolve("current_link_width"), "8\n");
        Files.writeString(f.resolve("max_link_width"), "16\n");

        GpuCapacitySpec spec = BundleRecords.spec(bundle);

        // 16.0 GT/s is Gen4; the current 8.0 GT/s (Gen3) is left out of the record: it follows the load.
        assertEquals(new PcieLink(null, 4, 8, 16), BundleRecords.gpu(spec, "0000:01:00.0").pcieLink());
        JsonNode link = new ObjectMapper().readTree(BundleRecords.json("n", spec)).get("spec").get("gpus")
                .get(1).get("pcieLink");
        assertEquals("0000:01:00.0", new ObjectMapper().readTree(BundleRecords.json("n", spec)).get("spec")
                .get("gpus").get(1).get("pciAddress").asText());
        assertTrue(link.get("degraded").asBoolean(), link.toString());
        assertTrue(!link.has("currentGen"), "the current generation follows the load: " + link);
        assertEquals(8, link.get("currentWidth").asInt());
        assertEquals(16, link.get("maxWidth").asInt());
    }

    @Test
    void aGpuWithoutLinkFilesHasNoLinkRatherThanAnEmptyOne() throws Exception {
        GpuCapacitySpec spec = BundleRecords.spec(BundleRecords.intelIgpuBesideNvidia(dir.resolve("bundle")));
        assertEquals(null, BundleRecords.gpu(spec, "0000:01:00.0").pcieLink());
        assertTrue(!BundleRecords.json("n", spec).contains("pcieLink"));
    }
}
