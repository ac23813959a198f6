package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * How a node's GPUs are joined to each other, in one word ({@code topology}) and one sentence ({@code summary}):
 * "8 GPUs all-to-all through NVSwitch", "2 GPUs joined by an NVLink bridge", "no GPU links". Made from each GPU's
 * {@link GpuLinks}: a pure function of the GPUs, so the inventory, the record and the labels say the same.
 *
 * @param topology       {@code nvswitch} (every GPU on the node's NVSwitches), {@code all-to-all} (every pair
 *                       linked straight), {@code bridge} (two PCIe cards on a bridge), {@code pairs} (GPUs in
 *                       bridged or linked pairs, the pairs apart), {@code hybrid-cube-mesh} (8 GPUs, 4 peers each,
 *                       as DGX-1), {@code partial} (some GPUs linked, not every pair), {@code none} (no link up)
 * @param summary        the topology in words, with the links that are down
 * @param gpus           the GPUs whose links were read
 * @param linkedGpus     of them, those with at least one link up
 * @param linksUp        links up, all GPUs together (a link between two GPUs counts at each end)
 * @param linksDown      links down on GPUs that have links up (a card without a bridge has all its links down
 *                       and is counted as unlinked, not as a fault)
 * @param allPairsJoined every pair of those GPUs is joined ({@link GpuLinks#joined}): what {@code nvlink=all} asks
 * @param kind           {@code nvlink}, {@code bridge} or {@code xgmi}; null for none
 * @param clique         the multi-node NVLink clique every registered GPU agrees on ({@code clusterUuid.cliqueId});
 *                       null when none or when they disagree
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Interconnect(String topology, String summary, int gpus, int linkedGpus, int linksUp, int linksDown,
                           boolean allPairsJoined, String kind, String clique) {

    /** One GPU as this summary needs it. */
    public record Member(String pciAddress, GpuInterface interfaceType, GpuLinks links) {
        public static Member of(Gpu g) {
            return new Member(g.pciAddress() == null ? null : g.pciAddress().toString(), g.interfaceType(), g.links());
        }
    }

    /** The summary of {@code gpus}' links; null when no GPU's links were read (not known, unlike "none"). */
    public static Interconnect of(List<Gpu> gpus) {
        List<Member> members = new ArrayList<>();
        for (Gpu g : gpus) {
            members.add(Member.of(g));
        }
        return ofMembers(members);
    }

    public static Interconnect ofMembers(List<Member> members) {
        List<Member> known = new ArrayList<>();
        for (Member m : members) {
            if (m.links() != null) {
                known.add(m);
            }
        }
        if (known.isEmpty()) {
            return null;
        }
        int n = known.size();
        int linked = 0;
        int up = 0;
        int down = 0;
        TreeSet<String> kinds = new TreeSet<>();
        TreeSet<String> cliques = new TreeSet<>();
        boolean unregistered = false;
        boolean allSwitch = true;
        for (Member m : known) {
            GpuLinks l = m.links();
            up += l.linksUp();
            if (l.linksUp() > 0) {
                linked++;
                down += l.linksDown();
                for (GpuLinks.Link link : l.links()) {
                    if (link.up()) {
                        kinds.add(kindOf(link, m));
                    }
                }
            }
            allSwitch &= l.upLinksToSwitch() > 0;
            String clique = l.fabric() == null ? null : l.fabric().clique();
            if (clique != null) {
                cliques.add(clique);
            } else {
                unregistered |= l.fabric() != null && !"not-supported".equals(l.fabric().state());
            }
        }
        String clique = cliques.size() == 1 && !unregistered ? cliques.first() : null;
        String kind = kinds.isEmpty() ? null : kinds.size() == 1 ? kinds.first() : String.join("+", kinds);
        boolean[][] joined = new boolean[n][n];
        int[] degree = new int[n];
        boolean all = true;
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                joined[i][j] = joined[j][i] = GpuLinks.joined(known.get(i).links(), known.get(i).pciAddress(),
                        known.get(j).links(), known.get(j).pciAddress());
                if (joined[i][j]) {
                    degree[i]++;
                    degree[j]++;
                } else {
                    all = false;
                }
            }
        }
        String over = words(kind);
        String topology;
        String summary;
        if (linked == 0) {
            topology = "none";
            summary = n == 1 ? "no GPU links" : "no GPU links between the " + n + " GPUs";
            all = n == 1 ? false : all;
        } else if (allSwitch) {
            topology = "nvswitch";
            summary = n == 1 ? "1 GPU on NVSwitch" : n + " GPUs all-to-all through NVSwitch";
        } else if (n == 1) {
            // A GPU linked straight to GPUs this host does not show (a VM given one GPU of a board).
            topology = "partial";
            summary = "1 GPU, its " + words(kind) + " peers not on this host";
        } else if (all && n == 2 && "bridge".equals(kind)) {
            topology = "bridge";
            summary = "2 GPUs joined by an NVLink bridge";
        } else if (all && n >= 2) {
            topology = "all-to-all";
            summary = n == 2 ? "2 GPUs joined over " + over : n + " GPUs all-to-all over " + over;
        } else if (linked == n && n >= 4 && n % 2 == 0 && allDegree(degree, 1)) {
            topology = "pairs";
            summary = n + " GPUs in " + n / 2 + " pairs " + ("bridge".equals(kind) ? "joined by NVLink bridges" : "over " + over);
        } else if (n == 8 && allDegree(degree, 4) && connected(joined)) {
            topology = "hybrid-cube-mesh";
            summary = "8 GPUs in a hybrid cube mesh over " + over;
        } else {
            topology = "partial";
            summary = linked + " of " + n + " GPUs joined over " + over + ", not every pair";
        }
        if (down > 0) {
            summary += "; " + down + (down == 1 ? " link down" : " links down");
        }
        if (clique != null) {
            summary += "; NVLink clique " + clique;
        }
        return new Interconnect(topology, summary, n, linked, up, down, n >= 2 && all, kind, clique);
    }

    /**
     * A GPU's NVLink straight to another GPU is a bridge when the GPU is a PCIe card, or of unknown form (the tables
     * place every SXM and OAM module; an RTX A6000 or an L40-class card is known only by its name and has NVLink only as
     * a bridge). NVLink on SXM boards and to switches is NVLink.
     */
    private static String kindOf(GpuLinks.Link link, Member m) {
        GpuLinks.Kind kind = link.kind();
        boolean card = m.interfaceType() == GpuInterface.PCIE
                || (m.interfaceType() == null && link.remote() == GpuLinks.Remote.GPU);
        if (kind == GpuLinks.Kind.NVLINK && card) {
            return GpuLinks.Kind.BRIDGE.id();
        }
        return kind == null ? "nvlink" : kind.id();
    }

    private static String words(String kind) {
        if (kind == null) {
            return "links";
        }
        return switch (kind) {
            case "nvlink" -> "NVLink";
            case "bridge" -> "an NVLink bridge";
            case "xgmi" -> "XGMI";
            default -> kind;
        };
    }

    private static boolean allDegree(int[] degree, int d) {
        for (int x : degree) {
            if (x != d) {
                return false;
            }
        }
        return true;
    }

    private static boolean connected(boolean[][] joined) {
        int n = joined.length;
        boolean[] seen = new boolean[n];
        java.util.ArrayDeque<Integer> todo = new java.util.ArrayDeque<>();
        todo.add(0);
        seen[0] = true;
        int count = 1;
        while (!todo.isEmpty()) {
            int i = todo.poll();
            for (int j = 0; j < n; j++) {
                if (joined[i][j] && !seen[j]) {
                    seen[j] = true;
                    count++;
                    todo.add(j);
                }
            }
        }
        return count == n;
    }
}
