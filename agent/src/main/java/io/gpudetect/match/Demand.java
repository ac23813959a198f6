package io.gpudetect.match;

import java.util.List;

/** Everything a deployment asks for, in the order its file lists it; {@code origin} names the file or {@code --gpu}. */
public record Demand(String origin, List<Placement> placements) {

    public Demand {
        placements = List.copyOf(placements);
    }
}
