package io.gpudetect.labels;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Akash provider labels: {@code akash.network/capabilities.gpu.vendor.<vendor>.model.<model>} with the
 * number of such cards, plus {@code .ram.<N>Gi} and {@code .interface.<i>} under the model key, each
 * counted the same way; {@code akash.network/gpu=true} on a node with any GPU and
 * {@code nvidia.com/gpu.present=true} where an NVIDIA card is found (NVIDIA's device plugin DaemonSet
 * selects on it).
 *
 * <p>The first three key forms are the ones Akash's inventory operator writes
 * ({@code operator/inventory/node-discovery.go}, {@code generateLabels}: {@code .interface} hangs off the
 * model key, not off {@code .ram}). A combined {@code .ram.<N>Gi.interface.<i>} form is not written: its
 * name part passes the 63-character limit for most models ({@code ...model.rtx4090.ram.24Gi.interface.pcie}
 * is 68), and Akash reads neither it nor anything longer.
 * Cards of vendor {@code other} are left out: Akash's GPU table knows only NVIDIA and AMD.
 */
public final class AkashProfile implements LabelProfile {

    public static final String NAME = "akash";
    public static final String PREFIX = "akash.network";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SortedMap<String, String> labels(Inventory inventory) {
        List<Gpu> gpus = inventory.realGpus().stream().filter(g -> g.vendor() != null && g.vendor() != Vendor.OTHER).toList();
        SortedMap<String, String> out = new TreeMap<>();
        if (inventory.realGpus().isEmpty()) {
            return out;
        }
        out.put(PREFIX + "/gpu", "true");
        if (gpus.stream().anyMatch(g -> g.vendor() == Vendor.NVIDIA)) {
            out.put(NvidiaProfile.PREFIX + "/gpu.present", "true");
        }
        for (Gpu g : gpus) {
            String model = "capabilities.gpu.vendor." + GpuFacts.vendor(g) + ".model." + GpuFacts.model(g);
            count(out, model);
            String ram = g.memoryGi() == null ? null : model + ".ram." + g.memoryGi() + "Gi";
            String iface = g.interfaceType() == null ? null : LabelText.segment(g.interfaceType());
            if (ram != null) {
                count(out, ram);
            }
            if (iface != null) {
                count(out, model + ".interface." + iface);
            }
        }
        return out;
    }

    private static void count(SortedMap<String, String> out, String name) {
        out.merge(LabelText.key(PREFIX, name), "1", (a, b) -> String.valueOf(Integer.parseInt(a) + 1));
    }
}
