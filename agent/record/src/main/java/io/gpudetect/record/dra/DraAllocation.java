package io.gpudetect.record.dra;

/**
 * One {@code status.allocation.devices.results[]} entry of a ResourceClaim held by a pod on this node.
 *
 * @param claim {@code namespace/name} of the claim
 */
public record DraAllocation(String driver, String pool, String device, String claim) {

    /** Driver, pool and device, as {@link DraDevice#key()}. */
    public String key() {
        return driver + "/" + pool + "/" + device;
    }
}
