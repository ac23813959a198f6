package io.gpudetect.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Each GPU's MIG and ECC modes (current and pending) as a held session last read them, so that a pulse asks them
 * of one GPU in turn instead of every GPU every time: each is one of NVML's slow calls (~170 us on an H100, two a
 * GPU), most of a steady pass on a node with eight GPUs (docs/performance.md, "Modes read in turn"). With them, the
 * memory-repair calls the GPU does not support ({@link #ifUnsupported}; docs/performance.md, "The NVML pulse").
 *
 * <p>Why a pulse may go without them: a GPU's current ECC mode changes only when the GPU is reset or the host
 * reboots after an administrator set the pending one ({@code nvidia-smi -e}), and its current MIG mode when the GPU
 * is reset for it ({@code nvidia-smi -mig}; NVIDIA's MIG guide, for the A100 and A30, also asks for every daemon
 * holding the driver, as this agent's held session does, to be stopped first: a restarted agent reads every mode).
 * A change the session lives through may show in the pulse's other calls (a lost GPU, the health checks, the MIG
 * devices), which start a full detection, and every full detection reads every GPU's modes again. What is left, a
 * mode that changes with nothing else changing, is seen when its GPU's turn comes: within as many pulses as the host
 * has GPUs (docs/labels.md, "How soon a mode change is seen").
 *
 * <p>Beside the modes, what else a pulse need not ask of every GPU every time: its handle and UUID ({@link #handle}),
 * its lifetime ECC count ({@link #eccErrors}), its MIG devices where a MIG configuration event stands for them
 * ({@link #watchMig}), and the driver's version ({@link #driverVersion}); docs/performance.md, "The NVML pulse, fewer
 * calls and a lighter hand-over".
 */
final class HeldModes {

    /**
     * One GPU's modes, and the UUID answer it gave when they were read: another GPU at that index reads again.
     * {@code pages} and {@code rows} are the retired-pages and remapped-rows answers where they were Not Supported
     * ({@link #ifUnsupported}), and null where the GPU answers them: those a pulse asks every time. {@code migAnswer}
     * and {@code eccAnswer} are the modes' answers as a pulse shows them ({@link NvmlPulse#answer}), written once
     * here rather than for each GPU at every pulse (docs/performance.md, "The NVML pulse through JNA's direct
     * mapping").
     */
    record Known(String uuid, NvmlCall<NvmlSnapshot.Modes> mig, NvmlCall<NvmlSnapshot.Modes> ecc, NvmlCall<Long> pages,
                 NvmlCall<NvmlSnapshot.RemappedRows> rows, String migAnswer, String eccAnswer) {

        Known(String uuid, NvmlCall<NvmlSnapshot.Modes> mig, NvmlCall<NvmlSnapshot.Modes> ecc, NvmlCall<Long> pages,
              NvmlCall<NvmlSnapshot.RemappedRows> rows) {
            this(uuid, mig, ecc, pages, rows, NvmlPulse.answer(mig), NvmlPulse.answer(ecc));
        }
    }

    /**
     * {@code call} where it answered Not Supported, else null. Which of its two ways of repairing memory a GPU has is
     * a property of the GPU and the driver: pages retired on the GPUs before Ampere, rows remapped from Ampere on
     * (nvidia-smi -q on an H100: "Retired Pages ... Pending Page Blacklist : N/A", the remapped rows counted). Neither
     * changes while the session is held, so a pulse takes the GPU's Not Supported as known, like its modes: on eight
     * A100s or H100s 7 of the pulse's 74 calls (docs/performance.md, "Start-up and footprint tricks", row "a
     * memory-repair call a GPU does not support kept with its modes"). It is asked again when the GPU's modes are
     * (its turn, a snapshot).
     */
    static <T> NvmlCall<T> ifUnsupported(NvmlCall<T> call) {
        return call != null && call.returnCode() == NvmlReturn.ERROR_NOT_SUPPORTED ? call : null;
    }

    /**
     * A GPU's health answers as a pulse last read them, and their text ({@link NvmlPulse#health}): a pulse whose
     * answers are the same takes that text instead of writing it again (each GPU at every pulse, most of what the
     * pulse did in Java besides the calls themselves in the agent's interpreter: docs/performance.md, "The NVML
     * pulse").
     */
    private record Health(NvmlCall<Long> ecc, NvmlCall<Long> pages, NvmlCall<NvmlSnapshot.RemappedRows> rows,
                          NvmlCall<Long> clocks, String text) {
    }

    private final Map<Integer, Known> byIndex = new HashMap<>();
    /**
     * Each GPU's handle as the held session answered it, by index, while the device count is this array's length;
     * null where a pulse asks it again ({@link #handle}).
     */
    private NvmlDevice[] handles = new NvmlDevice[0];
    /**
     * Each GPU's lifetime uncorrected ECC count as last asked ({@link NvmlPulse#answer}), by index; null where a pulse
     * asks it ({@link #eccErrors}).
     */
    private String[] eccErrors = new String[0];
    /** The driver's version as last asked; null where the next pulse asks it ({@link #driverVersion}). */
    private String driverVersion;
    /** Each GPU's MIG devices as its last walk counted them, by index; null where none is known. */
    private Integer[] migDevices = new Integer[0];
    /** Each GPU's MIG configuration events: {@link #UNASKED}, {@link #WATCHED} or {@link #UNWATCHED}, by index. */
    private byte[] migWatch = new byte[0];
    private static final byte UNASKED = 0;
    private static final byte WATCHED = 1;
    /** The GPU or the library gives no MIG configuration events: its slots are walked at every pulse. */
    private static final byte UNWATCHED = 2;
    /** The held session's event set for MIG configuration changes; null before the first GPU is registered. */
    private Pointer migEvents;
    /** The set could not be made or waited on: no GPU is registered again this session. */
    private boolean migEventsFailed;
    /** Where the set's waits write, kept: a JNA {@code Memory} is a native allocation and a cleaner each. */
    private Memory eventData;
    /** By GPU index. */
    private Health[] health = new Health[0];
    /** The last pulse read; null before the first. */
    private NvmlPulse last;
    /** The index whose modes the next pulse reads whatever is known. */
    private int turn;

    /**
     * What a snapshot read: every GPU's modes, as new; and the next pulse asks every GPU's handle and UUID again, as
     * the snapshot did.
     */
    void learn(NvmlSnapshot snapshot) {
        byIndex.clear();
        Arrays.fill(handles, null);
        Arrays.fill(eccErrors, null);
        driverVersion = null;
        for (NvmlSnapshot.Device d : snapshot.devices()) {
            if (d.handle().ok()) {
                byIndex.put(d.index(), new Known(NvmlPulse.answer(d.uuid()), d.migMode(), d.eccMode(),
                        ifUnsupported(d.retiredPagesPending()), ifUnsupported(d.remappedRows())));
            }
        }
    }

    /**
     * The index whose modes a pulse over {@code count} GPUs reads in any case, moving the turn on; -1 for none.
     */
    int nextTurn(int count) {
        if (count <= 0) {
            return -1;
        }
        int t = turn % count;
        turn = t + 1;
        return t;
    }

    /** The modes known for the GPU at {@code index}, if it still gives {@code uuid}; null otherwise. */
    Known known(int index, String uuid) {
        Known k = byIndex.get(index);
        return k != null && Objects.equals(k.uuid(), uuid) ? k : null;
    }

    /** The modes known for the GPU at {@code index}, whatever UUID they were read with; null where none are. */
    Known known(int index) {
        return byIndex.get(index);
    }

    void put(int index, Known known) {
        byIndex.put(index, known);
    }

    /**
     * The session is given up: the next one starts knowing nothing. The MIG event set is freed here, before the
     * session's shutdown.
     */
    void clear(NvmlLibrary lib) {
        byIndex.clear();
        turn = 0;
        health = new Health[0];
        last = null;
        handles = new NvmlDevice[0];
        eccErrors = new String[0];
        driverVersion = null;
        migDevices = new Integer[0];
        migWatch = new byte[0];
        if (migEvents != null) {
            lib.eventSetFree(migEvents);
            migEvents = null;
        }
        migEventsFailed = false;
    }

    /**
     * The handle held for the GPU at {@code index} of {@code count}; null where the pulse asks it (and the UUID) again:
     * none held yet, or the count is not the one it was held with (a GPU gone can move the others' indices).
     *
     * <p>Why a pulse may go without asking them: within a session NVML's handle for an index stays the GPU's until
     * the shutdown, and a GPU's UUID is the GPU's. What asking them showed at every pulse, a GPU lost, NVML also
     * answers to the pulse's other calls on the held handle ({@code NVML_ERROR_GPU_IS_LOST}, which nvml.h gives for
     * nearly every device query); a pulse that gets any failure but Not Supported from them asks the handle and the
     * UUID again and reads the GPU as before ({@link NvmlPulse#read}), so a lost GPU reads as it did, in the same
     * pulse. Each GPU's are asked again at its turn.
     */
    NvmlDevice handle(int index, int count) {
        return handles.length == count ? handles[index] : null;
    }

    void holdHandle(int index, int count, NvmlDevice handle) {
        if (handles.length != count) {
            handles = new NvmlDevice[count];
            eccErrors = new String[count];
            migDevices = new Integer[count];
            migWatch = new byte[count]; // registered again with the new handles
        }
        handles[index] = handle;
    }

    /**
     * The lifetime uncorrected ECC count of the GPU at {@code index} as last asked, where {@code volatileCount} (the
     * count since the driver loaded, asked at every pulse) answers as it did at the last pulse; null where the pulse
     * asks it. The lifetime count takes in the errors that the count since the driver loaded shows at once: a new error
     * changes that one, and the pulse then asks both. What is left, the lifetime count changing alone (the GPU's
     * InfoROM written later than the count since the load), is seen at the GPU's turn, where it is asked again, or at a
     * full detection (docs/health.md, "How soon a pass sees it").
     */
    String eccErrors(int index, NvmlCall<Long> volatileCount) {
        if (index >= eccErrors.length || eccErrors[index] == null || index >= health.length || health[index] == null) {
            return null;
        }
        return sameAnswer(health[index].ecc, volatileCount, -1L) ? eccErrors[index] : null;
    }

    void eccErrors(int index, int count, String answer) {
        if (index < eccErrors.length && eccErrors.length == count) {
            eccErrors[index] = answer;
        }
    }

    /**
     * The driver's version as last asked, where the pulse need not ask it: a held session holds the driver, whose
     * module cannot be replaced while NVML is held (docs/provider.md), so it is asked when the first GPU's turn comes
     * and after a full detection; null where the pulse asks it.
     */
    String driverVersion(int turn) {
        return turn <= 0 ? null : driverVersion;
    }

    void driverVersion(String answer) {
        driverVersion = answer;
    }

    /** The MIG devices the last walk of the GPU at {@code index} counted; null where none is known. */
    Integer migDevices(int index) {
        return index < migDevices.length ? migDevices[index] : null;
    }

    void migDevices(int index, int count, Integer answering) {
        if (index < migDevices.length && migDevices.length == count) {
            migDevices[index] = answering;
        }
    }

    /** Whether a MIG configuration change of the GPU at {@code index} comes as an event ({@link #watchMig}). */
    boolean migWatched(int index) {
        return index < migWatch.length && migWatch[index] == WATCHED;
    }

    /**
     * Registers the GPU at {@code index} for MIG configuration change events ({@code nvmlEventMigConfigChange}) on the
     * session's own event set, once a session: a pulse then walks its MIG slots at its turn and after such an event
     * ({@link #migChanged}) instead of at every pulse (docs/performance.md, "The NVML pulse, fewer calls"). Where the
     * GPU or the library has no such event, or registering fails, the GPU's slots are walked at every pulse as before.
     * Called before the walk, so that a change after it comes as an event.
     */
    void watchMig(NvmlLibrary lib, int index, NvmlDevice d) {
        if (index >= migWatch.length || migWatch[index] != UNASKED) {
            return;
        }
        migWatch[index] = UNWATCHED;
        if (migEventsFailed) {
            return;
        }
        if (migEvents == null) {
            NvmlCall<Pointer> set = lib.eventSetCreate();
            if (!set.ok()) {
                migEventsFailed = true;
                return;
            }
            migEvents = set.value();
            eventData = NvmlLibrary.eventData();
        }
        NvmlCall<Long> types = lib.supportedEventTypes(d);
        if (types.ok() && (types.value() & NvmlEvent.MIG_CONFIG_CHANGE) != 0
                && lib.registerEvents(d, NvmlEvent.MIG_CONFIG_CHANGE, migEvents).ok()) {
            migWatch[index] = WATCHED;
        }
    }

    /**
     * Whether a MIG configuration changed since the last pulse asked: every event waiting in the session's set is
     * taken (a wait of 0 ms, one call where none waits). True also where the wait failed: the set is then given up
     * and every GPU's slots are walked at every pulse from then on.
     */
    boolean migChanged(NvmlLibrary lib) {
        if (migEvents == null) {
            return false;
        }
        boolean changed = false;
        for (int taken = 0; taken < 64; taken++) {
            NvmlCall<NvmlEvent> e = lib.eventSetWait(migEvents, 0, eventData);
            if (e.returnCode() == NvmlReturn.ERROR_TIMEOUT) {
                return changed;
            }
            if (!e.ok()) {
                lib.eventSetFree(migEvents);
                migEvents = null;
                migEventsFailed = true;
                Arrays.fill(migWatch, UNWATCHED);
                return true;
            }
            changed = true;
        }
        return true;
    }

    /** {@link NvmlPulse#health} of these answers for the GPU at {@code index}: the last text where they are the same. */
    String health(int index, NvmlCall<Long> ecc, NvmlCall<Long> pages, NvmlCall<NvmlSnapshot.RemappedRows> rows,
                  NvmlCall<Long> clocks) {
        if (index >= health.length) {
            health = Arrays.copyOf(health, index + 1);
        }
        Health h = health[index];
        if (h != null && sameAnswer(h.ecc, ecc, -1L) && sameAnswer(h.pages, pages, -1L) && sameAnswer(h.rows, rows, -1L)
                && sameAnswer(h.clocks, clocks, NvmlPulse.HARDWARE_SLOWDOWN_BITS)) {
            return h.text;
        }
        String text = NvmlPulse.health(ecc, pages, rows, clocks);
        health[index] = new Health(ecc, pages, rows, clocks, text);
        return text;
    }

    /**
     * Whether two calls' answers read the same in {@link NvmlPulse#health}: both not made, the same failure (which
     * reads as its code alone), or the same value (a {@code Long} masked with {@code mask}).
     */
    private static boolean sameAnswer(NvmlCall<?> a, NvmlCall<?> b, long mask) {
        if (a == null || b == null) {
            return a == b;
        }
        if (a.returnCode() != b.returnCode()) {
            return false;
        }
        if (!a.ok() || a.value() == b.value()) {
            return true;
        }
        if (a.value() instanceof Long x && b.value() instanceof Long y) {
            return (x & mask) == (y & mask);
        }
        // Field by field: a record's equals goes through method handles, slow in the agent's interpreter.
        return a.value() instanceof NvmlSnapshot.RemappedRows x && b.value() instanceof NvmlSnapshot.RemappedRows y
                && x.corrected() == y.corrected() && x.uncorrected() == y.uncorrected() && x.pending() == y.pending()
                && x.failure() == y.failure();
    }

    /**
     * The last pulse where {@code pulse} equals it, else {@code pulse} (kept as the last): the steady pass compares
     * each pulse with the one before, and the same object ends that at once. Each device equal to the last pulse's
     * is that device too, so that comparing a pulse that differs in one GPU does not compare the other GPUs' texts.
     */
    NvmlPulse sameAsLast(NvmlPulse pulse) {
        if (last != null && last.devices().size() == pulse.devices().size()) {
            List<NvmlPulse.Device> devices = new ArrayList<>(pulse.devices().size());
            boolean all = true;
            for (int i = 0; i < pulse.devices().size(); i++) {
                NvmlPulse.Device d = pulse.devices().get(i);
                NvmlPulse.Device before = last.devices().get(i);
                boolean same = d.equals(before);
                all &= same;
                devices.add(same ? before : d);
            }
            if (all && Objects.equals(pulse.problem(), last.problem())
                    && Objects.equals(pulse.driverVersion(), last.driverVersion())) {
                return last;
            }
            pulse = new NvmlPulse(pulse.problem(), pulse.driverVersion(), devices);
        }
        last = pulse;
        return pulse;
    }
}
