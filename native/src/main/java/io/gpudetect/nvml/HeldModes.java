package io.gpudetect.nvml;

import java.util.HashMap;
import java.util.Map;

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
     * A100s or H100s 8 of the pulse's calls. It is asked again when the GPU's modes are (its turn, a snapshot).
     */
    static <T> NvmlCall<T> ifUnsupported(NvmlCall<T> call) {
        return call != null && call.returnCode() == NvmlReturn.ERROR_NOT_SUPPORTED ? call : null;
    }

    private final Map<Integer, Known> byIndex = new HashMap<>();
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
        return k != null && java.util.Objects.equals(k.uuid(), uuid) ? k : null;
    }

    void put(int index, Known known) {
        byIndex.put(index, known);
    }

    /** The session was given up: the next one starts knowing nothing. */
    void clear() {
        byIndex.clear();
        turn = 0;
    }
}
