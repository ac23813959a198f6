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
        String uuid,
        String serial,
        String boardPartNumber,
        /** {@code pcie}, {@code sxm}, {@code oam} or {@code integrated}. */
        @JsonProperty("interface") String interfaceType,
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
        Map<String, String> sources) {

    public Gpu {
        sources = sources == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(sources));
    }

    public static Builder builder(String source) {
        return new Builder(source);
    }

    public Builder toBuilder(String source) {
        Builder b = new Builder(source);
        b.vendor = vendor; b.name = name; b.model = model; b.memoryMiB = memoryMiB; b.memoryGi = memoryGi;
        b.sharedMemory = sharedMemory; b.driverVersion = driverVersion; b.runtimeVersion = runtimeVersion;
        b.pciAddress = pciAddress; b.pciVendorId = pciVendorId; b.pciDeviceId = pciDeviceId;
        b.pciSubsystemVendorId = pciSubsystemVendorId; b.pciSubsystemDeviceId = pciSubsystemDeviceId;
        b.pciRevision = pciRevision; b.uuid = uuid; b.serial = serial; b.boardPartNumber = boardPartNumber;
        b.interfaceType = interfaceType; b.architecture = architecture; b.computeCapability = computeCapability;
        b.computeUnits = computeUnits; b.kernelDriver = kernelDriver; b.powerLimitWatts = powerLimitWatts;
        b.partitioning = partitioning; b.health = health; b.emulated = emulated;
        b.sources.putAll(sources);
        return b;
    }

    /**
     * Builds a {@link Gpu}, recording {@code source} as the origin of every field it sets. Setters
     * ignore null, so a parser can pass whatever it read without checking first.
     */
    public static final class Builder {
        private String source;
        private final Map<String, String> sources = new TreeMap<>();
        private Vendor vendor;
        private String name;
        private String model;
        private Long memoryMiB;
        private Integer memoryGi;
        private Boolean sharedMemory;
        private String driverVersion;
        private String runtimeVersion;
        private PciAddress pciAddress;
        private String pciVendorId;
        private String pciDeviceId;
        private String pciSubsystemVendorId;
        private String pciSubsystemDeviceId;
        private String pciRevision;
        private String uuid;
        private String serial;
        private String boardPartNumber;
        private String interfaceType;
        private String architecture;
        private String computeCapability;
        private Integer computeUnits;
        private String kernelDriver;
        private Double powerLimitWatts;
        private Partitioning partitioning;
        private Health health;
        private Boolean emulated;

        private Builder(String source) {
            this.source = source;
        }

        private <T> T mark(String field, T value) {
            if (value != null) {
                sources.put(field, source);
            }
            return value;
        }

        /** Records {@code source} as the origin of the fields set from now on (a table, {@code derived}). */
        public Builder as(String source) {
            this.source = source;
            return this;
        }

        public Builder vendor(Vendor v) { if (v != null) vendor = mark("vendor", v); return this; }
        public Builder name(String v) { if (v != null) name = mark("name", v); return this; }
        public Builder model(String v) { if (v != null) model = mark("model", v); return this; }
        public Builder memoryMiB(Long v) { if (v != null) memoryMiB = mark("memoryMiB", v); return this; }
        public Builder memoryGi(Integer v) { if (v != null) memoryGi = mark("memoryGi", v); return this; }
        public Builder sharedMemory(Boolean v) { if (v != null) sharedMemory = mark("sharedMemory", v); return this; }
        public Builder driverVersion(String v) { if (v != null) driverVersion = mark("driverVersion", v); return this; }
        public Builder runtimeVersion(String v) { if (v != null) runtimeVersion = mark("runtimeVersion", v); return this; }
        public Builder pciAddress(PciAddress v) { if (v != null) pciAddress = mark("pciAddress", v); return this; }
        public Builder pciVendorId(String v) { if (v != null) pciVendorId = mark("pciVendorId", v); return this; }
        public Builder pciDeviceId(String v) { if (v != null) pciDeviceId = mark("pciDeviceId", v); return this; }
        public Builder pciSubsystemVendorId(String v) { if (v != null) pciSubsystemVendorId = mark("pciSubsystemVendorId", v); return this; }
        public Builder pciSubsystemDeviceId(String v) { if (v != null) pciSubsystemDeviceId = mark("pciSubsystemDeviceId", v); return this; }
        public Builder pciRevision(String v) { if (v != null) pciRevision = mark("pciRevision", v); return this; }
        public Builder uuid(String v) { if (v != null) uuid = mark("uuid", v); return this; }
        public Builder serial(String v) { if (v != null) serial = mark("serial", v); return this; }
        public Builder boardPartNumber(String v) { if (v != null) boardPartNumber = mark("boardPartNumber", v); return this; }
        public Builder interfaceType(String v) { if (v != null) interfaceType = mark("interface", v); return this; }
        public Builder architecture(String v) { if (v != null) architecture = mark("architecture", v); return this; }
        public Builder computeCapability(String v) { if (v != null) computeCapability = mark("computeCapability", v); return this; }
        public Builder computeUnits(Integer v) { if (v != null) computeUnits = mark("computeUnits", v); return this; }
        public Builder kernelDriver(String v) { if (v != null) kernelDriver = mark("kernelDriver", v); return this; }
        public Builder powerLimitWatts(Double v) { if (v != null) powerLimitWatts = mark("powerLimitWatts", v); return this; }
        public Builder partitioning(Partitioning v) { if (v != null) partitioning = mark("partitioning", v); return this; }
        public Builder health(Health v) { if (v != null) health = mark("health", v); return this; }
        public Builder emulated(Boolean v) { if (v != null) emulated = mark("emulated", v); return this; }

        /**
         * Sets every field still unset from {@code other}, with the source {@code other} names for it. Merging
         * calls this for each observation of a card in precedence order, so each field comes from the first
         * probe that reported it. Field by field rather than a getter and a setter reference per field in the
         * merge: docs/performance.md, "Start-up and footprint tricks", row "merge by fillFrom".
         */
        public Builder fillFrom(Gpu other) {
            if (vendor == null && other.vendor != null) { vendor = other.vendor; takeSource("vendor", other); }
            if (name == null && other.name != null) { name = other.name; takeSource("name", other); }
            if (model == null && other.model != null) { model = other.model; takeSource("model", other); }
            if (memoryMiB == null && other.memoryMiB != null) { memoryMiB = other.memoryMiB; takeSource("memoryMiB", other); }
            if (memoryGi == null && other.memoryGi != null) { memoryGi = other.memoryGi; takeSource("memoryGi", other); }
            if (sharedMemory == null && other.sharedMemory != null) { sharedMemory = other.sharedMemory; takeSource("sharedMemory", other); }
            if (driverVersion == null && other.driverVersion != null) { driverVersion = other.driverVersion; takeSource("driverVersion", other); }
            if (runtimeVersion == null && other.runtimeVersion != null) { runtimeVersion = other.runtimeVersion; takeSource("runtimeVersion", other); }
            if (pciAddress == null && other.pciAddress != null) { pciAddress = other.pciAddress; takeSource("pciAddress", other); }
            if (pciVendorId == null && other.pciVendorId != null) { pciVendorId = other.pciVendorId; takeSource("pciVendorId", other); }
            if (pciDeviceId == null && other.pciDeviceId != null) { pciDeviceId = other.pciDeviceId; takeSource("pciDeviceId", other); }
            if (pciSubsystemVendorId == null && other.pciSubsystemVendorId != null) { pciSubsystemVendorId = other.pciSubsystemVendorId; takeSource("pciSubsystemVendorId", other); }
            if (pciSubsystemDeviceId == null && other.pciSubsystemDeviceId != null) { pciSubsystemDeviceId = other.pciSubsystemDeviceId; takeSource("pciSubsystemDeviceId", other); }
            if (pciRevision == null && other.pciRevision != null) { pciRevision = other.pciRevision; takeSource("pciRevision", other); }
            if (uuid == null && other.uuid != null) { uuid = other.uuid; takeSource("uuid", other); }
            if (serial == null && other.serial != null) { serial = other.serial; takeSource("serial", other); }
            if (boardPartNumber == null && other.boardPartNumber != null) { boardPartNumber = other.boardPartNumber; takeSource("boardPartNumber", other); }
            if (interfaceType == null && other.interfaceType != null) { interfaceType = other.interfaceType; takeSource("interface", other); }
            if (architecture == null && other.architecture != null) { architecture = other.architecture; takeSource("architecture", other); }
            if (computeCapability == null && other.computeCapability != null) { computeCapability = other.computeCapability; takeSource("computeCapability", other); }
            if (computeUnits == null && other.computeUnits != null) { computeUnits = other.computeUnits; takeSource("computeUnits", other); }
            if (kernelDriver == null && other.kernelDriver != null) { kernelDriver = other.kernelDriver; takeSource("kernelDriver", other); }
            if (powerLimitWatts == null && other.powerLimitWatts != null) { powerLimitWatts = other.powerLimitWatts; takeSource("powerLimitWatts", other); }
            if (partitioning == null && other.partitioning != null) { partitioning = other.partitioning; takeSource("partitioning", other); }
            if (health == null && other.health != null) { health = other.health; takeSource("health", other); }
            if (emulated == null && other.emulated != null) { emulated = other.emulated; takeSource("emulated", other); }
            return this;
        }

        private void takeSource(String field, Gpu other) {
            sources.put(field, other.sources.getOrDefault(field, "unknown"));
        }

        public Gpu build() {
            return new Gpu(vendor, name, model, memoryMiB, memoryGi, sharedMemory, driverVersion, runtimeVersion,
                    pciAddress, pciVendorId, pciDeviceId, pciSubsystemVendorId, pciSubsystemDeviceId, pciRevision,
                    uuid, serial, boardPartNumber, interfaceType, architecture, computeCapability, computeUnits,
                    kernelDriver, powerLimitWatts, partitioning, health, emulated, sources);
        }
    }
}
