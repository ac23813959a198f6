package io.gpudetect.nvml;

import java.util.List;

/**
 * One look at NVML: which library was loaded (or why none could be), what {@code nvmlInit} answered, the
 * system versions and every device with each call's outcome. It is a plain value: the live path fills it
 * from the library ({@link JnaNvmlScope}), {@code gpu-detect record} writes it to a bundle as {@code nvml.json},
 * and replay reads it back, so the probe turns the same value into GPUs either way.
 *
 * @param format       {@link #FORMAT}; a reader refuses snapshots of a newer format
 * @param library      the file that was loaded; null when none was
 * @param unavailable  why no library could be loaded; null when one was
 */
public record NvmlSnapshot(int format, String library, String unavailable, NvmlCall<Void> init,
                           NvmlCall<String> nvmlVersion, NvmlCall<String> driverVersion,
                           NvmlCall<Integer> cudaDriverVersion, NvmlCall<Integer> deviceCount,
                           List<Device> devices, NvmlCall<Void> shutdown) {

    public static final int FORMAT = 1;

    public NvmlSnapshot {
        devices = devices == null ? List.of() : List.copyOf(devices);
    }

    public static NvmlSnapshot unavailable(String why) {
        return new NvmlSnapshot(FORMAT, null, why, null, null, null, null, null, List.of(), null);
    }

    /**
     * One GPU as {@code nvmlDeviceGetHandleByIndex} numbers it. When the handle call failed every other
     * call is null: there was nothing to ask. The calls after {@code migDevices} came later (issue 29, and the
     * health checks of issue 38 from {@code eccUncorrectedVolatile} on); a snapshot recorded before them has them
     * null, which reads as not asked.
     */
    public record Device(int index, NvmlCall<Void> handle, NvmlCall<String> name, NvmlCall<String> uuid,
                         NvmlCall<String> serial, NvmlCall<String> boardPartNumber, NvmlCall<Pci> pci,
                         NvmlCall<Memory> memory, NvmlCall<ComputeCapability> computeCapability,
                         NvmlCall<Long> architecture, NvmlCall<Long> brand, NvmlCall<Long> powerLimitMilliwatts,
                         NvmlCall<Modes> eccMode, NvmlCall<Long> eccUncorrectedAggregate, NvmlCall<Modes> migMode,
                         NvmlCall<Integer> maxMigDevices, List<MigDevice> migDevices,
                         NvmlCall<Long> enforcedPowerLimitMilliwatts, NvmlCall<PowerRange> powerLimitConstraints,
                         NvmlCall<Long> defaultPowerLimitMilliwatts, NvmlCall<String> vbiosVersion,
                         NvmlCall<Long> maxPcieLinkGeneration, NvmlCall<Long> currentPcieLinkGeneration,
                         NvmlCall<Long> maxPcieLinkWidth, NvmlCall<Long> currentPcieLinkWidth,
                         List<NvLink> nvLinks, NvmlCall<Fabric> fabric, List<Peer> nvlinkPeers,
                         NvmlCall<Long> eccUncorrectedVolatile, NvmlCall<Long> retiredPagesPending,
                         NvmlCall<RemappedRows> remappedRows, NvmlCall<Long> clocksEventReasons) {

        public Device {
            migDevices = migDevices == null ? List.of() : List.copyOf(migDevices);
            // Null, not empty, in a snapshot recorded before NVLink was asked (issue 40): not asked differs from none.
            nvLinks = nvLinks == null ? null : List.copyOf(nvLinks);
            nvlinkPeers = nvlinkPeers == null ? null : List.copyOf(nvlinkPeers);
        }

        /** A device whose handle call failed: nothing else was asked. */
        public static Device withoutHandle(int index, NvmlCall<Void> handle) {
            return new Device(index, handle, null, null, null, null, null, null, null, null, null, null, null, null,
                    null, null, List.of(), null, null, null, null, null, null, null, null, null, null, null, null, null, null, null);
        }
    }

    /**
     * One NVLink of a GPU, by its number: whether it is active ({@code nvmlDeviceGetNvLinkState}) and, for an active
     * one, its version ({@code nvmlDeviceGetNvLinkVersion}: {@code nvmlNvlinkVersion_t}, 6 for NVLink 4.0), the PCI
     * address of its far end ({@code nvmlDeviceGetNvLinkRemotePciInfo_v2}) and what that is
     * ({@code nvmlDeviceGetNvLinkRemoteDeviceType}: 0 GPU, 1 IBM NPU (a POWER CPU), 2 NVSwitch, 255 unknown). The
     * list of a GPU ends at the first link whose state call fails: the GPU has no more links (Not Supported at link
     * 0: it has none).
     */
    public record NvLink(int link, NvmlCall<Boolean> active, NvmlCall<Long> version, NvmlCall<Pci> remotePci,
                         NvmlCall<Long> remoteType) {
    }

    /**
     * {@code nvmlDeviceGetGpuFabricInfoV} ({@code nvmlGpuFabricInfo_v2_t}) or {@code nvmlDeviceGetGpuFabricInfo}: the
     * GPU's registration with a multi-node NVLink fabric (GB200 NVL72).
     *
     * @param clusterUuid the 16 bytes as a UUID, lower-case with dashes
     * @param state       {@code nvmlGpuFabricState_t}: 0 not supported, 1 not started, 2 in progress, 3 completed
     * @param status      the registration's {@code nvmlReturn_t}, meaningful when completed
     */
    public record Fabric(String clusterUuid, long cliqueId, int state, int status) {
    }

    /** {@code nvmlDeviceGetP2PStatus} over NVLink from this GPU to the GPU of index {@code peer}: 0 is OK. */
    public record Peer(int peer, NvmlCall<Long> status) {
    }

    /** {@code nvmlDeviceGetPowerManagementLimitConstraints}: the range a power cap may be set in, milliwatts. */
    public record PowerRange(long minMilliwatts, long maxMilliwatts) {
    }

    /** A MIG device, by its slot in {@code nvmlDeviceGetMigDeviceHandleByIndex}; empty slots are left out. */
    public record MigDevice(int index, NvmlCall<Void> handle, NvmlCall<String> name, NvmlCall<String> uuid,
                            NvmlCall<Long> gpuInstanceId, NvmlCall<Long> computeInstanceId, NvmlCall<Memory> memory,
                            NvmlCall<Long> multiprocessors) {
    }

    /**
     * {@code nvmlPciInfo_t}: ids packed as NVML packs them, device (or subsystem device) in the high 16 bits
     * and vendor in the low 16, written as 8 hex digits.
     */
    public record Pci(String busId, long domain, int bus, int device, String pciDeviceId, String pciSubSystemId) {
    }

    /** Bytes; {@code reserved} only from {@code nvmlDeviceGetMemoryInfo_v2}. */
    public record Memory(long total, Long reserved) {
    }

    public record ComputeCapability(int major, int minor) {
    }

    /**
     * {@code nvmlDeviceGetRemappedRows}: rows remapped for correctable and for uncorrectable errors, whether a
     * remapping waits for a GPU reset, and whether one failed (the GPU has no spare row left).
     */
    public record RemappedRows(long corrected, long uncorrected, boolean pending, boolean failure) {
    }

    /** A current and a pending (after the next GPU reset) on/off state: ECC mode, MIG mode. */
    public record Modes(boolean current, boolean pending) {
    }
}
