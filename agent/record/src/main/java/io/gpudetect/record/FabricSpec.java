package io.gpudetect.record;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.gpudetect.model.Fabric;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The node's RDMA fabric in the capacity record: a summary a bid reads at a glance ({@code kinds},
 * {@code maxRateGbps}), GPUDirect RDMA with its evidence, and each device. Words are plain strings in the CRD's
 * schema, as the rest of the record's, so a value a newer agent adds is not refused by an older CRD.
 *
 * @param kinds         the kinds of the active ports of devices on the PCI bus, each once
 * @param maxRateGbps   the fastest active port, in Gb/s
 * @param gpuDirectRdma whether GPUDirect RDMA can work, and why
 * @param devices       every RDMA device
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record FabricSpec(
        @JsonPropertyDescription("The fabrics the node's active RDMA ports carry, each once: infiniband, roce, iwarp, other. Empty when no port of an RDMA device on the PCI bus is active.")
        List<String> kinds,
        @JsonPropertyDescription("The fastest active RDMA port's rate in Gb/s (400 for NDR); absent when no port is active.")
        Double maxRateGbps,
        @JsonPropertyDescription("Whether GPUDirect RDMA can work (can-work, cannot, unknown) and the facts that say so.")
        GpuDirect gpuDirectRdma,
        @JsonPropertyDescription("Every RDMA device under /sys/class/infiniband, sorted by name.")
        List<Device> devices) {

    public FabricSpec {
        kinds = kinds == null ? List.of() : List.copyOf(kinds);
        devices = devices == null ? List.of() : List.copyOf(devices);
    }

    /** GPUDirect RDMA as the agent judged it. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record GpuDirect(
            @JsonPropertyDescription("can-work, cannot or unknown.") String verdict,
            @JsonPropertyDescription("Each fact the verdict rests on, naming the file it was read from.") List<String> evidence) {
        public GpuDirect {
            evidence = evidence == null ? List.of() : List.copyOf(evidence);
        }
    }

    /** One RDMA device. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(value = "attributes", allowGetters = true, ignoreUnknown = true)
    public record Device(
            @JsonPropertyDescription("The device's name (mlx5_0).") String name,
            @JsonPropertyDescription("The PCI function it belongs to; absent for a software device (rxe, siw).") String pciAddress,
            @JsonPropertyDescription("The kernel driver of that function (mlx5_core).") String kernelDriver,
            @JsonPropertyDescription("The function's NUMA node; absent on a host without NUMA.") Integer numaNode,
            @JsonPropertyDescription("The PCIe root complex the function hangs under (pci0000:00), as resource.kubernetes.io/pcieRoot.") String pcieRoot,
            @JsonPropertyDescription("Each port.") List<Port> ports) {

        public Device {
            ports = ports == null ? List.of() : List.copyOf(ports);
        }

        /**
         * The device's place under Kubernetes' standard DRA attribute names, as a NIC's DRA driver publishes them: a
         * claim that asks for a GPU and a NIC with {@code matchAttribute: resource.kubernetes.io/pcieRoot} reads the
         * GPU's {@code attributes} and these alike.
         */
        @JsonProperty("attributes")
        @JsonPropertyDescription("The device's place under Kubernetes' standard DRA attribute names: resource.kubernetes.io/pciBusID, resource.kubernetes.io/pcieRoot, resource.kubernetes.io/numaNode. Derived from the fields beside it.")
        public Map<String, DeviceAttribute> attributes() {
            Map<String, DeviceAttribute> a = new TreeMap<>();
            if (pciAddress != null) {
                a.put("resource.kubernetes.io/pciBusID", DeviceAttribute.ofString(pciAddress));
            }
            if (pcieRoot != null) {
                a.put("resource.kubernetes.io/pcieRoot", DeviceAttribute.ofString(pcieRoot));
            }
            if (numaNode != null) {
                a.put("resource.kubernetes.io/numaNode", DeviceAttribute.ofInt(numaNode));
            }
            return a;
        }
    }

    /** One port of a device. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Port(
            @JsonPropertyDescription("The port number.") Integer port,
            @JsonPropertyDescription("infiniband, roce (Ethernet on a channel adapter), iwarp or other.") String kind,
            @JsonPropertyDescription("active, down, init, armed: the port's logical state.") String state,
            @JsonPropertyDescription("The rate in Gb/s.") Double rateGbps,
            @JsonPropertyDescription("The lanes and speed the kernel names (4X NDR).") String rate) {
    }

    /** A GPU's nearest RDMA device, as {@code nvidia-smi topo -m} words it. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record NearestNic(
            @JsonPropertyDescription("The RDMA device's name (mlx5_0).") String device,
            @JsonPropertyDescription("PIX (one PCIe switch), PXB (several switches), PHB (the same root complex), NODE (the same NUMA node), SYS (across sockets).") String distance) {

        /** The entry for {@code n}; null for null. */
        public static NearestNic of(Fabric.NearestNic n) {
            return n == null ? null : new NearestNic(n.device(), n.distance() == null ? null : n.distance().id());
        }
    }

    /** The record's fabric for {@code f}; null for null (not known). */
    public static FabricSpec of(Fabric f) {
        if (f == null) {
            return null;
        }
        List<String> kinds = new ArrayList<>();
        for (Fabric.Kind k : f.activeKinds()) {
            kinds.add(k.id());
        }
        List<Device> devices = new ArrayList<>();
        for (Fabric.RdmaDevice d : f.devices()) {
            List<Port> ports = new ArrayList<>();
            for (Fabric.RdmaPort p : d.ports()) {
                ports.add(new Port(p.port(), p.kind() == null ? null : p.kind().id(), p.state(), p.rateGbps(), p.rate()));
            }
            devices.add(new Device(d.name(), d.pciAddress(), d.kernelDriver(), d.numaNode(), d.pcieRoot(), ports));
        }
        Fabric.GpuDirectRdma g = f.gpuDirectRdma();
        return new FabricSpec(kinds, f.maxActiveRateGbps(), g == null ? null
                : new GpuDirect(g.verdict() == null ? null : g.verdict().id(), g.evidence()), devices);
    }
}
