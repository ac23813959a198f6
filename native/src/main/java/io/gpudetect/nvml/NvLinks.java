package io.gpudetect.nvml;

import java.util.ArrayList;
import java.util.List;

/**
 * The NVLink part of a snapshot: each GPU's links, and between each two GPUs with links whether P2P over NVLink works.
 * Kept apart from the rest of a snapshot because it is read at a full detection only: links change with the hardware
 * (a GPU or NVSwitch swapped, a link that failed training), never from pass to pass, and the agent's steady pass reads
 * an {@link NvmlPulse}, which holds none of this.
 */
final class NvLinks {

    private NvLinks() {
    }

    /**
     * Link 0 up to the first link whose state call fails (that call included: it says why the list ends); for an
     * active link what is at its far end, and that end's PCI address where it is a GPU (a switch's address names no
     * GPU of the node, and asking it for 18 links of 8 GPUs cost a fifth of the pass). The version is asked of the
     * first active link only: NVML reports the GPU's NVLink generation, the same on every link, and one call instead
     * of 18 keeps 8 GPUs within the 2 ms budget (docs/performance.md, "NVLink at a full detection").
     */
    static List<NvmlSnapshot.NvLink> read(NvmlLibrary lib, NvmlDevice d) {
        List<NvmlSnapshot.NvLink> links = new ArrayList<>();
        boolean versionAsked = false;
        for (int link = 0; link < NvmlApi.NVLINK_MAX_LINKS; link++) {
            NvmlCall<Boolean> active = lib.nvLinkState(d, link);
            if (!active.ok()) {
                links.add(new NvmlSnapshot.NvLink(link, active, null, null, null));
                break;
            }
            if (!active.value()) {
                links.add(new NvmlSnapshot.NvLink(link, active, null, null, null));
                continue;
            }
            NvmlCall<Long> version = versionAsked ? null : lib.nvLinkVersion(d, link);
            versionAsked = true;
            NvmlCall<Long> type = lib.nvLinkRemoteDeviceType(d, link);
            // Without the type call (an old driver) the address is what tells a GPU from a switch.
            boolean gpuEnd = !type.ok() || type.value() == 0;
            links.add(new NvmlSnapshot.NvLink(link, active, version, gpuEnd ? lib.nvLinkRemotePci(d, link) : null, type));
        }
        return links;
    }

    /**
     * {@code devices} with, on each GPU that has an active link, P2P over NVLink to each later GPU that has one too: one
     * call a pair, where the link list alone cannot tell two GPUs behind NVSwitches apart from two that are not joined.
     */
    static List<NvmlSnapshot.Device> withPeers(NvmlLibrary lib, List<NvmlSnapshot.Device> devices, List<NvmlDevice> handles) {
        List<NvmlSnapshot.Device> out = new ArrayList<>();
        for (int i = 0; i < devices.size(); i++) {
            NvmlSnapshot.Device d = devices.get(i);
            if (handles.get(i) == null || !linked(d)) {
                out.add(d);
                continue;
            }
            List<NvmlSnapshot.Peer> peers = new ArrayList<>();
            for (int j = i + 1; j < devices.size(); j++) {
                if (handles.get(j) != null && linked(devices.get(j))) {
                    peers.add(new NvmlSnapshot.Peer(j, lib.nvLinkP2pStatus(handles.get(i), handles.get(j))));
                }
            }
            out.add(new NvmlSnapshot.Device(d.index(), d.handle(), d.name(), d.uuid(), d.serial(), d.boardPartNumber(),
                    d.pci(), d.memory(), d.computeCapability(), d.architecture(), d.brand(), d.powerLimitMilliwatts(),
                    d.eccMode(), d.eccUncorrectedAggregate(), d.migMode(), d.maxMigDevices(), d.migDevices(),
                    d.enforcedPowerLimitMilliwatts(), d.powerLimitConstraints(), d.defaultPowerLimitMilliwatts(),
                    d.vbiosVersion(), d.maxPcieLinkGeneration(), d.currentPcieLinkGeneration(), d.maxPcieLinkWidth(),
                    d.currentPcieLinkWidth(), d.nvLinks(), d.fabric(), peers, d.eccUncorrectedVolatile(),
                    d.retiredPagesPending(), d.remappedRows(), d.clocksEventReasons()));
        }
        return out;
    }

    private static boolean linked(NvmlSnapshot.Device d) {
        if (d.nvLinks() == null) {
            return false;
        }
        for (NvmlSnapshot.NvLink l : d.nvLinks()) {
            if (l.active() != null && l.active().ok() && Boolean.TRUE.equals(l.active().value())) {
                return true;
            }
        }
        return false;
    }
}
