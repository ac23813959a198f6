package io.gpudetect.tables;

import io.gpudetect.source.Source;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The id tables normalisation uses, each loaded on first use: a replay whose tools named every card never
 * parses pci.ids, and a host without GPUs never reads Akash's table, which keeps a one-shot command fast.
 * pci.ids and amdgpu.ids ship in the jar, from Debian's packages; on a live host its own copies replace them
 * when newer, and a recorded bundle uses the jar's only, so a replay gives the same answer on every machine.
 * Akash's table is not shipped: the caller reads it ({@link AkashTableReader}) and hands it in.
 */
public final class Tables {

    private static final List<String> HOST_PCI_IDS = List.of(
            "/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids", "/usr/share/pci.ids");
    /** Where libdrm-common installs it (Debian, Ubuntu, Fedora's libdrm alike). */
    private static final String HOST_AMDGPU_IDS = "/usr/share/libdrm/amdgpu.ids";

    private final Supplier<PciIds> pciIds;
    private final Supplier<AkashGpus> akash;
    private final Supplier<AmdGpuIds> amdGpuIds;

    public Tables(PciIds pciIds, AkashGpus akash, AmdGpuIds amdGpuIds) {
        this(() -> pciIds, () -> akash, () -> amdGpuIds);
    }

    private Tables(Supplier<PciIds> pciIds, Supplier<AkashGpus> akash, Supplier<AmdGpuIds> amdGpuIds) {
        this.pciIds = once(pciIds);
        // Not kept here: the supplier decides how long a copy lasts (a command's for its run, the agent's a day).
        this.akash = akash;
        this.amdGpuIds = once(amdGpuIds);
    }

    /**
     * The jar's pci.ids and amdgpu.ids, and Akash's table as {@code akash} gives it, asked when a card is first named
     * and at each card after: the supplier keeps its copy as long as it should ({@link AkashTableReader#refreshing}).
     */
    public static Tables shipped(Supplier<AkashGpus> akash) {
        return new Tables(PciIds::shipped, akash, AmdGpuIds::shipped);
    }

    /** The jar's tables, with the host's pci.ids and amdgpu.ids where they are newer. */
    public static Tables forSource(Source source, Supplier<AkashGpus> akash) {
        if (source.isRecorded()) {
            return shipped(akash);
        }
        return new Tables(() -> PciIds.shipped().newer(hostPciIds(source)), akash,
                () -> AmdGpuIds.shipped().newer(hostAmdGpuIds(source)));
    }

    private static PciIds hostPciIds(Source source) {
        for (String path : HOST_PCI_IDS) {
            Optional<String> text = hostFile(source, path);
            if (text.isPresent()) {
                try {
                    return PciIds.parse(text.get());
                } catch (RuntimeException e) {
                    // A malformed host table is no loss: the shipped one answers.
                }
            }
        }
        return null;
    }

    private static AmdGpuIds hostAmdGpuIds(Source source) {
        return hostFile(source, HOST_AMDGPU_IDS).map(text -> AmdGpuIds.of(text, HOST_AMDGPU_IDS + " (host)")).orElse(null);
    }

    private static Optional<String> hostFile(Source source, String path) {
        try {
            return source.readFile(path);
        } catch (IOException | RuntimeException e) {
            // An unreadable host table is no loss: the shipped one answers.
            return Optional.empty();
        }
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
