package io.gpudetect.inventory;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuField;
import io.gpudetect.model.Partitioning;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.ProbeResult;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Folds what several probes saw into one GPU per card. Observations are grouped by PCI address
 * (domain included); one without an address joins the group with the same UUID, else, when a probe
 * saw as many address-less cards of a vendor as there are groups of that vendor it has not joined yet,
 * they pair in order (tools list cards in PCI bus order). Anything else stays a card of its own: a
 * card counted twice is visible, a card silently folded into another is not.
 *
 * <p>Within a group each field comes from the first probe, in the order the results are given, that
 * reported it: the caller passes results in precedence order (native library, vendor tool, OpenCL, sysfs).
 */
public final class Merger {

    private Merger() {
    }

    /**
     * Merges the results, given in precedence order. The addresses of {@code probesWithoutDomain} name domain 0000
     * only because those tools print none, so a card they place there joins the one card at the same bus, device and
     * function in another domain, when exactly one is there.
     */
    public static List<Gpu> merge(List<ProbeResult> resultsInPrecedenceOrder, Set<String> probesWithoutDomain) {
        Map<Gpu, String> probeOf = new IdentityHashMap<>();
        Map<Gpu, Integer> rankOf = new IdentityHashMap<>();
        for (int rank = 0; rank < resultsInPrecedenceOrder.size(); rank++) {
            ProbeResult result = resultsInPrecedenceOrder.get(rank);
            for (Gpu gpu : result.gpus()) {
                probeOf.put(gpu, result.probe());
                rankOf.put(gpu, rank);
            }
        }
        List<List<Gpu>> groups = new ArrayList<>();
        // Addresses first, from every probe: whichever probe printed it, the address is the surest key.
        Map<PciAddress, List<Gpu>> byAddress = new LinkedHashMap<>();
        for (ProbeResult result : resultsInPrecedenceOrder) {
            for (Gpu gpu : result.gpus()) {
                if (gpu.pciAddress() != null) {
                    byAddress.computeIfAbsent(gpu.pciAddress(), a -> {
                        List<Gpu> group = new ArrayList<>();
                        groups.add(group);
                        return group;
                    }).add(gpu);
                }
            }
        }
        placeDomainlessAddresses(groups, byAddress, probeOf, rankOf, probesWithoutDomain);
        // Then what came without an address, probe by probe, so that its position in the list never
        // decides whether a card is counted once or twice.
        for (ProbeResult result : resultsInPrecedenceOrder) {
            List<Gpu> pending = new ArrayList<>();
            for (Gpu gpu : result.gpus()) {
                if (gpu.pciAddress() == null) {
                    List<Gpu> group = byUuid(groups, gpu.uuid());
                    if (group == null) {
                        pending.add(gpu);
                    } else {
                        group.add(gpu);
                    }
                }
            }
            pairInOrder(groups, pending, result.probe(), probeOf);
        }
        List<Gpu> merged = new ArrayList<>(groups.size());
        for (List<Gpu> group : groups) {
            List<Gpu> ordered = new ArrayList<>(group);
            ordered.sort((a, b) -> Integer.compare(rankOf.get(a), rankOf.get(b)));
            merged.add(combine(ordered));
        }
        return merged;
    }

    private static void placeDomainlessAddresses(List<List<Gpu>> groups, Map<PciAddress, List<Gpu>> byAddress,
                                                 Map<Gpu, String> probeOf, Map<Gpu, Integer> rankOf,
                                                 Set<String> probesWithoutDomain) {
        if (probesWithoutDomain.isEmpty()) {
            return;
        }
        for (Map.Entry<PciAddress, List<Gpu>> entry : new ArrayList<>(byAddress.entrySet())) {
            PciAddress guessed = entry.getKey();
            List<Gpu> group = entry.getValue();
            if (guessed.domain() != 0 || !allFrom(group, probesWithoutDomain, probeOf)) {
                continue;
            }
            List<PciAddress> sameSlot = new ArrayList<>();
            for (PciAddress a : byAddress.keySet()) {
                if (a.domain() != 0 && a.bus() == guessed.bus() && a.device() == guessed.device()
                        && a.function() == guessed.function()) {
                    sameSlot.add(a);
                }
            }
            if (sameSlot.size() == 1) {
                List<Gpu> target = byAddress.get(sameSlot.get(0));
                for (Gpu g : group) {
                    // The observation with its address corrected, keeping the probe and precedence it came with.
                    Gpu placed = g.toBuilder(probeOf.get(g)).pciAddress(sameSlot.get(0)).build();
                    probeOf.put(placed, probeOf.get(g));
                    rankOf.put(placed, rankOf.get(g));
                    target.add(placed);
                }
                groups.remove(group);
                byAddress.remove(guessed);
            }
        }
    }

    private static boolean allFrom(List<Gpu> group, Set<String> probes, Map<Gpu, String> probeOf) {
        for (Gpu g : group) {
            if (!probes.contains(probeOf.get(g))) {
                return false;
            }
        }
        return true;
    }

    private static List<Gpu> byUuid(List<List<Gpu>> groups, String uuid) {
        if (uuid == null || uuid.isBlank()) {
            return null;
        }
        String wanted = normaliseUuid(uuid);
        for (List<Gpu> group : groups) {
            for (Gpu g : group) {
                if (g.uuid() != null && normaliseUuid(g.uuid()).equals(wanted)) {
                    return group;
                }
            }
        }
        return null;
    }

    private static String normaliseUuid(String uuid) {
        String lower = uuid.toLowerCase(Locale.ROOT);
        return lower.startsWith("gpu-") || lower.startsWith("mig-") ? lower.substring(4) : lower;
    }

    private static void pairInOrder(List<List<Gpu>> groups, List<Gpu> pending, String probe, Map<Gpu, String> probeOf) {
        Map<Vendor, List<Gpu>> pendingByVendor = new LinkedHashMap<>();
        for (Gpu g : pending) {
            pendingByVendor.computeIfAbsent(vendorOf(g), v -> new ArrayList<>()).add(g);
        }
        for (Map.Entry<Vendor, List<Gpu>> e : pendingByVendor.entrySet()) {
            // The vendor's groups this probe has not joined yet, in bus order (groups without an address last).
            List<List<Gpu>> candidates = new ArrayList<>();
            for (List<Gpu> group : groups) {
                if (vendorOf(group.get(0)) == e.getKey() && !joinedBy(group, probe, probeOf)) {
                    candidates.add(group);
                }
            }
            candidates.sort(Merger::busOrder);
            List<Gpu> cards = e.getValue();
            if (candidates.size() == cards.size()) {
                for (int i = 0; i < cards.size(); i++) {
                    candidates.get(i).add(cards.get(i));
                }
            } else {
                for (Gpu card : cards) {
                    List<Gpu> group = new ArrayList<>();
                    group.add(card);
                    groups.add(group);
                }
            }
        }
    }

    private static boolean joinedBy(List<Gpu> group, String probe, Map<Gpu, String> probeOf) {
        for (Gpu g : group) {
            if (probe.equals(probeOf.get(g))) {
                return true;
            }
        }
        return false;
    }

    private static int busOrder(List<Gpu> a, List<Gpu> b) {
        return PciAddress.compareNullsLast(addressOf(a), addressOf(b));
    }

    private static PciAddress addressOf(List<Gpu> group) {
        for (Gpu g : group) {
            if (g.pciAddress() != null) {
                return g.pciAddress();
            }
        }
        return null;
    }

    static Vendor vendorOf(Gpu g) {
        if (g.vendor() != null && g.vendor() != Vendor.OTHER) {
            return g.vendor();
        }
        if (g.pciVendorId() != null) {
            return Vendor.fromPciVendorId(g.pciVendorId());
        }
        return Vendor.fromName(g.name());
    }

    /** One GPU from a group: each field from the first observation that has it. */
    static Gpu combine(List<Gpu> group) {
        Gpu.Builder b = Gpu.builder("merged");
        // A name the nvidia-smi table cut short ("NVIDIA GeForce RTX 2080 ...") loses to a full one from any probe.
        Gpu named = null;
        for (Gpu g : group) {
            if (g.name() != null && (named == null || NameShapes.isTruncated(named.name()) && !NameShapes.isTruncated(g.name()))) {
                named = g;
            }
        }
        if (named != null) {
            b.as(named.sources().getOrDefault("name", "unknown")).name(named.name());
        }
        for (Gpu g : group) {
            b.fillFrom(g);
        }
        // A tool that prints only the partition mode (amd-smi) leaves the memory mode and the modes a card can be
        // switched to, which sysfs reads, to the next observation that has them.
        Partitioning partitioning = null;
        String partitioningSource = null;
        for (Gpu g : group) {
            if (g.partitioning() != null) {
                if (partitioning == null) {
                    partitioning = g.partitioning();
                    partitioningSource = g.sources().getOrDefault(GpuField.PARTITIONING.name(), "unknown");
                } else {
                    partitioning = completed(partitioning, g.partitioning());
                }
            }
        }
        if (partitioning != null) {
            b.as(partitioningSource).partitioning(partitioning);
        }
        return b.build();
    }

    /** {@code first} with the memory mode and mode lists it lacks taken from {@code other}, when both name one mode. */
    private static Partitioning completed(Partitioning first, Partitioning other) {
        if (first.kind() != null && other.kind() != null && !first.kind().equalsIgnoreCase(other.kind())
                || first.memoryMode() != null && first.modes() != null && first.memoryModes() != null) {
            return first;
        }
        return new Partitioning(first.kind(), first.enabled(), first.pendingEnabled(), first.instances(),
                first.memoryMode() != null ? first.memoryMode() : other.memoryMode(),
                first.modes() != null ? first.modes() : other.modes(),
                first.memoryModes() != null ? first.memoryModes() : other.memoryModes());
    }
}
