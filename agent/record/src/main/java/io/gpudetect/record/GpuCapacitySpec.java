package io.gpudetect.record;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuField;
import io.gpudetect.model.GpuInterface;
import io.gpudetect.model.Health;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.PcieLink;
import io.gpudetect.model.PowerLimits;
import io.gpudetect.model.Vendor;
import java.util.List;
import java.util.Map;

/**
 * What the node offers. Everything here changes only when the hardware, the node's allocatable
 * resources, the pods using GPUs or the agent's version change, so an idle node's record is never written.
 *
 * <p>Vendor, interface and health are enums here and plain strings in the CRD's schema ({@code SchemaFrom}): the
 * chart installs the CRD once and Helm never upgrades it, so a value a newer agent adds (a vendor) must not be
 * refused by an older CRD.
 *
 * <p>Every type of the record ignores fields it does not know ({@code ignoreUnknown}; fabric8's serialization leaves
 * Jackson's {@code FAIL_ON_UNKNOWN_PROPERTIES} on): once a newer release's CRD is applied, an agent rolled back to
 * this release, or this release's {@code --cluster}, reads records with fields added after it and must not fail on
 * them. 0.1.0 (48f1f59) did fail on them ({@code UpgradeTest}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(value = "interconnect", allowGetters = true, ignoreUnknown = true)
public record GpuCapacitySpec(
        @JsonPropertyDescription("Every GPU on the node (emulated display adapters left out), sorted by PCI address.")
        List<GpuEntry> gpus,
        @JsonPropertyDescription("Number of GPUs per vendor, model, memory and interface.")
        List<ModelTotal> totals,
        @JsonPropertyDescription("MIG instances and AMD partitions that exist now, per GPU.")
        List<Slice> slices,
        @JsonPropertyDescription("GPU extended resources the node advertises (status.allocatable): nvidia.com/gpu, amd.com/gpu, gpu.intel.com/*.")
        Map<String, Long> allocatable,
        @JsonPropertyDescription("GPU extended resources requested by the non-terminated pods bound to this node.")
        Map<String, Long> requested,
        @JsonPropertyDescription("CPU, memory, OS and kernel of the host; absent when the pass replayed a recorded bundle.")
        HostFacts host,
        @JsonPropertyDescription("Whether /sys/class/drm exists on the host, where Akash's inventory operator starts (false: no DRM driver is loaded and the operator sees no GPU at all); absent when the agent could not tell (a bundle recorded without it), and then every GPU's drmCards is absent too.")
        Boolean sysClassDrm,
        @JsonPropertyDescription("Version of the gpu-detect agent that wrote this record.")
        String agentVersion,
        @JsonPropertyDescription("How the GPUs are handed out to pods: device plugin (extended resources in allocatable) or DRA (ResourceSlices and ResourceClaims), per GPU; absent when the agent did not read the cluster (a dry run without a node).")
        io.gpudetect.record.dra.NodeHandout handout,
        @JsonPropertyDescription("The node's RDMA fabric (InfiniBand, RoCE): its devices, the fastest active port, whether GPUDirect RDMA can work; absent when not known (a bundle recorded without /sys/class/infiniband, an older agent).")
        FabricSpec fabric,
        @JsonPropertyDescription("The node's boot id (the Node's status.nodeInfo.bootID) when the agent saw these GPUs: an agent restarted in the same boot still reports a GPU listed here and gone from the PCI bus as lost; after a reboot it is forgotten. Absent when not known (no Node read, an older agent).")
        String bootId) {

    /** A spec without the fabric. */
    public GpuCapacitySpec(List<GpuEntry> gpus, List<ModelTotal> totals, List<Slice> slices, Map<String, Long> allocatable,
                           Map<String, Long> requested, HostFacts host, Boolean sysClassDrm, String agentVersion,
                           io.gpudetect.record.dra.NodeHandout handout) {
        this(gpus, totals, slices, allocatable, requested, host, sysClassDrm, agentVersion, handout, null, null);
    }

    /** A spec without the boot id. */
    public GpuCapacitySpec(List<GpuEntry> gpus, List<ModelTotal> totals, List<Slice> slices, Map<String, Long> allocatable,
                           Map<String, Long> requested, HostFacts host, Boolean sysClassDrm, String agentVersion,
                           io.gpudetect.record.dra.NodeHandout handout, FabricSpec fabric) {
        this(gpus, totals, slices, allocatable, requested, host, sysClassDrm, agentVersion, handout, fabric, null);
    }

    public GpuCapacitySpec {
        gpus = gpus == null ? List.of() : List.copyOf(gpus);
        totals = totals == null ? List.of() : List.copyOf(totals);
        slices = slices == null ? List.of() : List.copyOf(slices);
        // Null, not empty, when a hand-written record does not say: "not known" differs from "none advertised".
        allocatable = allocatable == null ? null : Map.copyOf(allocatable);
        requested = requested == null ? Map.of() : Map.copyOf(requested);
    }

    /**
     * How the node's GPUs are joined ({@link io.gpudetect.model.Interconnect}), derived from the GPUs' {@code links}:
     * written with them, never read back (a reader derives it again); absent when no GPU's links were read.
     */
    @JsonProperty("interconnect")
    @JsonPropertyDescription("How the node's GPUs are joined, derived from their links: topology (nvswitch, all-to-all, bridge, pairs, hybrid-cube-mesh, partial, none), summary (8 GPUs all-to-all through NVSwitch), gpus, linkedGpus, linksUp, linksDown, allPairsJoined, kind (nvlink, bridge, xgmi), clique (the multi-node NVLink clique as nvidia.com/gpu.clique writes it). Absent when no GPU's links were read.")
    public io.gpudetect.model.Interconnect interconnect() {
        List<io.gpudetect.model.Interconnect.Member> members = new java.util.ArrayList<>();
        for (GpuEntry e : gpus) {
            members.add(new io.gpudetect.model.Interconnect.Member(e.pciAddress(), e.interfaceType(), e.links()));
        }
        return io.gpudetect.model.Interconnect.ofMembers(members);
    }

    /** This spec with {@code gpus} in place of its own. */
    public GpuCapacitySpec withGpus(List<GpuEntry> gpus) {
        return new GpuCapacitySpec(gpus, totals, slices, allocatable, requested, host, sysClassDrm, agentVersion, handout,
                fabric, bootId);
    }

    /** This spec with {@code handout} in place of its own. */
    public GpuCapacitySpec withHandout(io.gpudetect.record.dra.NodeHandout handout) {
        return new GpuCapacitySpec(gpus, totals, slices, allocatable, requested, host, sysClassDrm, agentVersion, handout,
                fabric, bootId);
    }

    /** This spec with {@code bootId} (null: not known) in place of its own. */
    public GpuCapacitySpec withBootId(String bootId) {
        return new GpuCapacitySpec(gpus, totals, slices, allocatable, requested, host, sysClassDrm, agentVersion, handout,
                fabric, bootId);
    }

    /**
     * One GPU, in the vocabulary of the labels and of Akash's SDL: the {@link Gpu} fields of {@link #GPU_FIELDS},
     * under the same names, plus {@code partitioned} and {@code drmCards}, and, derived from the same fields, the
     * {@code attributes} a Kubernetes DRA driver would publish for it ({@link GpuAttributes}). {@link #of} and
     * {@link #toGpu} are the one mapping between the two; a hand-written record is read field by field through
     * {@link GpuField#parse} (and {@link GpuField#parseParts} for the link and the power limits).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(value = "attributes", allowGetters = true, ignoreUnknown = true)
    public record GpuEntry(@SchemaFrom(type = String.class) Vendor vendor, String model, String name, Long memoryMiB, Integer memoryGi,
                           @JsonProperty("interface") @JsonPropertyDescription("pcie, sxm, oam or integrated.") @SchemaFrom(type = String.class) GpuInterface interfaceType,
                           String pciAddress, String uuid,
                           @JsonPropertyDescription("ok, degraded, failed or lost; absent when no tool said.") @SchemaFrom(type = String.class) Health.Status health,
                           @JsonPropertyDescription("True when MIG (or an AMD partition mode) is on.") Boolean partitioned,
                           @JsonPropertyDescription("PCI vendor id, 4 lower-case hex digits (10de); Akash's GPU table is keyed by it and the device id.") String pciVendorId,
                           @JsonPropertyDescription("PCI device id, 4 lower-case hex digits (2684).") String pciDeviceId,
                           @JsonPropertyDescription("PCI subsystem vendor id: the board maker (1458).") String pciSubsystemVendorId,
                           @JsonPropertyDescription("PCI subsystem device id.") String pciSubsystemDeviceId,
                           @JsonPropertyDescription("Architecture or family: Hopper, gfx942, Xe-HPG.") String architecture,
                           @JsonPropertyDescription("NVIDIA compute capability (9.0).") String computeCapability,
                           @JsonPropertyDescription("The GPU driver's version as it prints it (580.159.04).") String driverVersion,
                           @JsonPropertyDescription("The CUDA version the NVIDIA driver supports (13.0), or the ROCm version on AMD hosts.") String runtimeVersion,
                           @JsonPropertyDescription("The video BIOS (NVIDIA) or board firmware image (AMD) version.") String vbiosVersion,
                           @JsonPropertyDescription("unified for a GPU without memory of its own (memoryMiB is then what the platform lets it use), dedicated for one with its own VRAM; absent when not known.") String memoryKind,
                           @JsonPropertyDescription("The PCIe root complex the GPU hangs under (pci0000:00), as resource.kubernetes.io/pcieRoot.") String pcieRoot,
                           @JsonPropertyDescription("The NUMA node the GPU is attached to; absent on a host without NUMA.") Integer numaNode,
                           @JsonPropertyDescription("The PCIe link: the most generation it can train to, the lanes it runs on and the lanes the device has; degraded when it runs on fewer lanes than the device has. No current generation: it follows the load (an idle GPU drops to Gen1).") PcieLink pcieLink,
                           @JsonPropertyDescription("The power cap in force, in watts.") Double powerLimitWatts,
                           @JsonPropertyDescription("The range the power cap may be set in and its default, in watts.") PowerLimits powerLimits,
                           @JsonPropertyDescription("The GPU's NVLink, XGMI or NVLink-bridge links, grouped by far end: kind (nvlink, xgmi, bridge), up, version (the NVLink generation), remote (gpu, nvswitch, cpu, unknown), remotePciAddress (the far GPU) and count; fabric: the multi-node NVLink fabric (clusterUuid, cliqueId, state, status). An empty list: the GPU has no links; absent: not read.")
                           @SchemaFrom(type = LinksSchema.class) io.gpudetect.model.GpuLinks links,
                           @JsonPropertyDescription("The DRM card nodes (card0 for /sys/class/drm/card0) whose device is this GPU, as Akash's inventory operator finds them; empty when it has none (its DRM driver, such as nvidia_drm, is not loaded: the operator skips the GPU); absent when not known.")
                           List<String> drmCards,
                           @JsonPropertyDescription("The RDMA device nearest the GPU and how near (PIX, PXB, PHB, NODE, SYS, as nvidia-smi topo -m words it); absent when the node has none or the fabric is not known.")
                           FabricSpec.NearestNic nearestNic,
                           @JsonPropertyDescription("Why health is not ok, as condition reasons (GpuLost, XidCritical, UncorrectableEcc, RowRemapFailure, RasUncorrectable, PcieLinkDegraded, HardwareSlowdown ...); absent when ok or when no tool said.")
                           List<String> healthReasons,
                           @JsonPropertyDescription("When the agent first saw the GPU in its present health (RFC 3339): kept while the health and its reasons stay the same, restamped when they change; absent when no tool said the GPU's health.")
                           String healthSince) {

        /** The {@link Gpu} fields an entry holds, in the entry's order ({@code GpuEntryTest} checks the two agree). */
        public static final List<GpuField<?>> GPU_FIELDS = List.of(GpuField.VENDOR, GpuField.MODEL, GpuField.NAME,
                GpuField.MEMORY_MIB, GpuField.MEMORY_GI, GpuField.INTERFACE, GpuField.PCI_ADDRESS, GpuField.UUID,
                GpuField.HEALTH, GpuField.PCI_VENDOR_ID, GpuField.PCI_DEVICE_ID, GpuField.PCI_SUBSYSTEM_VENDOR_ID,
                GpuField.PCI_SUBSYSTEM_DEVICE_ID, GpuField.ARCHITECTURE, GpuField.COMPUTE_CAPABILITY,
                GpuField.DRIVER_VERSION, GpuField.RUNTIME_VERSION, GpuField.VBIOS_VERSION, GpuField.MEMORY_KIND,
                GpuField.PCIE_ROOT, GpuField.NUMA_NODE, GpuField.PCIE_LINK, GpuField.POWER_LIMIT_WATTS,
                GpuField.POWER_LIMITS, GpuField.LINKS);

        public GpuEntry {
            // Null, not empty, when the writer could not tell: "not known" differs from "no DRM node".
            drmCards = drmCards == null ? null : List.copyOf(drmCards);
        }

        /**
         * The entry for {@code g}: a GPU without a vendor is {@code other}; {@code partitioned} is whether its
         * partitioning is on, null when it has none.
         */
        public static GpuEntry of(Gpu g, List<String> drmCards) {
            return of(g, drmCards, null);
        }

        /** The entry for {@code g}, with its nearest RDMA device (null: none, or not known). */
        public static GpuEntry of(Gpu g, List<String> drmCards, FabricSpec.NearestNic nearestNic) {
            return new GpuEntry(g.vendor() == null ? Vendor.OTHER : g.vendor(), g.model(), g.name(), g.memoryMiB(),
                    g.memoryGi(), g.interfaceType(),
                    g.pciAddress() == null ? null : g.pciAddress().toString(), g.uuid(),
                    g.health() == null ? null : g.health().status(),
                    g.partitioning() == null ? null : g.partitioning().enabled(), g.pciVendorId(), g.pciDeviceId(),
                    g.pciSubsystemVendorId(), g.pciSubsystemDeviceId(), g.architecture(), g.computeCapability(),
                    g.driverVersion(), g.runtimeVersion(), g.vbiosVersion(), g.memoryKind(), g.pcieRoot(),
                    g.numaNode(), steady(g.pcieLink()), g.powerLimitWatts(), g.powerLimits(), g.links(), drmCards, nearestNic,
                    g.health() == null || g.health().reasons().isEmpty() ? null
                            : g.health().reasons().stream().map(io.gpudetect.model.HealthReason::code).toList(),
                    null);
        }

        /** This entry with {@code since} as the time its health was first seen as it is now. */
        public GpuEntry withHealthSince(String since) {
            return new GpuEntry(vendor, model, name, memoryMiB, memoryGi, interfaceType, pciAddress, uuid, health,
                    partitioned, pciVendorId, pciDeviceId, pciSubsystemVendorId, pciSubsystemDeviceId, architecture,
                    computeCapability, driverVersion, runtimeVersion, vbiosVersion, memoryKind, pcieRoot, numaNode,
                    pcieLink, powerLimitWatts, powerLimits, links, drmCards, nearestNic, healthReasons, since);
        }

        /**
         * {@code link} without its current generation: GPUs drop an idle link to Gen1 and raise it under load, so a
         * record holding it would be rewritten whenever the load changed between passes (a record is written only
         * when what it holds changes). Lanes and the maximum do not follow the load.
         */
        private static PcieLink steady(PcieLink link) {
            if (link == null) {
                return null;
            }
            PcieLink steady = new PcieLink(null, link.maxGen(), link.currentWidth(), link.maxWidth());
            return steady.isEmpty() ? null : steady;
        }

        /** This entry with {@code uuid} and {@code partitioned}, as a hand-written record links it to its slices. */
        public GpuEntry linked(String uuid, boolean partitioned) {
            return new GpuEntry(vendor, model, name, memoryMiB, memoryGi, interfaceType, pciAddress, uuid, health,
                    partitioned, pciVendorId, pciDeviceId, pciSubsystemVendorId, pciSubsystemDeviceId, architecture,
                    computeCapability, driverVersion, runtimeVersion, vbiosVersion, memoryKind, pcieRoot, numaNode,
                    pcieLink, powerLimitWatts, powerLimits, links, drmCards, nearestNic, healthReasons, healthSince);
        }

        /**
         * The GPU this entry describes, each field from {@code source}; a PCI address that is not one is left
         * out (a caller that needs it checks {@code pciAddress()} against the GPU's).
         */
        public Gpu toGpu(String source) {
            return Gpu.builder(source).vendor(vendor).model(model).name(name).memoryMiB(memoryMiB).memoryGi(memoryGi)
                    .interfaceType(interfaceType)
                    .pciAddress(PciAddress.parse(pciAddress).orElse(null)).uuid(uuid)
                    .health(health == null ? null : new Health(health, null, List.of(), reasons()))
                    .pciVendorId(pciVendorId).pciDeviceId(pciDeviceId).pciSubsystemVendorId(pciSubsystemVendorId)
                    .pciSubsystemDeviceId(pciSubsystemDeviceId).architecture(architecture)
                    .computeCapability(computeCapability).driverVersion(driverVersion).runtimeVersion(runtimeVersion)
                    .vbiosVersion(vbiosVersion).memoryKind(memoryKind).pcieRoot(pcieRoot).numaNode(numaNode)
                    .pcieLink(pcieLink).powerLimitWatts(powerLimitWatts).powerLimits(powerLimits).links(links).build();
        }

        /** The codes of {@code healthReasons} this model knows, in order; a newer agent's other codes are left out. */
        private List<io.gpudetect.model.HealthReason> reasons() {
            if (healthReasons == null) {
                return List.of();
            }
            List<io.gpudetect.model.HealthReason> known = new java.util.ArrayList<>();
            for (String code : healthReasons) {
                io.gpudetect.model.HealthReason r = io.gpudetect.model.HealthReason.fromCode(code);
                if (r != null) {
                    known.add(r);
                }
            }
            return known;
        }

        /**
         * What a Kubernetes DRA driver would publish for this GPU, by attribute name ({@link GpuAttributes}):
         * derived from the fields above, written with them, never read back (a reader derives it again).
         */
        @JsonProperty("attributes")
        @JsonPropertyDescription("The GPU's facts under the attribute names Kubernetes DRA drivers publish, typed as a DRA device's attributes (string, int, bool, version): resource.kubernetes.io/pciBusID, resource.kubernetes.io/pcieRoot, resource.kubernetes.io/numaNode, uuid, productName, architecture, cudaComputeCapability, driverVersion, cudaDriverVersion. Derived from the fields beside it.")
        public Map<String, DeviceAttribute> attributes() {
            return GpuAttributes.of(toGpu("record"));
        }
    }

    /**
     * The CRD's schema of a GPU's {@code links}: {@link io.gpudetect.model.GpuLinks} with its kind and far end as plain
     * strings, so that a kind a newer agent adds is not refused by an older CRD (as vendor and interface).
     */
    record LinksSchema(List<LinkSchema> links, io.gpudetect.model.GpuLinks.Fabric fabric) {
    }

    /** One group of links in {@link LinksSchema}. */
    record LinkSchema(String kind, boolean up, Integer version, String remote, String remotePciAddress, int count) {
    }

    /** How many GPUs share one vendor, model, memory size and interface: a {@link Kind} and its count. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record ModelTotal(@SchemaFrom(type = String.class) Vendor vendor, String model, Integer memoryGi,
                             @JsonProperty("interface") @SchemaFrom(type = String.class) GpuInterface interfaceType,
                             int count) {

        /** The GPUs a total counts together. */
        public record Kind(Vendor vendor, String model, Integer memoryGi, GpuInterface interfaceType) {
            public static Kind of(GpuEntry e) {
                return new Kind(e.vendor(), e.model(), e.memoryGi(), e.interfaceType());
            }
        }

        public static ModelTotal of(Kind kind, int count) {
            return new ModelTotal(kind.vendor(), kind.model(), kind.memoryGi(), kind.interfaceType(), count);
        }
    }

    /** One MIG instance or partition of a GPU. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Slice(String gpuPciAddress, String gpuUuid, String kind, String profile, Integer gpuInstanceId,
                       Integer computeInstanceId, Long memoryMiB, Integer multiprocessors, String uuid) {
    }

    /** The host facts a bid needs. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record HostFacts(String cpuModel, Integer cpuCores, Integer cpuThreads, Long memoryBytes, String os,
                            String kernel) {
    }
}
