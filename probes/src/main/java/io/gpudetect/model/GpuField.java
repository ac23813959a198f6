package io.gpudetect.model;

import java.util.List;

/**
 * One field of a {@link Gpu}: its name (in the JSON output and in {@link Gpu#sources()}), its type, and how
 * to read it ({@link #of}) and to read it from text ({@link #parse}). {@link #ALL} holds every field in the
 * record's order. The builder's copy and merge, the bounds on tool text ({@code FieldLimits}), the inventory
 * writer, the capacity record's GPU entry and its reader of hand-written records, and the fuzz invariants all
 * go through it, so a field added to {@link Gpu} is declared here once more and nowhere else ({@code
 * GpuFieldTest} checks that the two agree; a record entry lists the fields it carries, {@code GpuEntryTest}).
 *
 * @param <T> the field's type
 */
public final class GpuField<T> {

    public static final GpuField<Vendor> VENDOR = new GpuField<>(0, "vendor", Vendor.class);
    public static final GpuField<String> NAME = new GpuField<>(1, "name", String.class);
    public static final GpuField<String> MODEL = new GpuField<>(2, "model", String.class);
    public static final GpuField<Long> MEMORY_MIB = new GpuField<>(3, "memoryMiB", Long.class);
    public static final GpuField<Integer> MEMORY_GI = new GpuField<>(4, "memoryGi", Integer.class);
    public static final GpuField<Boolean> SHARED_MEMORY = new GpuField<>(5, "sharedMemory", Boolean.class);
    public static final GpuField<String> DRIVER_VERSION = new GpuField<>(6, "driverVersion", String.class);
    public static final GpuField<String> RUNTIME_VERSION = new GpuField<>(7, "runtimeVersion", String.class);
    public static final GpuField<PciAddress> PCI_ADDRESS = new GpuField<>(8, "pciAddress", PciAddress.class);
    public static final GpuField<String> PCI_VENDOR_ID = new GpuField<>(9, "pciVendorId", String.class);
    public static final GpuField<String> PCI_DEVICE_ID = new GpuField<>(10, "pciDeviceId", String.class);
    public static final GpuField<String> PCI_SUBSYSTEM_VENDOR_ID =
            new GpuField<>(11, "pciSubsystemVendorId", String.class);
    public static final GpuField<String> PCI_SUBSYSTEM_DEVICE_ID =
            new GpuField<>(12, "pciSubsystemDeviceId", String.class);
    public static final GpuField<String> PCI_REVISION = new GpuField<>(13, "pciRevision", String.class);
    public static final GpuField<String> PCI_CLASS = new GpuField<>(14, "pciClass", String.class);
    public static final GpuField<String> UUID = new GpuField<>(15, "uuid", String.class);
    public static final GpuField<String> SERIAL = new GpuField<>(16, "serial", String.class);
    public static final GpuField<String> BOARD_PART_NUMBER =
            new GpuField<>(17, "boardPartNumber", String.class);
    public static final GpuField<String> BOARD_NAME = new GpuField<>(18, "boardName", String.class);
    public static final GpuField<GpuInterface> INTERFACE = new GpuField<>(19, "interface", GpuInterface.class);
    public static final GpuField<String> ARCHITECTURE = new GpuField<>(20, "architecture", String.class);
    public static final GpuField<String> COMPUTE_CAPABILITY =
            new GpuField<>(21, "computeCapability", String.class);
    public static final GpuField<Integer> COMPUTE_UNITS = new GpuField<>(22, "computeUnits", Integer.class);
    public static final GpuField<String> KERNEL_DRIVER = new GpuField<>(23, "kernelDriver", String.class);
    public static final GpuField<Double> POWER_LIMIT_WATTS =
            new GpuField<>(24, "powerLimitWatts", Double.class);
    public static final GpuField<Partitioning> PARTITIONING =
            new GpuField<>(25, "partitioning", Partitioning.class);
    public static final GpuField<Health> HEALTH = new GpuField<>(26, "health", Health.class);
    public static final GpuField<Boolean> EMULATED = new GpuField<>(27, "emulated", Boolean.class);
    public static final GpuField<Vgpu> VGPU = new GpuField<>(28, "vgpu", Vgpu.class);
    public static final GpuField<String> PCIE_ROOT = new GpuField<>(29, "pcieRoot", String.class);
    public static final GpuField<Integer> NUMA_NODE = new GpuField<>(30, "numaNode", Integer.class);
    public static final GpuField<PcieLink> PCIE_LINK = new GpuField<>(31, "pcieLink", PcieLink.class);
    public static final GpuField<PowerLimits> POWER_LIMITS = new GpuField<>(32, "powerLimits", PowerLimits.class);
    public static final GpuField<String> VBIOS_VERSION = new GpuField<>(33, "vbiosVersion", String.class);
    public static final GpuField<String> MEMORY_KIND = new GpuField<>(34, "memoryKind", String.class);
    public static final GpuField<GpuLinks> LINKS = new GpuField<>(35, "links", GpuLinks.class);

    /** Every field, in the order of {@link Gpu}'s components (and of the JSON output). */
    public static final List<GpuField<?>> ALL = List.of(VENDOR, NAME, MODEL, MEMORY_MIB, MEMORY_GI, SHARED_MEMORY,
            DRIVER_VERSION, RUNTIME_VERSION, PCI_ADDRESS, PCI_VENDOR_ID, PCI_DEVICE_ID, PCI_SUBSYSTEM_VENDOR_ID,
            PCI_SUBSYSTEM_DEVICE_ID, PCI_REVISION, PCI_CLASS, UUID, SERIAL, BOARD_PART_NUMBER, BOARD_NAME, INTERFACE,
            ARCHITECTURE,
            COMPUTE_CAPABILITY, COMPUTE_UNITS, KERNEL_DRIVER, POWER_LIMIT_WATTS, PARTITIONING, HEALTH, EMULATED,
            VGPU, PCIE_ROOT, NUMA_NODE, PCIE_LINK, POWER_LIMITS, VBIOS_VERSION, MEMORY_KIND, LINKS);

    private static final java.util.Map<String, GpuField<?>> BY_NAME = byName();

    /** The fields that hold text as a tool printed it: what a broken or hostile tool could fill with anything. */
    public static final List<GpuField<String>> TEXT = text();

    private final int index;
    private final String name;
    private final Class<T> type;

    private GpuField(int index, String name, Class<T> type) {
        this.index = index;
        this.name = name;
        this.type = type;
    }

    private static java.util.Map<String, GpuField<?>> byName() {
        java.util.Map<String, GpuField<?>> byName = new java.util.HashMap<>();
        for (GpuField<?> f : ALL) {
            byName.put(f.name, f);
        }
        return java.util.Map.copyOf(byName);
    }

    /** The field named {@code name} ({@link #name()}); null when none is. */
    static GpuField<?> named(String name) {
        return BY_NAME.get(name);
    }

    /** The field's place in {@link #ALL}. */
    int index() {
        return index;
    }

    @SuppressWarnings("unchecked")
    private static List<GpuField<String>> text() {
        List<GpuField<String>> text = new java.util.ArrayList<>();
        for (GpuField<?> f : ALL) {
            if (f.type == String.class) {
                text.add((GpuField<String>) f);
            }
        }
        return List.copyOf(text);
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
        return type.cast(read(index, gpu));
    }

    /**
     * The accessor for each field's index. A switch rather than a method reference per field: this class loads at
     * every start of the command, and each method reference is a call site linked then (docs/performance.md,
     * "Start-up and footprint tricks", row "merge by fillFrom"). {@code GpuFieldTest} reads every field back.
     */
    private static Object read(int index, Gpu gpu) {
        return switch (index) {
            case 0 -> gpu.vendor();
            case 1 -> gpu.name();
            case 2 -> gpu.model();
            case 3 -> gpu.memoryMiB();
            case 4 -> gpu.memoryGi();
            case 5 -> gpu.sharedMemory();
            case 6 -> gpu.driverVersion();
            case 7 -> gpu.runtimeVersion();
            case 8 -> gpu.pciAddress();
            case 9 -> gpu.pciVendorId();
            case 10 -> gpu.pciDeviceId();
            case 11 -> gpu.pciSubsystemVendorId();
            case 12 -> gpu.pciSubsystemDeviceId();
            case 13 -> gpu.pciRevision();
            case 14 -> gpu.pciClass();
            case 15 -> gpu.uuid();
            case 16 -> gpu.serial();
            case 17 -> gpu.boardPartNumber();
            case 18 -> gpu.boardName();
            case 19 -> gpu.interfaceType();
            case 20 -> gpu.architecture();
            case 21 -> gpu.computeCapability();
            case 22 -> gpu.computeUnits();
            case 23 -> gpu.kernelDriver();
            case 24 -> gpu.powerLimitWatts();
            case 25 -> gpu.partitioning();
            case 26 -> gpu.health();
            case 27 -> gpu.emulated();
            case 28 -> gpu.vgpu();
            case 29 -> gpu.pcieRoot();
            case 30 -> gpu.numaNode();
            case 31 -> gpu.pcieLink();
            case 32 -> gpu.powerLimits();
            case 33 -> gpu.vbiosVersion();
            case 34 -> gpu.memoryKind();
            case 35 -> gpu.links();
            default -> throw new IllegalStateException("no GPU field " + index);
        };
    }

    /**
     * The value a scalar of hand-written text holds for this field, by the field's type: what a record read from a
     * file goes through, so a field is read the way it is declared here. A vendor is read as {@link Vendor#fromId}
     * reads it (a word it does not know is {@code other}); PCI ids are 4 hex digits, lower-cased; health is its
     * status word.
     *
     * @throws IllegalArgumentException what was expected, for text this field cannot hold (or a field with no
     *                                  scalar form: partitioning, vGPU)
     */
    public T parse(String text) {
        String t = text.strip();
        Object value;
        if (type == Vendor.class) {
            value = Vendor.fromId(t);
        } else if (type == Long.class || type == Integer.class) {
            if (!wholeNumber(t)) {
                throw new IllegalArgumentException("expected a whole number of 0 or more");
            }
            value = type == Long.class ? (Object) Long.valueOf(t) : (Object) Integer.valueOf(t);
        } else if (type == Double.class) {
            try {
                value = Double.valueOf(t);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("expected a number");
            }
        } else if (type == Boolean.class) {
            if (!t.equals("true") && !t.equals("false")) {
                throw new IllegalArgumentException("expected true or false");
            }
            value = Boolean.valueOf(t);
        } else if (type == PciAddress.class) {
            value = PciAddress.parse(t).orElseThrow(
                    () -> new IllegalArgumentException("expected a PCI address such as 0000:17:00.0"));
        } else if (type == GpuInterface.class) {
            value = GpuInterface.fromId(t);
            if (value == null) {
                throw new IllegalArgumentException("expected pcie, sxm, oam or integrated");
            }
        } else if (type == Health.class) {
            value = new Health(healthStatus(t), null, List.of());
        } else if (name.startsWith("pci") && name.endsWith("Id")) {
            value = t.toLowerCase(java.util.Locale.ROOT);
            if (!fourHexDigits((String) value)) {
                throw new IllegalArgumentException("expected 4 hex digits such as 10de");
            }
        } else if (type == String.class) {
            value = t;
        } else {
            throw new IllegalArgumentException("expected " + name + " as the inventory writes it, not one word");
        }
        return type.cast(value);
    }

    /**
     * 1 to 9 ASCII digits, as {@code \\d{1,9}} matches: a loop, not a regular expression, since a records file of
     * 5,000 nodes reads some 40,000 GPUs' fields through here (docs/performance.md, "Clusters of 500 to 10,000 nodes").
     */
    static boolean wholeNumber(String t) {
        if (t.isEmpty() || t.length() > 9) {
            return false;
        }
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** 4 lower-case hex digits, as {@code [0-9a-f]{4}} matches. */
    static boolean fourHexDigits(String t) {
        if (t.length() != 4) {
            return false;
        }
        for (int i = 0; i < 4; i++) {
            char c = t.charAt(i);
            if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
                return false;
            }
        }
        return true;
    }

    /** True for a field written as a mapping of parts ({@code pcieLink}, {@code powerLimits}): read by {@link #parseParts}. */
    public boolean hasParts() {
        return type == PcieLink.class || type == PowerLimits.class;
    }

    /**
     * The value of a field with parts from the text of each part, by part name, as the inventory writes it:
     * {@code pcieLink} from {@code currentGen}, {@code maxGen}, {@code currentWidth}, {@code maxWidth} (whole
     * numbers; {@code degraded}, derived from the widths, is skipped), {@code powerLimits} from {@code minWatts},
     * {@code maxWatts}, {@code defaultWatts} (numbers). A part left out is unknown; null when every part is.
     *
     * @throws IllegalArgumentException what was expected, for a part this field does not have or text it cannot hold
     */
    public T parseParts(java.util.Map<String, String> parts) {
        if (type == PcieLink.class) {
            List<String> names = List.of("currentGen", "maxGen", "currentWidth", "maxWidth", "degraded");
            checkParts(parts, names);
            PcieLink link = new PcieLink(whole(parts, "currentGen"), whole(parts, "maxGen"),
                    whole(parts, "currentWidth"), whole(parts, "maxWidth"));
            return link.isEmpty() ? null : type.cast(link);
        }
        if (type == PowerLimits.class) {
            checkParts(parts, List.of("minWatts", "maxWatts", "defaultWatts"));
            PowerLimits limits = new PowerLimits(watts(parts, "minWatts"), watts(parts, "maxWatts"),
                    watts(parts, "defaultWatts"));
            return limits.isEmpty() ? null : type.cast(limits);
        }
        throw new IllegalArgumentException("expected one value for " + name + ", not a mapping");
    }

    private void checkParts(java.util.Map<String, String> parts, List<String> names) {
        for (String part : parts.keySet()) {
            if (!names.contains(part)) {
                throw new IllegalArgumentException("unknown part '" + part + "' of " + name + "; expected "
                        + String.join(", ", names));
            }
        }
    }

    private static Integer whole(java.util.Map<String, String> parts, String part) {
        String t = parts.get(part);
        if (t == null || t.isBlank()) {
            return null;
        }
        if (!wholeNumber(t.strip())) {
            throw new IllegalArgumentException(part + ": expected a whole number of 0 or more");
        }
        return Integer.valueOf(t.strip());
    }

    private static Double watts(java.util.Map<String, String> parts, String part) {
        String t = parts.get(part);
        if (t == null || t.isBlank()) {
            return null;
        }
        try {
            return Double.valueOf(t.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(part + ": expected a number of watts");
        }
    }

    private static Health.Status healthStatus(String text) {
        for (Health.Status s : Health.Status.values()) {
            if (s.id().equalsIgnoreCase(text)) {
                return s;
            }
        }
        throw new IllegalArgumentException("expected ok, degraded, failed or lost");
    }

    @Override
    public String toString() {
        return name;
    }
}
