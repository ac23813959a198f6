package io.gpudetect.model;

import java.util.List;
import java.util.function.Function;

/**
 * One field of a {@link Gpu}: its name (in the JSON output and in {@link Gpu#sources()}), its type, and how
 * to read it. {@link #ALL} holds every field in the record's order. The builder's copy and merge, the bounds
 * on tool text ({@code FieldLimits}), the inventory writer and the fuzz invariants all go through it, so a
 * field added to {@link Gpu} is declared here once more and nowhere else ({@code GpuFieldTest} checks that the
 * two agree).
 *
 * @param <T> the field's type
 */
public final class GpuField<T> {

    public static final GpuField<Vendor> VENDOR = new GpuField<>("vendor", Vendor.class, Gpu::vendor);
    public static final GpuField<String> NAME = new GpuField<>("name", String.class, Gpu::name);
    public static final GpuField<String> MODEL = new GpuField<>("model", String.class, Gpu::model);
    public static final GpuField<Long> MEMORY_MIB = new GpuField<>("memoryMiB", Long.class, Gpu::memoryMiB);
    public static final GpuField<Integer> MEMORY_GI = new GpuField<>("memoryGi", Integer.class, Gpu::memoryGi);
    public static final GpuField<Boolean> SHARED_MEMORY = new GpuField<>("sharedMemory", Boolean.class, Gpu::sharedMemory);
    public static final GpuField<String> DRIVER_VERSION = new GpuField<>("driverVersion", String.class, Gpu::driverVersion);
    public static final GpuField<String> RUNTIME_VERSION = new GpuField<>("runtimeVersion", String.class, Gpu::runtimeVersion);
    public static final GpuField<PciAddress> PCI_ADDRESS = new GpuField<>("pciAddress", PciAddress.class, Gpu::pciAddress);
    public static final GpuField<String> PCI_VENDOR_ID = new GpuField<>("pciVendorId", String.class, Gpu::pciVendorId);
    public static final GpuField<String> PCI_DEVICE_ID = new GpuField<>("pciDeviceId", String.class, Gpu::pciDeviceId);
    public static final GpuField<String> PCI_SUBSYSTEM_VENDOR_ID =
            new GpuField<>("pciSubsystemVendorId", String.class, Gpu::pciSubsystemVendorId);
    public static final GpuField<String> PCI_SUBSYSTEM_DEVICE_ID =
            new GpuField<>("pciSubsystemDeviceId", String.class, Gpu::pciSubsystemDeviceId);
    public static final GpuField<String> PCI_REVISION = new GpuField<>("pciRevision", String.class, Gpu::pciRevision);
    public static final GpuField<String> PCI_CLASS = new GpuField<>("pciClass", String.class, Gpu::pciClass);
    public static final GpuField<String> UUID = new GpuField<>("uuid", String.class, Gpu::uuid);
    public static final GpuField<String> SERIAL = new GpuField<>("serial", String.class, Gpu::serial);
    public static final GpuField<String> BOARD_PART_NUMBER =
            new GpuField<>("boardPartNumber", String.class, Gpu::boardPartNumber);
    public static final GpuField<String> INTERFACE = new GpuField<>("interface", String.class, Gpu::interfaceType);
    public static final GpuField<String> ARCHITECTURE = new GpuField<>("architecture", String.class, Gpu::architecture);
    public static final GpuField<String> COMPUTE_CAPABILITY =
            new GpuField<>("computeCapability", String.class, Gpu::computeCapability);
    public static final GpuField<Integer> COMPUTE_UNITS = new GpuField<>("computeUnits", Integer.class, Gpu::computeUnits);
    public static final GpuField<String> KERNEL_DRIVER = new GpuField<>("kernelDriver", String.class, Gpu::kernelDriver);
    public static final GpuField<Double> POWER_LIMIT_WATTS =
            new GpuField<>("powerLimitWatts", Double.class, Gpu::powerLimitWatts);
    public static final GpuField<Partitioning> PARTITIONING =
            new GpuField<>("partitioning", Partitioning.class, Gpu::partitioning);
    public static final GpuField<Health> HEALTH = new GpuField<>("health", Health.class, Gpu::health);
    public static final GpuField<Boolean> EMULATED = new GpuField<>("emulated", Boolean.class, Gpu::emulated);

    /** Every field, in the order of {@link Gpu}'s components (and of the JSON output). */
    public static final List<GpuField<?>> ALL = List.of(VENDOR, NAME, MODEL, MEMORY_MIB, MEMORY_GI, SHARED_MEMORY,
            DRIVER_VERSION, RUNTIME_VERSION, PCI_ADDRESS, PCI_VENDOR_ID, PCI_DEVICE_ID, PCI_SUBSYSTEM_VENDOR_ID,
            PCI_SUBSYSTEM_DEVICE_ID, PCI_REVISION, PCI_CLASS, UUID, SERIAL, BOARD_PART_NUMBER, INTERFACE, ARCHITECTURE,
            COMPUTE_CAPABILITY, COMPUTE_UNITS, KERNEL_DRIVER, POWER_LIMIT_WATTS, PARTITIONING, HEALTH, EMULATED);

    /** The fields that hold text as a tool printed it: what a broken or hostile tool could fill with anything. */
    @SuppressWarnings("unchecked")
    public static final List<GpuField<String>> TEXT = ALL.stream().filter(f -> f.type() == String.class)
            .map(f -> (GpuField<String>) f).toList();

    private final String name;
    private final Class<T> type;
    private final Function<Gpu, T> reader;

    private GpuField(String name, Class<T> type, Function<Gpu, T> reader) {
        this.name = name;
        this.type = type;
        this.reader = reader;
    }

    /** The field's name in the JSON output and in {@link Gpu#sources()}. */
    public String name() {
        return name;
    }

    public Class<T> type() {
        return type;
    }

    /** The field's value in {@code gpu}; null when unknown. */
    public T of(Gpu gpu) {
        return reader.apply(gpu);
    }

    @Override
    public String toString() {
        return name;
    }
}
