package io.gpudetect.match;

import io.gpudetect.inventory.Inventory;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One node made from a detection pass (this host, or a bundle with {@code --replay}): every detected real
 * GPU is allocatable and, unless the pass saw it failed or lost ({@link NodeOffer#free}), free, since a host on its
 * own knows nothing of pods. Emulated adapters are left out.
 */
public final class InventoryOffers implements OfferSource {

    private final String node;
    private final Inventory inventory;
    private final Instant passTime;

    /**
     * @param node      the node's name: the host name, or the bundle's recorded host
     * @param passTime  when the pass ran; it counts as the last good pass only if the pass was complete
     */
    public InventoryOffers(String node, Inventory inventory, Instant passTime) {
        this.node = node;
        this.inventory = inventory;
        this.passTime = passTime;
    }

    @Override
    public List<NodeOffer> offers() {
        return List.of(offer());
    }

    public NodeOffer offer() {
        return NodeOffer.of(node, inventory.realGpus().stream().map(OfferedGpu::of).toList(), Map.of(), Map.of(),
                inventory.complete() ? passTime : null).withFabric(io.gpudetect.record.FabricSpec.of(inventory.fabric()));
    }

    @Override
    public String describe() {
        return inventory.source();
    }
}
