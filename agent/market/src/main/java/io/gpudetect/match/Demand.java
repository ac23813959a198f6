package io.gpudetect.match;

import java.util.List;

/**
 * Everything a deployment asks for, in the order its file lists it; {@code origin} names the file or {@code --gpu}.
 *
 * @param warnings what the file asks that a person may not mean, each with the file, line and path (an SDL whose
 *                 {@code gpu: 1} the network reads as no GPU); the request is read as the network reads it
 */
public record Demand(String origin, List<Placement> placements, List<String> warnings) {

    public Demand {
        placements = List.copyOf(placements);
        warnings = List.copyOf(warnings);
    }

    public Demand(String origin, List<Placement> placements) {
        this(origin, placements, List.of());
    }
}
