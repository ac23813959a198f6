package io.gpudetect.labels;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The node labels Akash's inventory operator writes ({@code operator/inventory/node-discovery.go} in
 * akash-network/provider, {@code generateLabels}), for clusters where the operator does not run:
 * <ul>
 *   <li>{@code akash.network=true} on every node, GPU or not: the operator's mark of a node it manages, and
 *       the node affinity every Akash workload carries ({@code cluster/kube/builder/workload.go});</li>
 *   <li>{@code akash.network/capabilities.gpu.vendor.<vendor>.model.<model>} with the number of such cards,
 *       and under that model key {@code .ram.<N>Gi} and {@code .interface.<i>} ({@code pcie}, {@code sxm}
 *       for any SXM generation, as Akash's {@code FilterGPUInterface} folds it), each counted the same way;</li>
 *   <li>{@code nvidia.com/gpu.present=true} where an NVIDIA card is found: the operator writes it because
 *       NVIDIA's device plugin DaemonSet selects on it.</li>
 * </ul>
 * A combined {@code .ram.<N>Gi.interface.<i>} form is not written: the operator does not write it, and its
 * name part passes the 63-character limit for most models ({@code ...model.rtx4090.ram.24Gi.interface.pcie}
 * is 68).
 *
 * <p>The operator counts only cards its GPU table lists, with the table's model, memory size and interface.
 * The inventory takes model and interface from the same table and rounds the card's own VRAM to the table's
 * size where they agree, so a listed card gets the operator's exact keys. A card the table does not list
 * (another board maker's subsystem id, an Intel card) is still counted, under the model slug the inventory
 * gives it; cards of other vendors (an Apple or Arm SoC GPU, a BMC display) are left out, and so are integrated
 * GPUs of any vendor: Akash bids on {@code nvidia.com/gpu} and {@code amd.com/gpu} cards, its table lists no
 * integrated GPU, and a processor's graphics beside the cards would be offered as a card it is not.
 */
public final class AkashProfile implements LabelProfile {

    public static final String NAME = "akash";
    public static final String PREFIX = "akash.network";
    /**
     * Akash's GPU table and bid engine know NVIDIA and AMD; Intel cards are labelled as well for the providers
     * who list them by hand. Others (an Apple or Arm SoC GPU, a BMC's display) are never offered on Akash.
     */
    static final java.util.Set<Vendor> LABELLED_VENDORS = java.util.EnumSet.of(Vendor.NVIDIA, Vendor.AMD, Vendor.INTEL);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SortedMap<String, String> labels(Inventory inventory) {
        List<Gpu> gpus = inventory.realGpus().stream()
                .filter(g -> LABELLED_VENDORS.contains(g.vendor()) && !g.integrated()).toList();
        SortedMap<String, String> out = new TreeMap<>();
        out.put(PREFIX, "true");
        if (gpus.stream().anyMatch(g -> g.vendor() == Vendor.NVIDIA)) {
            out.put(NvidiaProfile.PREFIX + "/gpu.present", "true");
        }
        for (Gpu g : gpus) {
            String model = "capabilities.gpu.vendor." + GpuFacts.vendor(g) + ".model." + GpuFacts.model(g);
            count(out, model);
            if (g.memoryGi() != null) {
                count(out, model + ".ram." + g.memoryGi() + "Gi");
            }
            if (g.interfaceType() != null) {
                count(out, model + ".interface." + LabelText.segment(g.interfaceType().id()));
            }
        }
        return out;
    }

    private static void count(SortedMap<String, String> out, String name) {
        out.merge(LabelText.key(PREFIX, name), "1", (a, b) -> String.valueOf(Integer.parseInt(a) + 1));
    }
}
