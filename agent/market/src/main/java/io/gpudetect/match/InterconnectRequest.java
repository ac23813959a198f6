package io.gpudetect.match;

import io.gpudetect.model.GpuLinks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The interconnect part of a request: {@code nvlink=all}, every pair of the GPUs one replica is given joined over
 * NVLink (straight, or both through the node's NVSwitches), as multi-GPU training asks. Its parsing and its check
 * live here, apart from the per-GPU keys, because it is a fact of a set of GPUs, not of one.
 */
final class InterconnectRequest {

    private InterconnectRequest() {
    }

    /**
     * True for {@code all}; null for no value (the key not given).
     *
     * @throws InvalidInputException for any other value
     */
    static Boolean parseNvlink(String value, String name) throws InvalidInputException {
        if (value == null) {
            return null;
        }
        if (!value.equals("all")) {
            throw new InvalidInputException(null, name, null, "nvlink '" + value + "' is not all; expected nvlink=all "
                    + "(every pair of the chosen GPUs joined over NVLink)");
        }
        return true;
    }

    /**
     * {@code matching} (units by GPU index) cut to the largest set of GPUs that are joined pairwise; the whole of it
     * when the request does not ask, or asks one unit (one GPU has no pair).
     */
    static Map<Integer, Integer> joinedSubset(GpuRequest request, List<OfferedGpu> gpus, Map<Integer, Integer> matching) {
        if (!request.nvlinkAll() || request.units() < 2 || matching.size() < 2) {
            return matching;
        }
        List<Integer> indices = new ArrayList<>(matching.keySet());
        int n = indices.size();
        boolean[][] joined = new boolean[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                joined[i][j] = joined[j][i] = joined(gpus.get(indices.get(i)), gpus.get(indices.get(j)));
            }
        }
        List<Integer> best = new ArrayList<>();
        grow(joined, new ArrayList<>(), 0, best);
        Map<Integer, Integer> subset = new TreeMap<>();
        for (int i : best) {
            subset.put(indices.get(i), matching.get(indices.get(i)));
        }
        return subset;
    }

    /** The largest clique of {@code joined}: every set that extends {@code current} with members from {@code from}. */
    private static void grow(boolean[][] joined, List<Integer> current, int from, List<Integer> best) {
        if (current.size() > best.size()) {
            best.clear();
            best.addAll(current);
        }
        for (int k = from; k < joined.length; k++) {
            if (current.size() + (joined.length - k) <= best.size()) {
                return;
            }
            boolean fits = true;
            for (int c : current) {
                fits &= joined[c][k];
            }
            if (fits) {
                current.add(k);
                grow(joined, current, k + 1, best);
                current.remove(current.size() - 1);
            }
        }
    }

    static boolean joined(OfferedGpu a, OfferedGpu b) {
        OfferedGpu.Platform pa = a.platform();
        OfferedGpu.Platform pb = b.platform();
        return pa != null && pb != null && GpuLinks.joined(pa.links(), pa.pciAddress(), pb.links(), pb.pciAddress());
    }

    /** Why a node with enough matching GPUs has too few of them joined pairwise. */
    static String shortfall(List<OfferedGpu> gpus, int matching, int joined, int units) {
        boolean unknown = gpus.stream().anyMatch(g -> g.platform() == null || g.platform().links() == null);
        return "nvlink=all: " + (unknown && joined <= 1
                ? "the node's record does not say its GPUs' links (written by an agent before issue 40, or NVML could "
                        + "not be read)"
                : "only " + joined + " of the " + matching + " matching GPUs are joined pairwise over NVLink")
                + ", " + units + " asked per replica";
    }
}
