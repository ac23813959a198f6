package io.gpudetect.nvml;

import com.sun.jna.Pointer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Waits for NVML's health events on a daemon thread of its own, as NVIDIA's device plugin does: one event set,
 * every GPU registered for Xid critical errors and double-bit (uncorrectable) ECC errors where it supports them,
 * then {@code nvmlEventSetWait_v2} with a long timeout in a loop. The wait blocks in the driver (a poll on its
 * file descriptor), so a host where nothing happens costs no CPU but one wake-up per timeout.
 *
 * <p>The watcher holds an NVML init of its own while it waits, beside the agent's held session. When the wait fails
 * (a GPU lost, the driver going away) the set is freed, the init given back, the listener told, and the watcher
 * tries again after {@link #RETRY}. Where the library or the GPUs have no events ({@code NOT_SUPPORTED}: vGPU
 * guests, old drivers, GeForce cards for ECC) the listener hears it once and the watcher ends: the pass-time
 * checks stand alone.
 */
public final class NvmlEventWatcher implements AutoCloseable {

    /** The events watched: an Xid critical error, an uncorrectable ECC error. */
    public static final long WATCHED = NvmlEvent.XID_CRITICAL | NvmlEvent.DOUBLE_BIT_ECC;
    /** How long one wait blocks before it is started again. */
    public static final int WAIT_MS = 60_000;
    /** How long the watcher waits before it arms again after NVML failed. */
    public static final long RETRY = 15_000;

    /** One event as the agent needs it: the GPU by index and PCI address (null when NVML did not say), what happened. */
    public record HealthEvent(int index, String uuid, Integer pciDomain, Integer pciBus, Integer pciDevice, long type,
                              long data) {

        public boolean xid() {
            return (type & NvmlEvent.XID_CRITICAL) != 0;
        }

        public boolean doubleBitEcc() {
            return (type & NvmlEvent.DOUBLE_BIT_ECC) != 0;
        }
    }

    /** What the watcher tells the agent; called on the watcher's thread. */
    public interface Listener {
        /** An event from a registered GPU. */
        void event(HealthEvent event);

        /** Waiting started: {@code gpus} GPUs registered, or why none could be. */
        void armed(int gpus, List<String> notes);

        /** The library or its GPUs give no events: said once, the watcher then ends. */
        void unsupported(String why);

        /** NVML failed while waiting (a GPU lost, the driver gone): the watcher arms again later. */
        void interrupted(String why);
    }

    private final Optional<Path> driverRoot;
    private final Listener listener;
    private final int waitMs;
    private final long retryMs;
    private final Thread thread;
    private volatile boolean closed;

    private NvmlEventWatcher(Optional<Path> driverRoot, Listener listener, int waitMs, long retryMs) {
        this.driverRoot = driverRoot;
        this.listener = listener;
        this.waitMs = waitMs;
        this.retryMs = retryMs;
        this.thread = new Thread(this::run, "gpu-detect-nvml-events");
        thread.setDaemon(true);
    }

    /** Starts the watcher's thread; it finds the library itself, as the probe does. */
    public static NvmlEventWatcher start(Optional<Path> driverRoot, Listener listener) {
        return start(driverRoot, listener, WAIT_MS, RETRY);
    }

    static NvmlEventWatcher start(Optional<Path> driverRoot, Listener listener, int waitMs, long retryMs) {
        NvmlEventWatcher w = new NvmlEventWatcher(driverRoot, listener, waitMs, retryMs);
        w.thread.start();
        return w;
    }

    /** Ends the watcher after its wait returns (at most {@link #WAIT_MS}); the thread is a daemon and holds no exit. */
    @Override
    public void close() {
        closed = true;
    }

    /** True while the watcher's thread runs. */
    public boolean running() {
        return thread.isAlive();
    }

    private record Registered(NvmlDevice device, HealthEvent template) {
    }

    private void run() {
        NvmlLibrary lib = null;
        while (!closed) {
            if (lib == null) {
                try {
                    lib = NvmlLibrary.open(NvmlLocator.candidates(driverRoot));
                } catch (NvmlUnavailableException | LinkageError e) {
                    listener.unsupported("no NVML library: " + e.getMessage());
                    return;
                }
            }
            String stop = watch(lib);
            if (stop != null) {
                listener.unsupported(stop);
                return;
            }
            pause(retryMs);
        }
    }

    /** One armed session: null when it ended in a way worth trying again, else why events are not supported. */
    private String watch(NvmlLibrary lib) {
        NvmlCall<Void> init = lib.init();
        if (!init.ok()) {
            listener.interrupted(init.function() + " returned " + init.status());
            return null;
        }
        Pointer set = null;
        try {
            NvmlCall<Pointer> created = lib.eventSetCreate();
            if (!created.ok()) {
                if (unsupported(created.returnCode())) {
                    return created.function() + " returned " + created.status();
                }
                listener.interrupted(created.function() + " returned " + created.status());
                return null;
            }
            set = created.value();
            List<Registered> registered = new ArrayList<>();
            List<String> notes = new ArrayList<>();
            NvmlCall<Integer> count = lib.deviceCount();
            for (int i = 0; count.ok() && i < count.value(); i++) {
                register(lib, set, i, registered, notes);
            }
            if (registered.isEmpty()) {
                return "no GPU takes Xid or ECC events" + (notes.isEmpty() ? "" : ": " + String.join("; ", notes));
            }
            listener.armed(registered.size(), notes);
            while (!closed) {
                NvmlCall<NvmlEvent> e = lib.eventSetWait(set, waitMs);
                if (e.returnCode() == NvmlReturn.ERROR_TIMEOUT) {
                    continue;
                }
                if (!e.ok()) {
                    listener.interrupted(e.function() + " returned " + e.status());
                    return null;
                }
                listener.event(resolve(registered, e.value()));
            }
            return null;
        } finally {
            if (set != null) {
                lib.eventSetFree(set);
            }
            lib.shutdown();
        }
    }

    private static void register(NvmlLibrary lib, Pointer set, int index, List<Registered> registered, List<String> notes) {
        NvmlCall<NvmlDevice> handle = lib.deviceHandle(index);
        if (!handle.ok()) {
            notes.add("GPU " + index + ": " + handle.function() + " returned " + handle.status());
            return;
        }
        NvmlDevice d = handle.value();
        NvmlCall<Long> supported = lib.supportedEventTypes(d);
        long types = supported.ok() ? supported.value() & WATCHED : 0;
        if (types == 0) {
            notes.add("GPU " + index + ": " + (supported.ok() ? "no Xid or ECC events"
                    : supported.function() + " returned " + supported.status()));
            return;
        }
        NvmlCall<Void> r = lib.registerEvents(d, types, set);
        if (!r.ok()) {
            notes.add("GPU " + index + ": " + r.function() + " returned " + r.status());
            return;
        }
        NvmlCall<String> uuid = lib.uuid(d);
        NvmlCall<NvmlSnapshot.Pci> pci = lib.pciInfo(d);
        NvmlSnapshot.Pci p = pci.ok() ? pci.value() : null;
        registered.add(new Registered(d, new HealthEvent(index, uuid.ok() ? uuid.value() : null,
                p == null ? null : (int) p.domain(), p == null ? null : p.bus(), p == null ? null : p.device(), 0, 0)));
    }

    /** The event with its GPU's index and address, found by handle. */
    private static HealthEvent resolve(List<Registered> registered, NvmlEvent e) {
        for (Registered r : registered) {
            if (r.device().getPointer().equals(e.device().getPointer())) {
                HealthEvent t = r.template();
                return new HealthEvent(t.index(), t.uuid(), t.pciDomain(), t.pciBus(), t.pciDevice(), e.type(), e.data());
            }
        }
        return new HealthEvent(-1, null, null, null, null, e.type(), e.data());
    }

    private static boolean unsupported(int code) {
        return code == NvmlReturn.ERROR_NOT_SUPPORTED || code == NvmlReturn.ERROR_FUNCTION_NOT_FOUND;
    }

    private void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }
}
