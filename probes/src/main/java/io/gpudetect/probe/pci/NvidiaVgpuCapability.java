package io.gpudetect.probe.pci;

import io.gpudetect.model.Vgpu;
import java.nio.charset.StandardCharsets;

/**
 * Reads NVIDIA's vGPU record from a PCI function's config space, step for step as GPU Feature Discovery does
 * (NVIDIA/k8s-device-plugin {@code internal/vgpu/pciutil.go} {@code GetVendorSpecificCapability} and
 * {@code vgpu.go} {@code IsVGPUDevice}, {@code GetInfo}, at {@code 1b826acc}), so that the {@code nvidia} label
 * profile says what GFD says. The standard capability list (PCI Local Bus Specification 3.0, 6.7: status bit 4
 * at 0x06, first pointer at 0x34, each entry id, next, and for id 0x09 "vendor specific" a length byte) is walked
 * to the first vendor-specific capability; a vGPU's carries {@code V F} at its bytes 3 and 4, then records of
 * (id, length, data) from byte 5, and record 0 holds the host driver's version and branch, 10 NUL-padded bytes
 * each.
 */
final class NvidiaVgpuCapability {

    /** The config space GFD requires: the header and the standard capabilities, which all lie below 0x100. */
    static final int CONFIG_BYTES = 256;
    private static final int STATUS = 0x06;
    private static final int STATUS_CAPABILITY_LIST = 0x10;
    private static final int CAPABILITY_POINTER = 0x34;
    private static final int VENDOR_SPECIFIC = 0x09;
    private static final int BROKEN = 0xff;
    private static final int RECORDS = 5;
    private static final int DRIVER_FIELD = 10;

    private NvidiaVgpuCapability() {
    }

    /**
     * What {@code config} says of vGPU: {@link Vgpu#NONE} without the vGPU signature; null when fewer than 256
     * bytes were readable (the kernel shows the first 64 to a user without {@code CAP_SYS_ADMIN}), where GFD
     * gives up on the whole node.
     */
    static Vgpu read(byte[] config) {
        if (config.length < CONFIG_BYTES) {
            return null;
        }
        if ((config[STATUS] & STATUS_CAPABILITY_LIST) == 0) {
            return Vgpu.NONE;
        }
        boolean[] visited = new boolean[CONFIG_BYTES];
        int pos = u8(config, CAPABILITY_POINTER);
        while (pos != 0) {
            // GFD's offsets are bytes: pos + 1 past 0xff wraps to 0, as here.
            int id = u8(config, pos);
            int next = u8(config, (pos + 1) & 0xff);
            int length = u8(config, (pos + 2) & 0xff);
            if (visited[pos] || id == BROKEN) {
                return Vgpu.NONE;
            }
            if (id == VENDOR_SPECIFIC) {
                // A capability running past the config space (where GFD's slice would panic) is no vGPU's.
                return pos + length > CONFIG_BYTES ? Vgpu.NONE : vgpu(java.util.Arrays.copyOfRange(config, pos, pos + length));
            }
            visited[pos] = true;
            pos = next;
        }
        return Vgpu.NONE;
    }

    /** GFD's {@code IsVGPUDevice} and {@code GetInfo} on the first vendor-specific capability. */
    private static Vgpu vgpu(byte[] capability) {
        if (capability.length < RECORDS || capability[3] != 'V' || capability[4] != 'F') {
            return Vgpu.NONE;
        }
        int pos = RECORDS;
        while (pos < capability.length && capability[pos] != 0) {
            int length = pos + 1 < capability.length ? u8(capability, pos + 1) : 0;
            if (length == 0) {
                // GFD loops forever on a zero length, or panics past the end; neither names a host driver.
                return new Vgpu(true, null, null);
            }
            pos += length;
        }
        if (pos + 2 + 2 * DRIVER_FIELD > capability.length) {
            // GFD fails its whole pass here ("cannot find driver version record"); the GPU is still a vGPU.
            return new Vgpu(true, null, null);
        }
        String version = nulTrimmed(capability, pos + 2);
        String branch = nulTrimmed(capability, pos + 2 + DRIVER_FIELD);
        return new Vgpu(true, version, branch);
    }

    /** GFD's {@code strings.Trim(s, "\x00")} of a 10-byte field; each byte one character, as Go's string(byte). */
    private static String nulTrimmed(byte[] bytes, int from) {
        int start = from;
        int end = from + DRIVER_FIELD;
        while (start < end && bytes[start] == 0) {
            start++;
        }
        while (end > start && bytes[end - 1] == 0) {
            end--;
        }
        return new String(bytes, start, end - start, StandardCharsets.ISO_8859_1);
    }

    private static int u8(byte[] bytes, int index) {
        return bytes[index] & 0xff;
    }
}
