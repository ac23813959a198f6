package io.gpudetect.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A {@link Gpu}'s {@code sources} as its builder makes them (an array per GPU, not a {@code TreeMap}, issue 37) read
 * as the sorted, immutable map they were: the same entries in the same order, equal to a {@code TreeMap} of them both
 * ways, and never changed by the builder that made them or a copy of it.
 */
class GpuSourcesTest {

    @Test
    void aBuiltGpusSourcesAreTheSortedMapOfWhatWasSet() {
        Gpu g = Gpu.builder("record").vendor(Vendor.NVIDIA).uuid("GPU-1").name("H100").memoryGi(80)
                .as("pci.ids").pciDeviceId("2330").interfaceType(GpuInterface.SXM).as("derived").model("h100")
                .links(new GpuLinks(List.of(), null)).build();
        Map<String, String> expected = new TreeMap<>(Map.of("vendor", "record", "uuid", "record", "name", "record",
                "memoryGi", "record", "pciDeviceId", "pci.ids", "interface", "pci.ids", "model", "derived", "links",
                "derived"));

        assertEquals(List.copyOf(expected.keySet()), List.copyOf(g.sources().keySet()), "the names' order");
        assertEquals(List.copyOf(expected.entrySet()), List.copyOf(g.sources().entrySet()));
        assertEquals(expected, g.sources());
        assertEquals(g.sources(), expected);
        assertEquals(expected.hashCode(), g.sources().hashCode());
        assertEquals(expected.toString(), g.sources().toString());
        assertEquals(8, g.sources().size());
        assertEquals("pci.ids", g.sources().get("interface"));
        assertNull(g.sources().get("interfaceType"), "the field's JSON name, not its component's");
        assertNull(g.sources().get("serial"));
        assertFalse(g.sources().containsKey("serial"));
        assertTrue(g.sources().containsKey("links"));
        assertTrue(g.sources().containsValue("derived"));
        assertEquals("unknown", g.sources().getOrDefault("serial", "unknown"));
        assertThrows(UnsupportedOperationException.class, () -> g.sources().put("serial", "x"));
        assertThrows(UnsupportedOperationException.class, () -> g.sources().remove("vendor"));
        Iterator<Map.Entry<String, String>> it = g.sources().entrySet().iterator();
        it.next();
        assertThrows(UnsupportedOperationException.class, it::remove);
        assertThrows(UnsupportedOperationException.class, () -> g.sources().entrySet().iterator().next().setValue("x"));

        assertEquals(Map.of(), Gpu.builder("x").build().sources());
        assertFalse(Gpu.builder("x").build().sources().entrySet().iterator().hasNext());
    }

    @Test
    void everyFieldComesInTheOrderOfItsName() {
        Gpu.Builder b = Gpu.builder("nvml");
        List<String> names = new ArrayList<>();
        for (GpuField<?> field : GpuField.ALL) {
            names.add(field.name());
            setSome(b, field);
        }
        Gpu g = b.build();
        names.sort(null);
        assertEquals(names, List.copyOf(g.sources().keySet()));
        assertEquals(GpuField.ALL.size(), g.sources().size());
    }

    @Test
    void aBuilderUsedAgainNeverChangesAGpuItMade() {
        Gpu.Builder b = Gpu.builder("record").vendor(Vendor.AMD);
        Gpu first = b.build();
        b.as("derived").vendor(Vendor.NVIDIA).name("later");
        Gpu second = b.build();
        assertEquals(Map.of("vendor", "record"), first.sources());
        assertEquals(Vendor.AMD, first.vendor());
        assertEquals(Map.of("vendor", "derived", "name", "derived"), second.sources());

        Gpu copy = first.toBuilder("pci.ids").name("copied").vendor(Vendor.INTEL).build();
        assertEquals(Map.of("vendor", "record"), first.sources(), "a copy's builder changes its own sources only");
        assertEquals(Map.of("vendor", "pci.ids", "name", "pci.ids"), copy.sources());
        assertEquals(first, first.toBuilder("other").build());

        Gpu filled = Gpu.builder("sysfs-pci").name("kept").fillFrom(second).build();
        assertEquals(Map.of("name", "sysfs-pci", "vendor", "derived"), filled.sources());
        assertEquals(Map.of("vendor", "derived", "name", "derived"), second.sources());
    }

    @Test
    void aGpuMadeWithAnyMapKeepsItSortedAndItsCopiesKeepEveryName() {
        Map<String, String> given = new java.util.HashMap<>(Map.of("vendor", "nvml", "zeta", "test", "alpha", "test"));
        Gpu g = new Gpu(Vendor.NVIDIA, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, given);
        given.put("vendor", "changed");
        assertEquals(List.of("alpha", "vendor", "zeta"), List.copyOf(g.sources().keySet()));
        assertEquals("nvml", g.sources().get("vendor"));
        Gpu copy = g.toBuilder("record").name("H100").build();
        assertEquals(Map.of("alpha", "test", "name", "record", "vendor", "nvml", "zeta", "test"), copy.sources());
        assertEquals(List.of("alpha", "name", "vendor", "zeta"), List.copyOf(copy.sources().keySet()));
        assertEquals(g, g.toBuilder("record").build());
    }

    @SuppressWarnings("unchecked")
    private static <T> void setSome(Gpu.Builder b, GpuField<T> field) {
        Object value;
        Class<T> type = field.type();
        if (type == String.class) {
            value = field.name();
        } else if (type == Long.class) {
            value = 1L;
        } else if (type == Integer.class) {
            value = 1;
        } else if (type == Boolean.class) {
            value = true;
        } else if (type == Double.class) {
            value = 1.0;
        } else if (type == Vendor.class) {
            value = Vendor.NVIDIA;
        } else if (type == GpuInterface.class) {
            value = GpuInterface.SXM;
        } else if (type == PciAddress.class) {
            value = PciAddress.of("0000:17:00.0");
        } else if (type == Partitioning.class) {
            value = new Partitioning("mig", true, null, List.of());
        } else if (type == Health.class) {
            value = new Health(Health.Status.OK, null, List.of());
        } else if (type == Vgpu.class) {
            value = new Vgpu(true, "550.54.16", "r550_40");
        } else if (type == PcieLink.class) {
            value = new PcieLink(1, 5, 8, 16);
        } else if (type == PowerLimits.class) {
            value = new PowerLimits(200.0, 700.0, 700.0);
        } else if (type == GpuLinks.class) {
            value = new GpuLinks(List.of(), null);
        } else {
            throw new AssertionError("no value for " + type + ": add one with the new field");
        }
        b.set(field, (T) value);
    }
}
