package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;

/**
 * A GPU's direct links to other GPUs, to NVSwitches and to CPUs (NVLink, AMD's XGMI, an NVLink bridge between two
 * cards), grouped by where they lead: eight H100 on NVSwitch each have one group of 18 links to the switches, two
 * cards joined by a bridge one group to each other. Vendor-neutral: NVML gives each link's state, version and far
 * end ({@code nvmlDeviceGetNvLink*}); {@code nvidia-smi topo -m} gives a count of links per GPU pair ({@code NV12});
 * amdgpu's sysfs gives the XGMI hive. What the node's GPUs make of them together is {@link Interconnect}.
 *
 * <p>An empty list is a fact ("this GPU has no links": NVML answered Not Supported for its first link); a null
 * {@code GpuLinks} on a GPU means nothing read them.
 *
 * @param links  the groups of links, by kind, state, version and far end
 * @param fabric the multi-node NVLink fabric the GPU is registered with (GB200 NVL72), or null where NVML has none
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record GpuLinks(List<Link> links, Fabric fabric) {

    public GpuLinks {
        links = links == null ? List.of() : List.copyOf(links);
    }

    /** What carries a link. */
    public enum Kind {
        /** NVIDIA NVLink, on the board (SXM) or to an NVSwitch. */
        NVLINK,
        /** AMD Infinity Fabric links between GPUs of one hive. */
        XGMI,
        /** An NVLink bridge across two PCIe cards (what NVML calls NVLink too; told apart by the cards' interface). */
        BRIDGE;

        @JsonValue
        public String id() {
            return EnumIds.id(this);
        }

        public static Kind fromId(String id) {
            return EnumIds.fromId(values(), id, null);
        }
    }

    /** What is at a link's far end. */
    public enum Remote {
        GPU, NVSWITCH, CPU, UNKNOWN;

        @JsonValue
        public String id() {
            return EnumIds.id(this);
        }

        public static Remote fromId(String id) {
            return EnumIds.fromId(values(), id, UNKNOWN);
        }
    }

    /**
     * {@code count} links of one kind, state and version to one far end.
     *
     * @param up               true for links that are active; a down link on a GPU whose other links are up is a
     *                         fault (a link trained down, a bad cable or switch port)
     * @param version          NVLink version (1 to 5, as nvidia-smi prints it), null when not known
     * @param remote           what is at the far end
     * @param remotePciAddress the far GPU's PCI address ({@code 0000:07:00.0}) where {@code remote} is a GPU and the
     *                         source named it
     * @param count            how many such links
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Link(Kind kind, boolean up, Integer version, Remote remote, String remotePciAddress, int count) {
    }

    /**
     * The GPU's place in a multi-node NVLink fabric, as {@code nvmlDeviceGetGpuFabricInfoV} says it.
     *
     * @param clusterUuid the fabric's cluster UUID, lower-case with dashes; null when all zero (not registered)
     * @param cliqueId    the clique (NVLink partition) the GPU belongs to
     * @param state       {@code not-supported}, {@code not-started}, {@code in-progress} or {@code completed}
     * @param status      NVML's status name for the registration, {@code NVML_SUCCESS} when it succeeded
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Fabric(String clusterUuid, Long cliqueId, String state, String status) {

        /**
         * {@code clusterUuid.cliqueId}, as NVIDIA's GPU Feature Discovery writes {@code nvidia.com/gpu.clique}, for a GPU
         * whose registration completed with success and a non-zero cluster UUID (GFD's {@code IsFabricAttached});
         * null otherwise.
         */
        @JsonIgnore
        public String clique() {
            if (!"completed".equals(state) || clusterUuid == null || cliqueId == null
                    || (status != null && !"NVML_SUCCESS".equals(status))) {
                return null;
            }
            return clusterUuid + "." + cliqueId;
        }
    }

    /** Links that are up. */
    @JsonIgnore
    public int linksUp() {
        int n = 0;
        for (Link l : links) {
            n += l.up() ? l.count() : 0;
        }
        return n;
    }

    /** Links that are down. */
    @JsonIgnore
    public int linksDown() {
        int n = 0;
        for (Link l : links) {
            n += l.up() ? 0 : l.count();
        }
        return n;
    }

    /** Up links that lead to an NVSwitch. */
    @JsonIgnore
    public int upLinksToSwitch() {
        int n = 0;
        for (Link l : links) {
            n += l.up() && l.remote() == Remote.NVSWITCH ? l.count() : 0;
        }
        return n;
    }

    /** Up links that lead straight to the GPU at {@code pciAddress}. */
    public int upLinksTo(String pciAddress) {
        int n = 0;
        for (Link l : links) {
            n += l.up() && l.remote() == Remote.GPU && pciAddress != null && pciAddress.equals(l.remotePciAddress())
                    ? l.count() : 0;
        }
        return n;
    }

    /**
     * Whether two GPUs of one node talk over their links: straight (either names the other as its far end) or both
     * through the node's NVSwitches. {@code a} is at {@code aAddress}, {@code b} at {@code bAddress}.
     */
    public static boolean joined(GpuLinks a, String aAddress, GpuLinks b, String bAddress) {
        if (a == null || b == null) {
            return false;
        }
        return a.upLinksTo(bAddress) > 0 || b.upLinksTo(aAddress) > 0
                || (a.upLinksToSwitch() > 0 && b.upLinksToSwitch() > 0);
    }
}
