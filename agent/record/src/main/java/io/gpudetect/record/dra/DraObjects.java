package io.gpudetect.record.dra;

import java.util.List;

/**
 * The DRA objects one pass read for its node: the node's ResourceSlices, the allocations of its pods' claims,
 * and the claims it could not read. The hand-out ({@link Handouts#of}) is decided from them purely.
 *
 * @param unreadClaims claims named by a pod on the node that could not be read (denied, gone), as {@code namespace/name}
 */
public record DraObjects(List<DraSlice> slices, List<DraAllocation> allocations, List<String> unreadClaims) {

    public DraObjects {
        slices = List.copyOf(slices);
        allocations = List.copyOf(allocations);
        unreadClaims = List.copyOf(unreadClaims);
    }
}
