package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One slice of a partitioned GPU: an NVIDIA MIG device (profile {@code 1g.10gb}, GPU and compute
 * instance ids) or an AMD compute partition. Fields a tool did not report are null.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Partition(String profile, Integer gpuInstanceId, Integer computeInstanceId, Long memoryMiB,
                        Integer multiprocessors, String uuid) {
}
