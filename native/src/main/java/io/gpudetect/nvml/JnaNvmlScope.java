package io.gpudetect.nvml;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Takes {@link NvmlSnapshot}s from {@code libnvidia-ml.so.1} through JNA. The library is looked for on the
 * first snapshot, not before, and again on each later one until it is found: the GPU operator may install
 * the driver after this agent started.
 *
 * <p>A long-running agent holds the library initialised between snapshots ({@link Session#HELD}): NVML counts
 * its inits, and only the shutdown that brings the count to zero tears the driver connection down, which on a
 * real H100 takes about 9 ms (3-5 ms of it CPU), and an init from zero about 2 ms (docs/performance.md, "NVML
 * held between passes"). A
 * held session is given up when NVML stops answering (the driver was unloaded or reset, a GPU fell off), so
 * the next snapshot starts afresh on the driver that is there then. While it is held, the {@code nvidia}
 * module cannot be unloaded: as with NVIDIA's device plugin and DCGM, a driver reload needs the agent's pod
 * stopped first (docs/provider.md).
 */
public final class JnaNvmlScope implements NvmlScope {

    /** Whether the library stays initialised between snapshots. */
    public enum Session {
        /** Each snapshot initialises NVML and shuts it down: a one-shot command. */
        PER_SNAPSHOT,
        /** NVML stays initialised from the first good snapshot until it fails: the agent. */
        HELD,
        /**
         * A one-shot command whose process ends after its snapshot: NVML is initialised and never shut down. The
         * process's exit closes the driver's connection as a shutdown would; the shutdown itself costs about 9 ms
         * on an H100 and frees nothing (docs/performance.md, "Start-up and footprint tricks", row "no NVML
         * shutdown before exit"). A recording keeps {@link #PER_SNAPSHOT}: its bundle shows the shutdown call.
         */
        UNTIL_EXIT
    }

    private final Optional<Path> driverRoot;
    private final Session session;
    private NvmlLibrary library;
    /** True while this scope holds an init of its own beyond the snapshots' own init and shutdown. */
    private boolean held;
    /** Each GPU's most MIG devices as the held session answered it, by index ({@link NvmlPulse#read}). */
    private final Map<Integer, NvmlCall<Integer>> maxMigDevices = new HashMap<>();
    /**
     * Each GPU's MIG and ECC modes as the held session last read them ({@link NvmlPulse#read}); made when a session is
     * first held, so that a one-shot command never loads the class.
     */
    private HeldModes modes;
    /** The last pulse found {@link #answering}; null before the first and after the session is given up. */
    private NvmlPulse answered;

    public JnaNvmlScope(Optional<Path> driverRoot, Session session) {
        this.driverRoot = driverRoot;
        this.session = session;
    }

    @Override
    public synchronized NvmlSnapshot snapshot() {
        return read(true);
    }

    /** A snapshot, with each GPU's NVLinks, fabric and P2P ({@link NvLinks}) only where {@code links}. */
    private NvmlSnapshot read(boolean links) {
        try {
            if (library == null) {
                library = NvmlLibrary.open(NvmlLocator.candidates(driverRoot));
            }
        } catch (NvmlUnavailableException e) {
            return NvmlSnapshot.unavailable(e.getMessage());
        } catch (LinkageError e) {
            // JNA's own native part could not be loaded (no writable temp folder, foreign architecture).
            return NvmlSnapshot.unavailable("JNA could not load its native support: " + e.getMessage());
        }
        if (session == Session.HELD && !held) {
            held = library.init().ok();
            if (held) {
                library.callDirectly(); // its pulses' calls, at every pass from now on (NvmlDirect)
            }
        }
        NvmlSnapshot snapshot = take(library, session != Session.UNTIL_EXIT, links);
        if (held && !answering(NvmlPulse.of(snapshot))) {
            giveUpSession();
        }
        if (held) {
            heldModes().learn(snapshot);
        }
        return snapshot;
    }

    /**
     * With the session held, the pulse's few calls and no init or shutdown (about 0.4 ms a GPU on an H100 when they
     * included the MIG and ECC modes, 0.34 ms of it; now those of one GPU a pulse, in turn: {@link HeldModes});
     * otherwise what a snapshot shows. A pulse in which NVML stopped answering gives the
     * session up, as a snapshot does.
     */
    @Override
    public synchronized NvmlPulse pulse() {
        if (!held) {
            // A steady pass without a held session (--release-nvml) reads a snapshot; NVLink is not part of a pulse.
            return NvmlPulse.of(read(false));
        }
        NvmlPulse pulse = NvmlPulse.read(library, maxMigDevices, heldModes());
        // An unchanged pulse is the last one itself (HeldModes.sameAsLast), already found answering: its devices are
        // not walked again (docs/performance.md, "The NVML pulse through JNA's direct mapping").
        if (pulse != answered) {
            if (!answering(pulse)) {
                giveUpSession();
            } else {
                answered = pulse;
            }
        }
        return pulse;
    }

    /** NVML stopped answering: the next snapshot starts a session on the driver that is there then. */
    private void giveUpSession() {
        answered = null;
        if (modes != null) {
            modes.clear(library); // frees the session's event set, before its shutdown
        }
        library.shutdown();
        held = false;
        maxMigDevices.clear();
    }

    private HeldModes heldModes() {
        if (modes == null) {
            modes = new HeldModes();
        }
        return modes;
    }

    /** NVML answered: it counted its devices, and each gave a handle and was not lost. */
    private static boolean answering(NvmlPulse pulse) {
        if (pulse.problem() != null) {
            return false;
        }
        // A loop and a constant, not a stream and a string built for each GPU: this runs after every pulse.
        for (NvmlPulse.Device d : pulse.devices()) {
            if (!"ok".equals(d.handle()) || GPU_IS_LOST.equals(d.uuid())) {
                return false;
            }
        }
        return true;
    }

    /** A UUID call's answer ({@link NvmlPulse#answer}) when the GPU is lost. */
    private static final String GPU_IS_LOST = "rc=" + NvmlReturn.ERROR_GPU_IS_LOST;

    /**
     * Everything detection reads, after one init and (with {@code shutdown}) before one shutdown; a device that fails
     * does not stop the others. Without the shutdown the snapshot has none. NVLink, the fabric and P2P only where
     * {@code links}: a pulse's snapshot leaves them out.
     */
    static NvmlSnapshot take(NvmlLibrary lib, boolean shutdown, boolean links) {
        NvmlCall<Void> init = lib.init();
        if (!init.ok()) {
            return new NvmlSnapshot(NvmlSnapshot.FORMAT, lib.path(), null, init, null, null, null, null, List.of(), null);
        }
        NvmlCall<String> nvmlVersion = null;
        NvmlCall<String> driverVersion = null;
        NvmlCall<Integer> cuda = null;
        NvmlCall<Integer> count = null;
        List<NvmlSnapshot.Device> devices = new ArrayList<>();
        NvmlCall<Void> shutdownCall = null;
        try {
            nvmlVersion = lib.nvmlVersion();
            driverVersion = lib.driverVersion();
            cuda = lib.cudaDriverVersion();
            count = lib.deviceCount();
            if (count.ok()) {
                List<NvmlDevice> handles = new ArrayList<>();
                for (int i = 0; i < count.value(); i++) {
                    NvmlCall<NvmlDevice> handle = lib.deviceHandle(i);
                    handles.add(handle.ok() ? handle.value() : null);
                    devices.add(device(lib, i, handle, links));
                }
                if (links) {
                    devices = NvLinks.withPeers(lib, devices, handles);
                }
            }
        } finally {
            if (shutdown) {
                shutdownCall = lib.shutdown();
            }
        }
        return new NvmlSnapshot(NvmlSnapshot.FORMAT, lib.path(), null, init, nvmlVersion, driverVersion, cuda, count,
                devices, shutdownCall);
    }

    private static NvmlSnapshot.Device device(NvmlLibrary lib, int index, NvmlCall<NvmlDevice> handle, boolean links) {
        if (!handle.ok()) {
            return NvmlSnapshot.Device.withoutHandle(index, handle.outcome());
        }
        NvmlDevice d = handle.value();
        NvmlCall<NvmlSnapshot.Modes> mig = lib.migMode(d);
        NvmlCall<Integer> maxMig = null;
        List<NvmlSnapshot.MigDevice> migDevices = new ArrayList<>();
        if (mig.ok() && mig.value().current()) {
            maxMig = lib.maxMigDeviceCount(d);
            if (maxMig.ok()) {
                for (int j = 0; j < maxMig.value(); j++) {
                    NvmlCall<NvmlDevice> m = lib.migDeviceHandle(d, j);
                    if (m.returnCode() == NvmlReturn.ERROR_NOT_FOUND) {
                        continue; // an empty slot: fewer MIG devices than the GPU could hold
                    }
                    migDevices.add(migDevice(lib, j, m));
                }
            }
        }
        NvmlCall<NvmlSnapshot.Modes> ecc = lib.eccMode(d);
        return new NvmlSnapshot.Device(index, handle.outcome(), lib.name(d), lib.uuid(d), lib.serial(d),
                lib.boardPartNumber(d), lib.pciInfo(d), lib.memory(d), lib.computeCapability(d), lib.architecture(d),
                lib.brand(d), lib.powerManagementLimitMilliwatts(d), ecc,
                ecc.ok() && ecc.value().current() ? lib.eccUncorrectedAggregate(d) : null, mig, maxMig, migDevices,
                lib.enforcedPowerLimitMilliwatts(d), lib.powerLimitConstraints(d), lib.defaultPowerLimitMilliwatts(d),
                lib.vbiosVersion(d), lib.maxPcieLinkGeneration(d), lib.currentPcieLinkGeneration(d),
                lib.maxPcieLinkWidth(d), lib.currentPcieLinkWidth(d), links ? NvLinks.read(lib, d) : null,
                links ? lib.gpuFabricInfo(d) : null, null,
                ecc.ok() && ecc.value().current() ? lib.eccUncorrectedVolatile(d) : null, lib.retiredPagesPending(d),
                lib.remappedRows(d), lib.clocksEventReasons(d));
    }

    private static NvmlSnapshot.MigDevice migDevice(NvmlLibrary lib, int index, NvmlCall<NvmlDevice> handle) {
        if (!handle.ok()) {
            return new NvmlSnapshot.MigDevice(index, handle.outcome(), null, null, null, null, null, null);
        }
        NvmlDevice m = handle.value();
        return new NvmlSnapshot.MigDevice(index, handle.outcome(), lib.name(m), lib.uuid(m), lib.gpuInstanceId(m),
                lib.computeInstanceId(m), lib.memory(m), lib.multiprocessorCount(m));
    }
}
