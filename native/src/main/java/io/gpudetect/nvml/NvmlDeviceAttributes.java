package io.gpudetect.nvml;

import com.sun.jna.Structure;
import com.sun.jna.Structure.FieldOrder;

/** {@code nvmlDeviceAttributes_t}, filled by {@code nvmlDeviceGetAttributes_v2}; read here for a MIG device's share of the GPU. */
@FieldOrder({"multiprocessorCount", "sharedCopyEngineCount", "sharedDecoderCount", "sharedEncoderCount",
        "sharedJpegCount", "sharedOfaCount", "gpuInstanceSliceCount", "computeInstanceSliceCount", "memorySizeMB"})
public final class NvmlDeviceAttributes extends Structure {
    public int multiprocessorCount;
    public int sharedCopyEngineCount;
    public int sharedDecoderCount;
    public int sharedEncoderCount;
    public int sharedJpegCount;
    public int sharedOfaCount;
    public int gpuInstanceSliceCount;
    public int computeInstanceSliceCount;
    public long memorySizeMB;
}
