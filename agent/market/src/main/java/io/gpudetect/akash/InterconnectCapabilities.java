package io.gpudetect.akash;

import io.gpudetect.record.FabricSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * The GPU interconnect capabilities a provider could declare for a node, from its fabric: Akash's provider
 * attributes {@code capabilities/gpu-interconnect} and, for each fabric it offers, {@code
 * capabilities/gpu-interconnect/fabric/infiniband} or {@code .../roce} (provider PR 400; Akash's provider
 * attribute docs). A tenant's placement requires the first, and may pin one of the others.
 *
 * <p>Only active ports of RDMA devices on the PCI bus count: Akash's inventory operator reads the first device's
 * port 1 {@code link_layer}, whatever its state, and reads any Ethernet device (software RoCE, iWARP) as RoCE; we
 * say what can carry traffic. What the provider also needs, an RDMA device plugin's resource
 * ({@code rdma/rdma_shared_device_*} by default) in the node's allocatable, is not in the record.
 */
public final class InterconnectCapabilities {

    public static final String CAPABILITY = "capabilities/gpu-interconnect";

    private InterconnectCapabilities() {
    }

    /** The capabilities the node supports, each as {@code key=true}; empty when none; null when its fabric is not known. */
    public static List<String> of(FabricSpec fabric) {
        if (fabric == null) {
            return null;
        }
        List<String> out = new ArrayList<>();
        List<String> pins = new ArrayList<>();
        for (String kind : fabric.kinds()) {
            if (kind.equals("infiniband") || kind.equals("roce")) {
                pins.add(CAPABILITY + "/fabric/" + kind + "=true");
            }
        }
        if (!pins.isEmpty()) {
            out.add(CAPABILITY + "=true");
            out.addAll(pins);
        }
        return out;
    }
}
