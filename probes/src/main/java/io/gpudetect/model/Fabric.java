package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;

/**
 * The node's RDMA fabric, vendor-neutral: each RDMA device the kernel lists under {@code /sys/class/infiniband}
 * (InfiniBand, RoCE or iWARP; mlx5, bnxt_re, irdma, efa alike), whether GPUDirect RDMA can work and on what
 * evidence, and for each GPU its nearest RDMA device in {@code nvidia-smi topo -m}'s words. Read at a full
 * detection only: none of it changes without a reboot or a module load.
 *
 * @param devices       every RDMA device, sorted by name; empty when the host has none
 * @param gpuDirectRdma whether a GPU and an RDMA device can exchange memory directly, with the evidence
 * @param nearestNics   for each GPU with a PCI address, its nearest RDMA device; empty when there is none
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Fabric(@JsonInclude(JsonInclude.Include.NON_EMPTY) List<RdmaDevice> devices, GpuDirectRdma gpuDirectRdma, @JsonInclude(JsonInclude.Include.NON_EMPTY) List<NearestNic> nearestNics) {

    public Fabric {
        devices = devices == null ? List.of() : List.copyOf(devices);
        nearestNics = nearestNics == null ? List.of() : List.copyOf(nearestNics);
    }

    /** How an RDMA port carries its traffic: the port's {@code link_layer} and the device's {@code node_type}. */
    public enum Kind {
        /** {@code link_layer} InfiniBand. */
        INFINIBAND,
        /** {@code link_layer} Ethernet on a channel adapter ({@code node_type} 1: CA): RoCE. */
        ROCE,
        /** {@code link_layer} Ethernet on an RDMA NIC ({@code node_type} 4: RNIC): iWARP (irdma, cxgb4, qedr). */
        IWARP,
        /** Anything else the kernel says (AWS EFA writes {@code Unspecified}). */
        OTHER;

        @JsonValue
        public String id() {
            return EnumIds.id(this);
        }

        public static Kind fromId(String id) {
            return EnumIds.fromId(values(), id, null);
        }
    }

    /**
     * One RDMA device ({@code mlx5_0}).
     *
     * @param name         the device's name under {@code /sys/class/infiniband}
     * @param pciAddress   the PCI function its {@code device} link leads to; null for a software device (rxe, siw)
     * @param kernelDriver the driver bound to that function ({@code mlx5_core})
     * @param numaNode     the function's NUMA node; null on a host without NUMA
     * @param pcieRoot     the PCIe root complex the function hangs under ({@code pci0000:00}), as
     *                     {@code resource.kubernetes.io/pcieRoot}
     * @param ports        each port, by number
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record RdmaDevice(String name, String pciAddress, String kernelDriver, Integer numaNode, String pcieRoot,
                             List<RdmaPort> ports) {

        public RdmaDevice {
            ports = ports == null ? List.of() : List.copyOf(ports);
        }

        /** True when some port is up ({@code ACTIVE}). */
        @JsonIgnore
        public boolean active() {
            for (RdmaPort p : ports) {
                if (p.active()) {
                    return true;
                }
            }
            return false;
        }

        /** The fastest active port's rate in Gb/s; null when no active port says one. */
        @JsonIgnore
        public Double activeRateGbps() {
            Double best = null;
            for (RdmaPort p : ports) {
                if (p.active() && p.rateGbps() != null && (best == null || p.rateGbps() > best)) {
                    best = p.rateGbps();
                }
            }
            return best;
        }
    }

    /**
     * One port of an RDMA device ({@code ports/N}).
     *
     * @param port      the port number
     * @param kind      infiniband, roce, iwarp or other
     * @param linkLayer the {@code link_layer} file as the kernel writes it ({@code InfiniBand}, {@code Ethernet})
     * @param state     the logical state, lower-case, without its number ({@code active}, {@code down}, {@code init})
     * @param physState the physical state, lower-case ({@code linkup}, {@code disabled}, {@code polling})
     * @param rateGbps  the rate in Gb/s ({@code 400} from {@code 400 Gb/sec (4X NDR)})
     * @param rate      the lanes and speed the rate file names in brackets ({@code 4X NDR}); null when it names none
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record RdmaPort(int port, Kind kind, String linkLayer, String state, String physState, Double rateGbps,
                           String rate) {

        @JsonIgnore
        public boolean active() {
            return "active".equals(state);
        }
    }

    /**
     * Whether GPUDirect RDMA can work, as a fact with its evidence: what was read and what it means.
     *
     * @param verdict  can-work, cannot or unknown
     * @param evidence each fact the verdict rests on, one sentence each, naming the file it comes from
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record GpuDirectRdma(Verdict verdict, List<String> evidence) {

        public GpuDirectRdma {
            evidence = evidence == null ? List.of() : List.copyOf(evidence);
        }

        public enum Verdict {
            CAN_WORK("can-work"), CANNOT("cannot"), UNKNOWN("unknown");

            private final String id;

            Verdict(String id) {
                this.id = id;
            }

            @JsonValue
            public String id() {
                return id;
            }
        }
    }

    /**
     * How near two PCI functions are, in the words of {@code nvidia-smi topo -m}, nearest first.
     */
    public enum PcieDistance {
        /** Below one PCIe switch: traffic crosses that switch's ports only. */
        PIX,
        /** Below the same root port through more than one switch, never through the host bridge. */
        PXB,
        /** Below the same PCIe root complex (host bridge), under different root ports. */
        PHB,
        /** Under different root complexes of one NUMA node. */
        NODE,
        /** On different NUMA nodes: across the sockets' interconnect. */
        SYS;

        @JsonValue
        public String id() {
            return name();
        }
    }

    /**
     * A GPU's nearest RDMA device.
     *
     * @param gpuPciAddress the GPU
     * @param device        the RDMA device's name ({@code mlx5_0})
     * @param distance      how near, PIX to SYS
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record NearestNic(String gpuPciAddress, String device, PcieDistance distance) {
    }

    /** The nearest RDMA device of the GPU at {@code address}; null when none is known. */
    public NearestNic nearestNicOf(PciAddress address) {
        if (address == null) {
            return null;
        }
        String a = address.toString();
        for (NearestNic n : nearestNics) {
            if (a.equals(n.gpuPciAddress())) {
                return n;
            }
        }
        return null;
    }

    /**
     * The kinds of the active ports of the devices on the PCI bus, each once, in {@link Kind} order: what the node
     * can offer (a software device such as rxe, with no PCI function, is no fabric to bid with).
     */
    @JsonIgnore
    public List<Kind> activeKinds() {
        java.util.EnumSet<Kind> kinds = java.util.EnumSet.noneOf(Kind.class);
        for (RdmaDevice d : devices) {
            if (d.pciAddress() == null) {
                continue;
            }
            for (RdmaPort p : d.ports()) {
                if (p.active() && p.kind() != null) {
                    kinds.add(p.kind());
                }
            }
        }
        return List.copyOf(kinds);
    }

    /** The fastest active port's rate over the devices on the PCI bus, in Gb/s; null when none is active. */
    @JsonIgnore
    public Double maxActiveRateGbps() {
        Double best = null;
        for (RdmaDevice d : devices) {
            Double r = d.pciAddress() == null ? null : d.activeRateGbps();
            if (r != null && (best == null || r > best)) {
                best = r;
            }
        }
        return best;
    }
}
