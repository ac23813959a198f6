package io.gpudetect.match;

/**
 * One line of an SDL's {@code deployment} section: {@code replicas} copies of {@code service} placed by
 * {@code placement} with compute profile {@code profile}; each replica needs {@code gpu} from one node.
 * A {@code --gpu} request on the command line becomes one placement named {@code --gpu[i]}.
 */
public record Placement(String service, String placement, String profile, int replicas, GpuRequest gpu) {
}
