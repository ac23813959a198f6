package io.gpudetect.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentMetricsTest {

    @Test
    void gpusAreCountedPerVendorAndModelInOrder() {
        AgentMetrics metrics = new AgentMetrics();
        Gpu h100 = Gpu.builder("nvml").vendor(Vendor.NVIDIA).model("h100").build();
        metrics.gpus(List.of(h100, Gpu.builder("sysfs-pci").build(), h100,
                Gpu.builder("amd-smi").vendor(Vendor.AMD).model("mi300x").build()));
        List<String> series = metrics.render().lines().filter(l -> l.startsWith("gpu_detect_gpus{")).toList();
        assertEquals(List.of("gpu_detect_gpus{vendor=\"amd\",model=\"mi300x\"} 1",
                "gpu_detect_gpus{vendor=\"nvidia\",model=\"h100\"} 2",
                "gpu_detect_gpus{vendor=\"other\",model=\"unknown\"} 1"), series);
    }
}
