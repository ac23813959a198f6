package io.gpudetect.probe.pci;

import io.gpudetect.model.PciAddress;
import io.gpudetect.source.Source;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The DRM cards Akash's operator starts from. Its discovery pod asks ghw for the GPUs (ghw v0.19.1
 * {@code pkg/gpu/gpu_linux.go}): every {@code /sys/class/drm/cardN} link without a {@code -} in its name, the PCI
 * address taken from the last part of the link's target that looks like one. A card without a DRM node (NVIDIA
 * without {@code nvidia_drm} loaded, a card bound to {@code vfio-pci}) is not a graphics card to it at all.
 */
public sealed interface DrmCards {

    String CLASS_DRM = "/sys/class/drm";

    /** One {@code cardN} link and the PCI address its target names (null when it names none: ghw skips it). */
    record Card(String name, PciAddress pciAddress) {
    }

    /**
     * What {@code /sys/class/drm} holds.
     *
     * @param present false when the directory does not exist: ghw then returns no graphics card at all
     */
    record Listed(boolean present, List<Card> cards) implements DrmCards {
        public Listed {
            cards = List.copyOf(cards);
        }

        /** The cards whose link leads to {@code address}: usually one, none when no DRM driver has the device. */
        public List<String> at(PciAddress address) {
            return cards.stream().filter(c -> address != null && address.equals(c.pciAddress())).map(Card::name).toList();
        }
    }

    /** The input cannot tell (a bundle without {@code /sys/class/drm}, a capacity record): {@code why} says so. */
    record NotKnown(String why) implements DrmCards {
    }

    /** ghw's {@code validPCIAddress}, unanchored as ghw matches it. */
    Pattern PCI_ADDRESS = Pattern.compile("\\b(0{0,4}:\\p{XDigit}{2}:\\p{XDigit}{2}\\.\\p{XDigit}:?\\w*)");

    /** Reads {@code /sys/class/drm} through {@code source}; listing it makes a recording keep each card's link. */
    static DrmCards read(Source source) {
        return new Reader(source).read();
    }

    /**
     * Reads {@code /sys/class/drm} again and again, as the agent does at every pass (nvidia_drm may be loaded while it
     * runs): while the folder names the same cards and each card's link the same target, the answer is the very value
     * of the last read. Working each target's PCI address out again (ghw's regular expression tried on the target's
     * parts, then the address parsed) was ~1.4 ms of the pass thread on an 8-GPU server in the agent's interpreter,
     * three quarters of the read (docs/performance.md, "The steady pass on a real server's sysfs"); and the same value
     * passes the agent's unchanged-inputs check by identity. While the source answers the folder's very listing of
     * last time (a {@link io.gpudetect.source.LiveSource} does while its names are the same), the cards among its
     * names and their links' paths are those of last time too: only the links are read again, each compared with its
     * target of last time as it is read (docs/performance.md, "The steady pass on a real server's sysfs, again").
     */
    final class Reader {

        /** No {@code /sys/class/drm}: one value, so that it too passes the unchanged-inputs check by identity. */
        private static final Listed ABSENT = new Listed(false, List.of());

        private final Source source;
        /** The listing the candidates below were taken from. */
        private List<String> lastListing;
        /** The names ghw would take for cards ({@code cardN}, no {@code -}), and their links' paths. */
        private String[] candidates;
        private String[] linkPaths;
        /** Each candidate's link target at the last read; null where it was no link (ghw skips it). */
        private String[] lastTargets;
        private Listed last;

        public Reader(Source source) {
            this.source = source;
        }

        public synchronized DrmCards read() {
            try {
                if (!source.exists(CLASS_DRM)) {
                    forget();
                    if (source.isRecorded()) {
                        return new NotKnown(source.describe() + " holds no /sys/class/drm (recorded without it), "
                                + "so which cards have a DRM node cannot be told");
                    }
                    return ABSENT;
                }
                List<String> listing = source.list(CLASS_DRM);
                if (listing != lastListing) {
                    takeCandidates(listing);
                }
                String[] targets = new String[candidates.length];
                boolean same = last != null;
                for (int i = 0; i < candidates.length; i++) {
                    targets[i] = source.readLink(linkPaths[i]).orElse(null);
                    same = same && Objects.equals(targets[i], lastTargets[i]);
                }
                if (same) {
                    return last;
                }
                List<Card> cards = new ArrayList<>(candidates.length);
                for (int i = 0; i < candidates.length; i++) {
                    if (targets[i] != null) {
                        cards.add(new Card(candidates[i], addressIn(targets[i])));
                    }
                }
                last = new Listed(true, cards);
                lastTargets = targets;
                return last;
            } catch (IOException e) {
                forget();
                return new NotKnown(CLASS_DRM + " could not be read: " + e.getMessage());
            }
        }

        /** The names of {@code listing} ghw would take for cards; the last value no longer answers for them. */
        private void takeCandidates(List<String> listing) {
            List<String> names = new ArrayList<>();
            for (String name : listing) {
                if (name.startsWith("card") && name.indexOf('-') < 0) {
                    names.add(name);
                }
            }
            candidates = names.toArray(new String[0]);
            linkPaths = new String[candidates.length];
            for (int i = 0; i < candidates.length; i++) {
                linkPaths[i] = CLASS_DRM + "/" + candidates[i];
            }
            lastListing = listing;
            last = null;
        }

        private void forget() {
            lastListing = null;
            last = null;
        }
    }

    /** The last part of a link target that ghw takes for a PCI address, parsed; null when there is none. */
    static PciAddress addressIn(String target) {
        String[] parts = target.split("/");
        for (int i = parts.length - 1; i >= 0; i--) {
            if (PCI_ADDRESS.matcher(parts[i]).find()) {
                return PciAddress.parse(parts[i]).orElse(null);
            }
        }
        return null;
    }
}
