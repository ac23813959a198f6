package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;
import java.util.TreeMap;

/**
 * One GPU, described the same way whoever made it. A probe returns these with only the facts its tool
 * printed (everything else null); the inventory merges them per card and fills the rest from tables.
 *
 * <p>{@code sources} maps each field name to what supplied it: a probe name ({@code nvidia-smi-xml}),
 * a table ({@code pci.ids}, {@code akash-gpus}) or {@code derived} for values computed from other fields.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Gpu(
        Vendor vendor,
        /** The product name as the tool printed it, or from pci.ids when the tool had none. */
        String name,
        /** Akash-style slug: {@code a100}, {@code rtx4090}, {@code mi300x}. */
        String model,
        /** Total VRAM, exact as reported; for a shared-memory GPU the memory it may use. */
        Long memoryMiB,
        /** VRAM as Akash counts it: the marketed size in GiB ({@code 80} for an 81559 MiB H100). */
        Integer memoryGi,
        /** True for integrated GPUs and APUs that use system memory. */
        Boolean sharedMemory,
        String driverVersion,
        /** The CUDA version the NVIDIA driver supports, or the ROCm version on AMD hosts. */
        String runtimeVersion,
        PciAddress pciAddress,
        String pciVendorId,
        String pciDeviceId,
        String pciSubsystemVendorId,
        String pciSubsystemDeviceId,
        String pciRevision,
        /**
         * PCI class and subclass, 4 hex digits: {@code 0300} for a VGA (graphics) controller, {@code 0302} for
         * a 3D (compute) controller, {@code 1200} for a processing accelerator.
         */
        String pciClass,
        String uuid,
        String serial,
        String boardPartNumber,
        /**
         * The board's product name as its FRU EEPROM holds it (amdgpu's sysfs {@code product_name}, amd-smi's
         * board {@code product_name}): the board maker's name for this card, which can differ from the chip's
         * marketing name in {@code name} ({@code AMD Instinct MI300X OAM} against {@code AMD Instinct MI300X}).
         * Only boards with a FRU chip (server cards) have one.
         */
        String boardName,
        /** {@code pcie}, {@code sxm}, {@code oam} or {@code integrated}. */
        @JsonProperty("interface") GpuInterface interfaceType,
        /** Architecture or family: {@code Hopper}, {@code gfx942}, {@code Xe-HPG}. */
        String architecture,
        /** NVIDIA compute capability, {@code 9.0}. */
        String computeCapability,
        /** AMD compute units, NVIDIA streaming multiprocessors. */
        Integer computeUnits,
        /** The kernel driver bound to the PCI function ({@code nvidia}, {@code amdgpu}, {@code i915}, {@code vfio-pci}). */
        String kernelDriver,
        Double powerLimitWatts,
        Partitioning partitioning,
        Health health,
        /** True for emulated or management display adapters (VM VGA, BMC graphics): not a GPU to bid with. */
        Boolean emulated,
        /** NVIDIA vGPU, from the PCI config space; null when it was not read. */
        Vgpu vgpu,
        /**
         * The PCIe root complex the GPU hangs under, as Kubernetes' {@code resource.kubernetes.io/pcieRoot} names
         * it: the first folder of the function's path under {@code /sys/devices} ({@code pci0000:00}). GPUs and NICs
         * with one root talk without crossing the CPU interconnect.
         */
        String pcieRoot,
        /** The NUMA node the GPU is attached to (sysfs {@code numa_node}); null on a host without NUMA ({@code -1}). */
        Integer numaNode,
        /** The PCIe link now and at most; null when nothing read it. */
        PcieLink pcieLink,
        /** The power cap's range and default; the cap in force is {@code powerLimitWatts}. */
        PowerLimits powerLimits,
        /** The video BIOS (NVIDIA) or the board's firmware image (amdgpu {@code vbios_version}) version. */
        String vbiosVersion,
        /**
         * {@code unified} for a GPU without memory of its own (an integrated GPU, an APU, GB10, Jetson), whose
         * {@code memoryMiB} is then what the platform lets it use (the host's memory); {@code dedicated} for a GPU
         * with its own VRAM. Null when neither is known.
         */
        String memoryKind,
        /**
         * The GPU's NVLink, XGMI or bridge links, grouped by far end ({@link GpuLinks}); an empty list when a source
         * said it has none, null when nothing read them. Read at a full detection only: they change with the
         * hardware, not from pass to pass.
         */
        GpuLinks links,
        Map<String, String> sources) {

    public Gpu {
        // A builder's sources are immutable and sorted already (FieldSources): kept as they are, not copied.
        sources = sources == null ? Map.of() : sources instanceof FieldSources ? sources
                : java.util.Collections.unmodifiableMap(new TreeMap<>(sources));
    }

    public static Builder builder(String source) {
        return new Builder(source);
    }

    /** The {@code memoryKind} of a GPU that uses the host's memory. */
    public static final String UNIFIED_MEMORY = "unified";

    /** The {@code memoryKind} of a GPU with memory of its own. */
    public static final String DEDICATED_MEMORY = "dedicated";

    /**
     * An integrated GPU (a CPU's or chipset's graphics, an APU): listed like any GPU, but beside discrete ones it
     * is not what a node is offered or scheduled for. Read from the interface, which the inventory sets to
     * {@code integrated} for a shared-memory GPU that no table lists otherwise, and which records keep.
     */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean integrated() {
        return interfaceType == GpuInterface.INTEGRATED;
    }

    public Builder toBuilder(String source) {
        Builder b = new Builder(source);
        for (GpuField<?> field : GpuField.ALL) {
            b.values[field.index()] = field.of(this);
        }
        if (sources instanceof FieldSources own) {
            // Shared until the builder changes a source (writableSources copies it then).
            b.sources = own.byIndex();
            b.sourcesGiven = true;
        } else {
            for (Map.Entry<String, String> e : sources.entrySet()) {
                b.source(e.getKey(), e.getValue());
            }
        }
        return b;
    }

    /**
     * Builds a {@link Gpu}, recording {@code source} as the origin of every field it sets. Setters
     * ignore null, so a parser can pass whatever it read without checking first. The named setters are
     * {@link #set} for one {@link GpuField} each.
     */
    public static final class Builder {
        private String source;
        /**
         * Values and their sources by field index: arrays, not maps. A records file of 5,000 nodes makes some 80,000
         * GPUs; a HashMap of values and a TreeMap of sources each (the latter copied again by Gpu's constructor) were
         * the largest part of reading it after the parser (docs/performance.md, "JSON records at 5,000 nodes").
         */
        private final Object[] values = new Object[GpuField.ALL.size()];
        private String[] sources = new String[GpuField.ALL.size()];
        /** True once {@link #build} gave {@link #sources} to a Gpu: the next change works on a copy. */
        private boolean sourcesGiven;
        /** Sources named by no field (a Gpu made with such a map, then {@link #toBuilder}); null when none. */
        private Map<String, String> otherSources;

        private Builder(String source) {
            this.source = source;
        }

        private void source(String name, String from) {
            GpuField<?> field = GpuField.named(name);
            if (field != null) {
                writableSources()[field.index()] = from;
            } else {
                if (otherSources == null) {
                    otherSources = new TreeMap<>();
                }
                otherSources.put(name, from);
            }
        }

        /** Records {@code source} as the origin of the fields set from now on (a table, {@code derived}). */
        public Builder as(String source) {
            this.source = source;
            return this;
        }

        /** Sets {@code field} to {@code value}, from the current source; null leaves the field as it is. */
        public <T> Builder set(GpuField<T> field, T value) {
            if (value != null) {
                values[field.index()] = value;
                writableSources()[field.index()] = source;
            }
            return this;
        }

        private <T> T get(GpuField<T> field) {
            return field.type().cast(values[field.index()]);
        }

        public Builder vendor(Vendor v) { return set(GpuField.VENDOR, v); }
        public Builder name(String v) { return set(GpuField.NAME, v); }
        public Builder model(String v) { return set(GpuField.MODEL, v); }
        public Builder memoryMiB(Long v) { return set(GpuField.MEMORY_MIB, v); }
        public Builder memoryGi(Integer v) { return set(GpuField.MEMORY_GI, v); }
        public Builder sharedMemory(Boolean v) { return set(GpuField.SHARED_MEMORY, v); }
        public Builder driverVersion(String v) { return set(GpuField.DRIVER_VERSION, v); }
        public Builder runtimeVersion(String v) { return set(GpuField.RUNTIME_VERSION, v); }
        public Builder pciAddress(PciAddress v) { return set(GpuField.PCI_ADDRESS, v); }
        public Builder pciVendorId(String v) { return set(GpuField.PCI_VENDOR_ID, v); }
        public Builder pciDeviceId(String v) { return set(GpuField.PCI_DEVICE_ID, v); }
        public Builder pciSubsystemVendorId(String v) { return set(GpuField.PCI_SUBSYSTEM_VENDOR_ID, v); }
        public Builder pciSubsystemDeviceId(String v) { return set(GpuField.PCI_SUBSYSTEM_DEVICE_ID, v); }
        public Builder pciRevision(String v) { return set(GpuField.PCI_REVISION, v); }
        public Builder pciClass(String v) { return set(GpuField.PCI_CLASS, v); }
        public Builder uuid(String v) { return set(GpuField.UUID, v); }
        public Builder serial(String v) { return set(GpuField.SERIAL, v); }
        public Builder boardPartNumber(String v) { return set(GpuField.BOARD_PART_NUMBER, v); }
        public Builder boardName(String v) { return set(GpuField.BOARD_NAME, v); }
        public Builder interfaceType(GpuInterface v) { return set(GpuField.INTERFACE, v); }
        public Builder architecture(String v) { return set(GpuField.ARCHITECTURE, v); }
        public Builder computeCapability(String v) { return set(GpuField.COMPUTE_CAPABILITY, v); }
        public Builder computeUnits(Integer v) { return set(GpuField.COMPUTE_UNITS, v); }
        public Builder kernelDriver(String v) { return set(GpuField.KERNEL_DRIVER, v); }
        public Builder powerLimitWatts(Double v) { return set(GpuField.POWER_LIMIT_WATTS, v); }
        public Builder partitioning(Partitioning v) { return set(GpuField.PARTITIONING, v); }
        public Builder health(Health v) { return set(GpuField.HEALTH, v); }
        public Builder emulated(Boolean v) { return set(GpuField.EMULATED, v); }
        public Builder vgpu(Vgpu v) { return set(GpuField.VGPU, v); }
        public Builder pcieRoot(String v) { return set(GpuField.PCIE_ROOT, v); }
        public Builder numaNode(Integer v) { return set(GpuField.NUMA_NODE, v); }
        public Builder pcieLink(PcieLink v) { return set(GpuField.PCIE_LINK, v == null || v.isEmpty() ? null : v); }
        public Builder powerLimits(PowerLimits v) { return set(GpuField.POWER_LIMITS, v == null || v.isEmpty() ? null : v); }
        public Builder vbiosVersion(String v) { return set(GpuField.VBIOS_VERSION, v); }
        public Builder memoryKind(String v) { return set(GpuField.MEMORY_KIND, v); }
        public Builder links(GpuLinks v) { return set(GpuField.LINKS, v); }

        /**
         * Sets every field still unset from {@code other}, with the source {@code other} names for it. Merging
         * calls this for each observation of a card in precedence order, so each field comes from the first
         * probe that reported it. Field by field rather than a getter and a setter reference per field in the
         * merge: docs/performance.md, "Start-up and footprint tricks", row "merge by fillFrom".
         */
        public Builder fillFrom(Gpu other) {
            for (GpuField<?> field : GpuField.ALL) {
                Object value = field.of(other);
                if (value != null && values[field.index()] == null) {
                    values[field.index()] = value;
                    writableSources()[field.index()] = other.sources().getOrDefault(field.name(), "unknown");
                }
            }
            return this;
        }

        public Gpu build() {
            return new Gpu(get(GpuField.VENDOR), get(GpuField.NAME), get(GpuField.MODEL), get(GpuField.MEMORY_MIB),
                    get(GpuField.MEMORY_GI), get(GpuField.SHARED_MEMORY), get(GpuField.DRIVER_VERSION),
                    get(GpuField.RUNTIME_VERSION), get(GpuField.PCI_ADDRESS), get(GpuField.PCI_VENDOR_ID),
                    get(GpuField.PCI_DEVICE_ID), get(GpuField.PCI_SUBSYSTEM_VENDOR_ID),
                    get(GpuField.PCI_SUBSYSTEM_DEVICE_ID), get(GpuField.PCI_REVISION), get(GpuField.PCI_CLASS), get(GpuField.UUID),
                    get(GpuField.SERIAL), get(GpuField.BOARD_PART_NUMBER), get(GpuField.BOARD_NAME), get(GpuField.INTERFACE),
                    get(GpuField.ARCHITECTURE), get(GpuField.COMPUTE_CAPABILITY), get(GpuField.COMPUTE_UNITS),
                    get(GpuField.KERNEL_DRIVER), get(GpuField.POWER_LIMIT_WATTS), get(GpuField.PARTITIONING),
                    get(GpuField.HEALTH), get(GpuField.EMULATED), get(GpuField.VGPU), get(GpuField.PCIE_ROOT),
                    get(GpuField.NUMA_NODE), get(GpuField.PCIE_LINK), get(GpuField.POWER_LIMITS),
                    get(GpuField.VBIOS_VERSION), get(GpuField.MEMORY_KIND), get(GpuField.LINKS), builtSources());
        }

        /** The sources as the Gpu keeps them; the builder goes on with a copy of its own if it is used again. */
        private Map<String, String> builtSources() {
            if (otherSources != null) {
                Map<String, String> all = new TreeMap<>(otherSources);
                for (GpuField<?> field : GpuField.ALL) {
                    if (sources[field.index()] != null) {
                        all.put(field.name(), sources[field.index()]);
                    }
                }
                return all;
            }
            sourcesGiven = true;
            return new FieldSources(sources);
        }

        private String[] writableSources() {
            if (sourcesGiven) {
                sources = sources.clone();
                sourcesGiven = false;
            }
            return sources;
        }
    }
}
