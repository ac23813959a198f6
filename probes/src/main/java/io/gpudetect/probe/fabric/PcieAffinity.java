package io.gpudetect.probe.fabric;

import io.gpudetect.model.Fabric;
import io.gpudetect.model.Fabric.PcieDistance;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * How near two PCI functions are, from where each sits under {@code /sys/devices}, in the words of
 * {@code nvidia-smi topo -m} and for every vendor. A function's place is the chain of folders from its root complex
 * down ({@code pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0}): the root complex, the root port,
 * then a switch's upstream and downstream port for each PCIe switch, then the function.
 *
 * <ul>
 *   <li>different root complexes: NODE on one NUMA node (or a host without NUMA: one node), SYS across nodes, and
 *       null (not known) when only one of the two says its node;</li>
 *   <li>one root complex, no bridge shared (different root ports): PHB;</li>
 *   <li>a bridge shared, and below the deepest shared one each function has at most one more bridge (its switch's
 *       downstream port): PIX, one switch;</li>
 *   <li>a bridge shared otherwise (one side crosses a second switch): PXB.</li>
 * </ul>
 */
public final class PcieAffinity {

    private static final Pattern ROOT = Pattern.compile("pci[0-9a-f]{4,8}:[0-9a-f]{2}");
    private static final Pattern FUNCTION = Pattern.compile("[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]");

    private PcieAffinity() {
    }

    /**
     * A function's place from the target of its link in {@code /sys/bus/pci/devices} (or any path through
     * {@code /sys/devices}): the root complex folder and each PCI function folder below it, down to the first
     * folder that is neither (an {@code infiniband} folder below a NIC's function). Empty when the path names no
     * root complex.
     */
    public static List<String> place(String path) {
        List<String> place = new ArrayList<>();
        for (String part : path.split("/")) {
            if (place.isEmpty()) {
                if (ROOT.matcher(part).matches()) {
                    place.add(part);
                }
            } else if (FUNCTION.matcher(part).matches()) {
                place.add(part);
            } else if (ROOT.matcher(part).matches()) {
                // Intel VMD: a domain of its own below a root port of the host's root complex; its folders are bridges.
                place.add(part);
            } else {
                break;
            }
        }
        return place;
    }

    /**
     * How near the functions at {@code a} and {@code b} are ({@link #place}s, each ending at the function); null
     * when either place is unknown, or the two sit under different roots and their NUMA nodes cannot tell NODE from SYS.
     */
    public static PcieDistance distance(List<String> a, Integer numaA, List<String> b, Integer numaB) {
        if (a.size() < 2 || b.size() < 2) {
            return null;
        }
        if (!a.get(0).equals(b.get(0))) {
            if (numaA == null && numaB == null) {
                return PcieDistance.NODE;
            }
            if (numaA == null || numaB == null) {
                return null;
            }
            return numaA.equals(numaB) ? PcieDistance.NODE : PcieDistance.SYS;
        }
        // Shared folders below the root complex: the bridges both paths cross.
        int shared = 0;
        int most = Math.min(a.size(), b.size()) - 1;
        while (shared < most && a.get(shared + 1).equals(b.get(shared + 1))) {
            shared++;
        }
        if (shared == 0) {
            return PcieDistance.PHB;
        }
        // Below the deepest shared bridge: each side's bridges, then its function.
        int belowA = a.size() - 1 - shared;
        int belowB = b.size() - 1 - shared;
        return belowA <= 2 && belowB <= 2 ? PcieDistance.PIX : PcieDistance.PXB;
    }

    /**
     * The nearest of {@code devices} to a GPU: among the devices with an active port when there is one (a NIC whose
     * ports are down carries no traffic), else among all; nearest first, then the faster, then by name. Null when no
     * device's distance is known.
     */
    static Fabric.NearestNic nearest(String gpuAddress, List<String> gpuPlace, Integer gpuNuma,
                                     List<Fabric.RdmaDevice> devices, List<List<String>> places) {
        boolean anyActive = false;
        for (Fabric.RdmaDevice d : devices) {
            anyActive |= d.pciAddress() != null && d.active();
        }
        Fabric.RdmaDevice best = null;
        PcieDistance bestDistance = null;
        for (int i = 0; i < devices.size(); i++) {
            Fabric.RdmaDevice d = devices.get(i);
            if (d.pciAddress() == null || (anyActive && !d.active())) {
                continue;
            }
            PcieDistance distance = distance(gpuPlace, gpuNuma, places.get(i), d.numaNode());
            if (distance == null) {
                continue;
            }
            if (best == null || distance.compareTo(bestDistance) < 0
                    || (distance == bestDistance && faster(d, best))) {
                best = d;
                bestDistance = distance;
            }
        }
        return best == null ? null : new Fabric.NearestNic(gpuAddress, best.name(), bestDistance);
    }

    /** Devices come sorted by name: a tie on distance goes to the faster, and stays with the first name otherwise. */
    private static boolean faster(Fabric.RdmaDevice d, Fabric.RdmaDevice than) {
        Double a = d.activeRateGbps();
        Double b = than.activeRateGbps();
        return a != null && (b == null || a > b);
    }
}
