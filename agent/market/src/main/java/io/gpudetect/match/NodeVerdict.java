package io.gpudetect.match;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Whether one node can serve one replica of a placement on its own.
 *
 * @param free     units this node could give one replica now (matching GPUs or slices, capped by the free units
 *                 of their kind); at least the replica's units when {@code canServe}
 * @param unitKind the kind those units are allocated as ({@code nvidia}, {@code mig-1g.10gb}); null when none match
 * @param reason   why it cannot, in one line; null when it can
 * @param notCounted the GPUs that would match but are failed or lost, so are not counted ({@code 1 GPU failed, not
 *                 counted as free: 0000:17:00.0 (a100 80Gi sxm) failed}); null when none
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeVerdict(String node, boolean canServe, int free, String unitKind, String reason,
                          String notCounted) {
}
