package io.gpudetect.nvml;

import com.sun.jna.Memory;

/**
 * {@code nvmlGpuFabricInfo_v2_t} as {@code nvmlDeviceGetGpuFabricInfoV} fills it, or {@code nvmlGpuFabricInfo_t} as
 * the older {@code nvmlDeviceGetGpuFabricInfo} does. v2: an unsigned int {@code version} (the struct's size, 36, with 2
 * in the top byte), {@code clusterUuid[16]} at 4, {@code status} at 20, {@code cliqueId} at 24, the one-byte
 * {@code state} at 28, {@code healthMask} at 32. v1 has no version: the UUID at 0, status 16, clique 20, state 24.
 * Native memory at fixed offsets, as {@link NvmlPciInfo} says why.
 */
final class NvmlFabricInfo {

    static final int V2_SIZE = 36;
    static final int V2_VERSION = V2_SIZE | (2 << 24);

    final Memory memory = new Memory(V2_SIZE);
    private final int base;

    /** @param versioned true for the v2 struct of {@code nvmlDeviceGetGpuFabricInfoV} */
    NvmlFabricInfo(boolean versioned) {
        memory.clear();
        base = versioned ? 4 : 0;
        if (versioned) {
            memory.setInt(0, V2_VERSION);
        }
    }

    /** The cluster UUID as {@code xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}, lower-case, as GFD and Go's uuid print it. */
    String clusterUuid() {
        byte[] b = memory.getByteArray(base, 16);
        StringBuilder s = new StringBuilder(36);
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) {
                s.append('-');
            }
            s.append(Character.forDigit((b[i] >> 4) & 0xf, 16)).append(Character.forDigit(b[i] & 0xf, 16));
        }
        return s.toString();
    }

    int status() {
        return memory.getInt(base + 16);
    }

    long cliqueId() {
        return Integer.toUnsignedLong(memory.getInt(base + 20));
    }

    int state() {
        return memory.getByte(base + 24) & 0xff;
    }
}
