package io.gpudetect.labels;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuLinks;
import io.gpudetect.model.Interconnect;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeSet;

/**
 * The labels that say how a node's GPUs are joined: a few summary keys of our own ({@link #ownLabels}), never one per
 * link or per GPU, and the {@code nvidia} profile's {@code nvidia.com/gpu.clique} ({@link #gfdClique}). Links change
 * with the hardware only, so these keys change as rarely as the model's.
 */
final class InterconnectLabels {

    private InterconnectLabels() {
    }

    /**
     * {@code gpu.interconnect} (the topology word: nvswitch, all-to-all, bridge, pairs, hybrid-cube-mesh, partial,
     * none), {@code gpu.interconnect.all-joined} (every pair of the node's GPUs joined), {@code
     * gpu.interconnect.links-down} and, where a link is up, {@code gpu.interconnect.kind}; none when no source read
     * the GPUs' links (not known differs from none).
     *
     * @param key the profile's key for a name under its prefix
     */
    static void ownLabels(SortedMap<String, String> out, java.util.function.UnaryOperator<String> key, List<Gpu> gpus) {
        Interconnect i = Interconnect.of(gpus);
        if (i == null) {
            return;
        }
        out.put(key.apply("gpu.interconnect"), i.topology());
        out.put(key.apply("gpu.interconnect.all-joined"), String.valueOf(i.allPairsJoined()));
        out.put(key.apply("gpu.interconnect.links-down"), String.valueOf(i.linksDown()));
        if (i.kind() != null) {
            out.put(key.apply("gpu.interconnect.kind"), LabelText.value(i.kind()));
        }
    }

    /**
     * {@code clusterUuid.cliqueId} as NVIDIA's GPU Feature Discovery writes {@code nvidia.com/gpu.clique}: from the GPUs
     * attached to a multi-node NVLink fabric (registration completed, with success, under a non-zero cluster UUID), when
     * they all name one cluster and one clique; null otherwise (GFD then writes no label either).
     */
    static String gfdClique(List<Gpu> gpus) {
        TreeSet<String> clusters = new TreeSet<>();
        TreeSet<Long> cliques = new TreeSet<>();
        for (Gpu g : gpus) {
            GpuLinks.Fabric f = g.links() == null ? null : g.links().fabric();
            if (f != null && f.clique() != null) {
                clusters.add(f.clusterUuid());
                cliques.add(f.cliqueId());
            }
        }
        return clusters.size() == 1 && cliques.size() == 1 ? clusters.first() + "." + cliques.first() : null;
    }
}
