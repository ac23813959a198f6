package io.gpudetect.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link GpuField#ALL} and {@link Gpu}'s components are one list: a field added to one is in the other. */
class GpuFieldTest {

    @Test
    void everyComponentOfGpuIsAFieldInTheSameOrderWithItsJsonName() {
        List<String> components = Arrays.stream(Gpu.class.getRecordComponents())
                .filter(c -> !c.getName().equals("sources"))
                .map(GpuFieldTest::jsonName).toList();
        assertEquals(components, GpuField.ALL.stream().map(GpuField::name).toList());
        for (RecordComponent c : Gpu.class.getRecordComponents()) {
            GpuField.ALL.stream().filter(f -> f.name().equals(jsonName(c))).findFirst()
                    .ifPresent(f -> assertEquals(c.getType(), f.type(), c.getName()));
        }
    }

    @Test
    void theBuilderCopiesAndMergesEveryFieldWithItsSource() {
        Gpu.Builder all = Gpu.builder("nvml");
        for (GpuField<?> field : GpuField.ALL) {
            setSample(all, field);
        }
        Gpu full = all.build();
        for (GpuField<?> field : GpuField.ALL) {
            assertEquals(sample(field), field.of(full), field.name() + " reads its own component");
            assertEquals("nvml", full.sources().get(field.name()), field.name());
        }
        assertEquals(full, full.toBuilder("other").build(), "a copy keeps every value and source");

        Gpu merged = Gpu.builder("sysfs-pci").name("kept").fillFrom(full).build();
        assertEquals("kept", merged.name());
        assertEquals("sysfs-pci", merged.sources().get("name"), "a field already set keeps its source");
        for (GpuField<?> field : GpuField.ALL) {
            if (field != GpuField.NAME) {
                assertEquals(field.of(full), field.of(merged), field.name());
                assertEquals("nvml", merged.sources().get(field.name()), field.name());
            }
        }
        assertNull(Gpu.builder("x").build().vendor());
    }

    private static String jsonName(RecordComponent c) {
        JsonProperty p = c.getAccessor().getAnnotation(JsonProperty.class);
        return p == null ? c.getName() : p.value();
    }

    @SuppressWarnings("unchecked")
    private static <T> void setSample(Gpu.Builder b, GpuField<T> field) {
        b.set(field, (T) sample(field));
    }

    /** A value of the field's type that no other field of that type gets, so a field read from another shows. */
    private static Object sample(GpuField<?> field) {
        Class<?> type = field.type();
        int index = GpuField.ALL.indexOf(field);
        if (type == String.class) {
            return field.name();
        } else if (type == Long.class) {
            return 81559L + index;
        } else if (type == Integer.class) {
            return 80 + index;
        } else if (type == Boolean.class) {
            return index % 2 == 0;
        } else if (type == Double.class) {
            return 700.0 + index;
        } else if (type == Vendor.class) {
            return Vendor.NVIDIA;
        } else if (type == GpuInterface.class) {
            return GpuInterface.SXM;
        } else if (type == PciAddress.class) {
            return PciAddress.of("0000:17:00.0");
        } else if (type == Partitioning.class) {
            return new Partitioning("mig", true, null, List.of());
        } else if (type == Health.class) {
            return new Health(Health.Status.OK, null, List.of());
        } else if (type == Vgpu.class) {
            return new Vgpu(true, "550.54.16", "r550_40");
        } else if (type == PcieLink.class) {
            return new PcieLink(1, 5, 8, 16);
        } else if (type == PowerLimits.class) {
            return new PowerLimits(200.0, 700.0, 700.0);
        } else if (type == GpuLinks.class) {
            return new GpuLinks(List.of(new GpuLinks.Link(GpuLinks.Kind.NVLINK, true, 4, GpuLinks.Remote.NVSWITCH, null, 18)),
                    null);
        }
        throw new AssertionError("no sample for " + type + ": add one with the new field");
    }

    @Test
    void parsePartsReadsTheLinkAndThePowerLimitsPartByPart() {
        assertEquals(new PcieLink(4, 5, 8, 16), GpuField.PCIE_LINK.parseParts(java.util.Map.of("currentGen", "4",
                "maxGen", "5", "currentWidth", "8", "maxWidth", "16", "degraded", "true")), "degraded is derived, not read");
        assertEquals(new PowerLimits(200.0, 700.0, null),
                GpuField.POWER_LIMITS.parseParts(java.util.Map.of("minWatts", "200", "maxWatts", "700.00")));
        assertEquals(null, GpuField.PCIE_LINK.parseParts(java.util.Map.of()), "no part known is no link");
        assertTrue(GpuField.PCIE_LINK.hasParts() && GpuField.POWER_LIMITS.hasParts() && !GpuField.NUMA_NODE.hasParts());
        assertEquals("unknown part 'speed' of pcieLink; expected currentGen, maxGen, currentWidth, maxWidth, degraded",
                assertThrows(IllegalArgumentException.class,
                        () -> GpuField.PCIE_LINK.parseParts(java.util.Map.of("speed", "16"))).getMessage());
        assertEquals("currentWidth: expected a whole number of 0 or more", assertThrows(IllegalArgumentException.class,
                () -> GpuField.PCIE_LINK.parseParts(java.util.Map.of("currentWidth", "x8"))).getMessage());
        assertEquals("expected one value for numaNode, not a mapping", assertThrows(IllegalArgumentException.class,
                () -> GpuField.NUMA_NODE.parseParts(java.util.Map.of("a", "1"))).getMessage());
    }

    @Test
    void parseReadsHandWrittenTextByTheFieldsType() {
        assertEquals(Vendor.NVIDIA, GpuField.VENDOR.parse("NVIDIA"));
        assertEquals(80, GpuField.MEMORY_GI.parse(" 80 "));
        assertEquals(81559L, GpuField.MEMORY_MIB.parse("81559"));
        assertEquals("2330", GpuField.PCI_DEVICE_ID.parse("2330"));
        assertEquals("10de", GpuField.PCI_VENDOR_ID.parse("10DE"));
        assertEquals("H100 SXM5", GpuField.NAME.parse("H100 SXM5"), "free text is kept as written");
        assertEquals(GpuInterface.SXM, GpuField.INTERFACE.parse("SXM5"));
        assertEquals(GpuInterface.PCIE, GpuField.INTERFACE.parse("pcie"));
        assertEquals(Health.Status.DEGRADED, GpuField.HEALTH.parse("degraded").status());
        assertEquals(PciAddress.of("0000:17:00.0"), GpuField.PCI_ADDRESS.parse("0000:17:00.0"));
        assertEquals(Boolean.TRUE, GpuField.EMULATED.parse("true"));

        assertEquals("expected 4 hex digits such as 10de",
                assertThrows(IllegalArgumentException.class, () -> GpuField.PCI_DEVICE_ID.parse("23g0")).getMessage());
        assertEquals("expected a whole number of 0 or more",
                assertThrows(IllegalArgumentException.class, () -> GpuField.MEMORY_GI.parse("80Gi")).getMessage());
        assertEquals("expected pcie, sxm, oam or integrated",
                assertThrows(IllegalArgumentException.class, () -> GpuField.INTERFACE.parse("nvlink")).getMessage());
        assertEquals("expected ok, degraded, failed or lost",
                assertThrows(IllegalArgumentException.class, () -> GpuField.HEALTH.parse("fine")).getMessage());
        assertEquals("expected a PCI address such as 0000:17:00.0",
                assertThrows(IllegalArgumentException.class, () -> GpuField.PCI_ADDRESS.parse("gpu0")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> GpuField.PARTITIONING.parse("mig"),
                "partitioning has no one-word form");
    }

    @Test
    void theDigitChecksAcceptWhatTheirPatternsMatched() {
        for (String t : List.of("", "0", "7", "123456789", "1234567890", "12a", "-1", "1.5", " 1", "\u0663", "10de",
                "10DE", "abcd", "abcg", "1de", "0x10", "ffff", "0000", "00000")) {
            assertEquals(t.matches("\\d{1,9}"), GpuField.wholeNumber(t), t);
            assertEquals(t.matches("[0-9a-f]{4}"), GpuField.fourHexDigits(t), t);
        }
    }
}
