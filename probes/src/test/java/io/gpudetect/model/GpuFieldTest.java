package io.gpudetect.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

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
        }
        throw new AssertionError("no sample for " + type + ": add one with the new field");
    }
}
