package io.gpudetect.tables;

import io.gpudetect.source.Source;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * The id tables normalisation uses. The shipped copies are always there; on a live host its own
 * {@code pci.ids} replaces ours when newer. A recorded bundle uses the shipped tables only, so a
 * replay gives the same answer on every machine.
 */
public record Tables(PciIds pciIds, AkashGpus akash, AmdGpuIds amdGpuIds) {

    private static final List<String> HOST_PCI_IDS = List.of(
            "/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids", "/usr/share/pci.ids");

    public static Tables shipped() {
        return new Tables(PciIds.shipped(), AkashGpus.shipped(), AmdGpuIds.shipped());
    }

    /** The shipped tables, with the host's pci.ids where it is newer. */
    public static Tables forSource(Source source) {
        Tables shipped = shipped();
        if (source.isRecorded()) {
            return shipped;
        }
        for (String path : HOST_PCI_IDS) {
            try {
                Optional<String> text = source.readFile(path);
                if (text.isPresent()) {
                    return new Tables(shipped.pciIds.newer(PciIds.parse(text.get())), shipped.akash, shipped.amdGpuIds);
                }
            } catch (IOException | RuntimeException e) {
                // An unreadable host table is no loss: the shipped one answers.
            }
        }
        return shipped;
    }
}
