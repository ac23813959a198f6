package io.gpudetect.nvml;

import java.util.ArrayList;
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
 * A change the session lives through may show in the pulse's other calls (a lost GPU, a handle or a UUID that no
 * longer answers, the health checks, the MIG devices), which start a full detection, and every full detection reads
 * every GPU's modes again. What is left, a mode that changes with nothing else changing, is seen when its GPU's turn
 * comes: within as many pulses as the host has GPUs (docs/labels.md, "How soon a mode change is seen").
 */
final class HeldModes {

    /**
     * One GPU's modes, and the UUID answer it gave when they were read: another GPU at that index reads again.
     * {@code pages} and {@code rows} are the retired-pages and remapped-rows answers where they were Not Supported
     * ({@link #ifUnsupported}), and null where the GPU answers them: those a pulse asks every time.
     */
    record Known(String uuid, NvmlCall<NvmlSnapshot.Modes> mig, NvmlCall<NvmlSnapshot.Modes> ecc, NvmlCall<Long> pages,
                 NvmlCall<NvmlSnapshot.RemappedRows> rows) {
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
    /** By GPU index. */
    private Health[] health = new Health[0];
    /** The last pulse read; null before the first. */
    private NvmlPulse last;
    /** The index whose modes the next pulse reads whatever is known. */
    private int turn;

    /** What a snapshot read: every GPU's modes, as new. */
    void learn(NvmlSnapshot snapshot) {
        byIndex.clear();
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

    void put(int index, Known known) {
        byIndex.put(index, known);
    }

    /** The session was given up: the next one starts knowing nothing. */
    void clear() {
        byIndex.clear();
        turn = 0;
        health = new Health[0];
        last = null;
    }

    /** {@link NvmlPulse#health} of these answers for the GPU at {@code index}: the last text where they are the same. */
    String health(int index, NvmlCall<Long> ecc, NvmlCall<Long> pages, NvmlCall<NvmlSnapshot.RemappedRows> rows,
                  NvmlCall<Long> clocks) {
        if (index >= health.length) {
            health = java.util.Arrays.copyOf(health, index + 1);
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
