package io.gpudetect.tables;

import io.gpudetect.source.Source;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The id tables normalisation uses, each loaded on first use: a replay whose tools named every card
 * never parses pci.ids, which keeps a one-shot command fast. The shipped copies are always there; on a
 * live host its own {@code pci.ids} replaces ours when newer. A recorded bundle uses the shipped tables
 * only, so a replay gives the same answer on every machine.
 */
public final class Tables {

    private static final List<String> HOST_PCI_IDS = List.of(
            "/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids", "/usr/share/pci.ids");

    private final Supplier<PciIds> pciIds;
    private final Supplier<AkashGpus> akash;
    private final Supplier<AmdGpuIds> amdGpuIds;

    public Tables(PciIds pciIds, AkashGpus akash, AmdGpuIds amdGpuIds) {
        this(() -> pciIds, () -> akash, () -> amdGpuIds);
    }

    private Tables(Supplier<PciIds> pciIds, Supplier<AkashGpus> akash, Supplier<AmdGpuIds> amdGpuIds) {
        this.pciIds = once(pciIds);
        this.akash = once(akash);
        this.amdGpuIds = once(amdGpuIds);
    }

    public static Tables shipped() {
        return new Tables(PciIds::shipped, AkashGpus::shipped, AmdGpuIds::shipped);
    }

    /** The shipped tables, with the host's pci.ids where it is newer. */
    public static Tables forSource(Source source) {
        if (source.isRecorded()) {
            return shipped();
        }
        return new Tables(() -> PciIds.shipped().newer(hostPciIds(source)), AkashGpus::shipped, AmdGpuIds::shipped);
    }

    private static PciIds hostPciIds(Source source) {
        for (String path : HOST_PCI_IDS) {
            try {
                Optional<String> text = source.readFile(path);
                if (text.isPresent()) {
                    return PciIds.parse(text.get());
                }
            } catch (IOException | RuntimeException e) {
                // An unreadable host table is no loss: the shipped one answers.
            }
        }
        return null;
    }

    public PciIds pciIds() {
        return pciIds.get();
    }

    public AkashGpus akash() {
        return akash.get();
    }

    public AmdGpuIds amdGpuIds() {
        return amdGpuIds.get();
    }

    /** A supplier that computes its value on the first call and keeps it (one pass may run on one thread only). */
    private static <T> Supplier<T> once(Supplier<T> loader) {
        return new Supplier<>() {
            private T value;
            private boolean loaded;

            @Override
            public synchronized T get() {
                if (!loaded) {
                    value = loader.get();
                    loaded = true;
                }
                return value;
            }
        };
    }
}
