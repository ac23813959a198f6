package io.gpudetect.match;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What one replica asks for: {@code units} GPUs, all from one node, each of them any one of {@code choices}
 * (the SDL's entries are alternatives). {@code units} 0 asks for no GPU (a CPU-only profile).
 *
 * @param fabric     what the node's RDMA fabric must offer ({@code fabric=}, {@code fabric>=}); null: nothing
 * @param nvlinkAll  every pair of the GPUs one replica is given must be joined over NVLink ({@code nvlink=all})
 * @param unbiddable why no provider bids on this request whatever its nodes have (a GPU attribute key the
 *                   provider cannot read fails the whole request); null when it can be bid on
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record GpuRequest(int units, List<GpuChoice> choices, String unbiddable, FabricRequest fabric,
                         @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean nvlinkAll) {

    public GpuRequest {
        choices = List.copyOf(choices);
    }

    /** A request that asks nothing of the node's fabric or of its GPUs' links. */
    public GpuRequest(int units, List<GpuChoice> choices, String unbiddable) {
        this(units, choices, unbiddable, null, false);
    }

    /** This request with {@code fabric} asked of the node too (an SDL placement's interconnect capabilities). */
    public GpuRequest withFabric(FabricRequest fabric) {
        return fabric == null ? this : new GpuRequest(units, choices, unbiddable, fabric, nvlinkAll);
    }

    /** A request a provider can read. */
    public GpuRequest(int units, List<GpuChoice> choices) {
        this(units, choices, null);
    }

    public static GpuRequest none() {
        return new GpuRequest(0, List.of());
    }

    public boolean asksForGpu() {
        return units > 0;
    }

    /** {@code 2 x (nvidia a100/80Gi | nvidia h100)}, or {@code no GPU}. */
    public String describe() {
        if (!asksForGpu()) {
            return "no GPU";
        }
        String any = choices.stream().map(GpuChoice::describe).collect(Collectors.joining(" | "));
        return units + " x " + (choices.size() > 1 ? "(" + any + ")" : any) + (nvlinkAll ? ", joined pairwise over NVLink" : "")
                + (fabric == null ? "" : " " + fabric.describe());
    }
}
