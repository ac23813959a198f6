package io.gpudetect.testing;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.sink.Observation;
import java.util.function.Supplier;

/** Observations for tests that give the agent an inventory alone: no DRM cards read, no host facts. */
public final class Observations {

    /** What an observation without {@code /sys/class/drm} holds: the record then says nothing about DRM nodes. */
    public static final DrmCards DRM_NOT_READ = new DrmCards.NotKnown("the test gives the agent no /sys/class/drm");

    private Observations() {
    }

    /** Each pass observes what {@code inventory} hands back, with no DRM cards and no host facts. */
    public static Supplier<Observation> of(Supplier<Inventory> inventory) {
        return () -> new Observation(inventory.get(), DRM_NOT_READ, null);
    }
}
