package io.gpudetect.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuField;
import io.gpudetect.model.GpuInterface;
import io.gpudetect.model.Health;
import io.gpudetect.model.Partitioning;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.PcieLink;
import io.gpudetect.model.PowerLimits;
import io.gpudetect.model.Vendor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class GpuEntryTest {

    private static final io.gpudetect.model.GpuLinks SWITCHED = new io.gpudetect.model.GpuLinks(List.of(
            new io.gpudetect.model.GpuLinks.Link(io.gpudetect.model.GpuLinks.Kind.NVLINK, true, 4,
                    io.gpudetect.model.GpuLinks.Remote.NVSWITCH, null, 18)), null);

    /** The entry's components are its GPU fields, under their JSON names and types, then its own two. */
    @Test
    void componentsAreTheGpuFieldsItNamesThenItsOwn() {
        List<String> components = new ArrayList<>();
        List<String> types = new ArrayList<>();
        for (var c : GpuCapacitySpec.GpuEntry.class.getRecordComponents()) {
            JsonProperty p = c.getAccessor().getAnnotation(JsonProperty.class);
            components.add(p == null ? c.getName() : p.value());
            types.add(c.getType().getSimpleName());
        }
        List<String> expected = new ArrayList<>();
        List<String> expectedTypes = new ArrayList<>();
        for (GpuField<?> f : GpuCapacitySpec.GpuEntry.GPU_FIELDS) {
            expected.add(f.name());
            // Health is held as its status word alone.
            expectedTypes.add(f == GpuField.HEALTH ? "Status" : f == GpuField.PCI_ADDRESS ? "String"
                    : f.type().getSimpleName());
        }
        List<String> own = List.of("partitioned", "drmCards", "nearestNic", "healthReasons", "healthSince");
        expected.addAll(own);
        expectedTypes.addAll(List.of("Boolean", "List", "NearestNic", "List", "String"));
        List<String> sorted = new ArrayList<>(components);
        assertEquals(expected.stream().sorted().toList(), sorted.stream().sorted().toList());
        for (int i = 0; i < components.size(); i++) {
            assertEquals(expectedTypes.get(expected.indexOf(components.get(i))), types.get(i), components.get(i));
        }
        assertEquals(List.copyOf(Arrays.asList("vendor", "model", "name")), components.subList(0, 3));
    }

    /** An idle GPU's link drops to Gen1 and rises under load; the record, written when it changes, must not follow. */
    @Test
    void aLinkThatOnlyChangedItsCurrentGenerationGivesTheSameEntry() {
        Gpu idle = Gpu.builder("sysfs-pci").vendor(Vendor.NVIDIA).pcieLink(new PcieLink(1, 5, 16, 16)).build();
        Gpu busy = Gpu.builder("sysfs-pci").vendor(Vendor.NVIDIA).pcieLink(new PcieLink(5, 5, 16, 16)).build();
        assertEquals(GpuCapacitySpec.GpuEntry.of(idle, null), GpuCapacitySpec.GpuEntry.of(busy, null));
        Gpu onlyCurrent = Gpu.builder("sysfs-pci").vendor(Vendor.NVIDIA).pcieLink(new PcieLink(3, null, null, null)).build();
        assertNull(GpuCapacitySpec.GpuEntry.of(onlyCurrent, null).pcieLink(), "no steady part, no link");
    }

    @Test
    void aGpuAndItsEntryMapBothWays() {
        Gpu h100 = Gpu.builder("nvml").vendor(Vendor.NVIDIA).model("h100").name("NVIDIA H100 80GB HBM3")
                .memoryMiB(81559L).memoryGi(80).interfaceType(GpuInterface.SXM)
                .pciAddress(PciAddress.of("0000:17:00.0")).uuid("GPU-1").health(new Health(Health.Status.DEGRADED,
                        3L, List.of("ecc")))
                .partitioning(new Partitioning("mig", true, null, List.of())).pciVendorId("10de").pciDeviceId("2330")
                .pciSubsystemVendorId("10de").pciSubsystemDeviceId("16c1").architecture("Hopper")
                .computeCapability("9.0").driverVersion("580.159.04").runtimeVersion("13.0")
                .vbiosVersion("96.00.DA.00.0C").memoryKind("dedicated").pcieRoot("pci0000:15").numaNode(0)
                .pcieLink(new PcieLink(5, 5, 16, 16)).powerLimitWatts(700.0)
                .powerLimits(new PowerLimits(200.0, 700.0, 700.0)).serial("1654123456789").links(SWITCHED).build();
        GpuCapacitySpec.GpuEntry entry = GpuCapacitySpec.GpuEntry.of(h100, List.of("card1"));
        assertEquals(new GpuCapacitySpec.GpuEntry(Vendor.NVIDIA, "h100", "NVIDIA H100 80GB HBM3", 81559L, 80,
                GpuInterface.SXM, "0000:17:00.0", "GPU-1", Health.Status.DEGRADED, true, "10de", "2330", "10de",
                "16c1", "Hopper", "9.0", "580.159.04", "13.0", "96.00.DA.00.0C", "dedicated", "pci0000:15", 0,
                new PcieLink(null, 5, 16, 16), 700.0, new PowerLimits(200.0, 700.0, 700.0), SWITCHED, List.of("card1"), null,
                null, null), entry);

        Gpu back = entry.toGpu("record");
        for (GpuField<?> f : GpuCapacitySpec.GpuEntry.GPU_FIELDS) {
            if (f == GpuField.HEALTH) {
                assertEquals(Health.Status.DEGRADED, back.health().status());
            } else if (f == GpuField.PCIE_LINK) {
                // The current generation follows the load: a record holding it would be rewritten with it.
                assertEquals(new PcieLink(null, 5, 16, 16), back.pcieLink());
            } else {
                assertEquals(f.of(h100), f.of(back), f.name());
            }
        }
        assertNull(back.serial(), "an entry does not hold the serial number");
        assertEquals(Vendor.OTHER, GpuCapacitySpec.GpuEntry.of(Gpu.builder("lspci").build(), null).vendor(),
                "a GPU no tool named the maker of is other");
    }
}
