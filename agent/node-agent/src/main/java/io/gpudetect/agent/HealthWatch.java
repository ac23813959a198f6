package io.gpudetect.agent;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.model.PciAddress;
import io.gpudetect.nvml.NvmlEventWatcher;
import io.gpudetect.sink.Observation;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What the agent learns between passes from NVML's events ({@link NvmlEventWatcher}), and how it reaches the next
 * pass. A critical Xid or a double-bit ECC error on a GPU asks the loop for a pass at once (the trigger's rate
 * limit holds), counts in the metrics, and marks that GPU: every pass from then on shows it {@code failed} with
 * reason {@code XidCritical} (or {@code UncorrectableEcc}) beside whatever the pass-time checks read.
 *
 * <p>An event is a moment, not a state NVML can be asked for again, so the mark is kept until the GPU is known to
 * have been reset: a pass sees the GPU lost (Xid 79 takes it off the bus) and a later pass sees it answer again
 * (a GPU reset or a driver reload brought it back). A driver reload needs the agent's pod stopped first, since the
 * agent holds NVML (docs/provider.md), and a new agent starts with no marks. Xids that are an application's
 * fault, not the GPU's, are counted and logged but mark nothing: {@link #APPLICATION_XIDS}.
 *
 * <p>Thread-safe: events arrive on the watcher's thread, passes run on the loop's.
 */
public final class HealthWatch {

    /**
     * Xids that an application causes and that leave the GPU healthy: the list NVIDIA's device plugin ignores
     * (k8s-device-plugin, {@code internal/rm/health.go}, {@code getDisabledHealthCheckXids}): 13 graphics engine
     * exception, 31 GPU memory page fault, 43 GPU stopped processing, 45 preemptive cleanup, 68 video processor
     * exception, 109 context switch timeout.
     */
    public static final Set<Long> APPLICATION_XIDS = Set.of(13L, 31L, 43L, 45L, 68L, 109L);

    private final AgentLog log;
    private final AgentMetrics metrics;
    private final Clock clock;
    private volatile Consumer<String> trigger = why -> { };
    /** Each marked GPU's mark, by PCI address. */
    private final Map<PciAddress, Mark> marks = new LinkedHashMap<>();
    /** Counts changes to {@link #marks}, so that a pass over the same inventory and marks reuses its result. */
    private long version;
    private Inventory lastIn;
    private long lastVersion = -1;
    private Observation lastOut;

    /** @param seenLost a pass saw the GPU lost since the mark was set: the next pass that sees it answer clears it */
    private record Mark(List<HealthReason> reasons, List<String> problems, boolean seenLost) {
    }

    public HealthWatch(AgentLog log, AgentMetrics metrics, Clock clock) {
        this.log = log;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** Where an event asks for a pass: the loop's trigger. */
    public void onEvent(Consumer<String> trigger) {
        this.trigger = trigger;
    }

    /** The listener to start an {@link NvmlEventWatcher} with. */
    public NvmlEventWatcher.Listener listener() {
        return new NvmlEventWatcher.Listener() {
            @Override
            public void event(NvmlEventWatcher.HealthEvent event) {
                HealthWatch.this.event(event);
            }

            @Override
            public void armed(int gpus, List<String> notes) {
                metrics.healthEventsWatched(gpus);
                log.info("watching NVML health events", "gpus", gpus, "notes", notes.isEmpty() ? "none" : String.join("; ", notes));
            }

            @Override
            public void unsupported(String why) {
                metrics.healthEventsWatched(0);
                log.info("NVML gives no health events; the checks of each pass stand alone", "why", why);
            }

            @Override
            public void interrupted(String why) {
                metrics.healthEventsWatched(0);
                log.warn("NVML stopped waiting for health events; a pass reads the GPUs now", "why", why);
                trigger.accept("NVML events interrupted");
            }
        };
    }

    /** One event from the watcher: counted, logged, the GPU marked unless the Xid is an application's, a pass asked for. */
    public void event(NvmlEventWatcher.HealthEvent e) {
        String gpu = "GPU " + e.index() + (e.uuid() == null ? "" : " " + e.uuid());
        PciAddress address = address(e);
        if (e.xid()) {
            metrics.xid(e.data());
            if (APPLICATION_XIDS.contains(e.data())) {
                log.info("application Xid: the GPU stays healthy", "xid", e.data(), "gpu", gpu,
                        "pciAddress", String.valueOf(address));
                return;
            }
            mark(address, HealthReason.XID_CRITICAL, "Xid " + e.data() + " reported by NVML at " + clock.instant());
            log.warn("critical Xid", "xid", e.data(), "gpu", gpu, "pciAddress", String.valueOf(address));
            trigger.accept("Xid " + e.data() + " on " + gpu);
        }
        if (e.doubleBitEcc()) {
            metrics.healthEvent("double-bit-ecc");
            mark(address, HealthReason.UNCORRECTABLE_ECC, "a double-bit ECC error reported by NVML at " + clock.instant());
            log.warn("uncorrectable ECC error", "gpu", gpu, "pciAddress", String.valueOf(address));
            trigger.accept("double-bit ECC error on " + gpu);
        }
    }

    private static PciAddress address(NvmlEventWatcher.HealthEvent e) {
        if (e.pciDomain() == null || e.pciBus() == null || e.pciDevice() == null) {
            return null;
        }
        try {
            return new PciAddress(e.pciDomain(), e.pciBus(), e.pciDevice(), 0);
        } catch (IllegalArgumentException ex) {
            return null;
        }
    }

    private synchronized void mark(PciAddress address, HealthReason reason, String problem) {
        if (address == null) {
            return; // no GPU to tie it to: the pass it triggers reads every GPU
        }
        Mark m = marks.get(address);
        List<HealthReason> reasons = new ArrayList<>(m == null ? List.of() : m.reasons());
        List<String> problems = new ArrayList<>(m == null ? List.of() : m.problems());
        if (!reasons.contains(reason)) {
            reasons.add(reason);
        }
        problems.add(problem);
        // A GPU already seen lost and marked again keeps its state: it still has to come back to be cleared.
        marks.put(address, new Mark(reasons, problems.size() > 4 ? problems.subList(problems.size() - 4, problems.size())
                : problems, m != null && m.seenLost()));
        version++;
    }

    /**
     * The pass's observation with each marked GPU's health joined with its mark; the very observation when no GPU is
     * marked. A GPU seen lost, then answering again, loses its mark here.
     */
    public synchronized Observation apply(Observation seen) {
        Inventory inventory = seen.inventory();
        if (marks.isEmpty() || inventory.failure() != null) {
            return seen;
        }
        for (Gpu g : inventory.gpus()) {
            Mark m = g.pciAddress() == null ? null : marks.get(g.pciAddress());
            if (m == null) {
                continue;
            }
            boolean lost = g.health() != null && g.health().status() == Health.Status.LOST;
            if (lost && !m.seenLost()) {
                marks.put(g.pciAddress(), new Mark(m.reasons(), m.problems(), true));
                version++;
            } else if (!lost && m.seenLost() && inventory.complete()) {
                marks.remove(g.pciAddress());
                version++;
                log.info("GPU answers again after it was lost: its event marks are cleared", "pciAddress",
                        g.pciAddress().toString());
            }
        }
        if (marks.isEmpty()) {
            return seen;
        }
        if (inventory == lastIn && version == lastVersion) {
            return new Observation(lastOut.inventory(), seen.drmCards(), seen.hostFacts());
        }
        List<Gpu> gpus = new ArrayList<>(inventory.gpus().size());
        for (Gpu g : inventory.gpus()) {
            Mark m = g.pciAddress() == null ? null : marks.get(g.pciAddress());
            gpus.add(m == null ? g : g.toBuilder("nvml-events").health(joined(g.health(), m)).build());
        }
        Inventory marked = new Inventory(inventory.source(), gpus, inventory.probes(), inventory.diagnostics(),
                inventory.machine(), inventory.gaps(), inventory.failure());
        lastIn = inventory;
        lastVersion = version;
        lastOut = new Observation(marked, seen.drmCards(), seen.hostFacts());
        return lastOut;
    }

    private static Health joined(Health read, Mark m) {
        List<HealthReason> reasons = new ArrayList<>(read == null ? List.of() : read.reasons());
        reasons.addAll(m.reasons());
        List<String> problems = new ArrayList<>(read == null ? List.of() : read.problems());
        problems.addAll(m.problems());
        Health joined = Health.of(reasons, read == null ? null : read.eccUncorrectedErrors(), problems);
        // A state a tool said without a reason code (a lost GPU from nvidia-smi) still counts.
        return read == null || read.status() == null ? joined : new Health(read.status().worse(joined.status()),
                joined.eccUncorrectedErrors(), joined.problems(), joined.reasons());
    }

    /** How many GPUs carry an event mark now: for tests and logs. */
    public synchronized int marked() {
        return marks.size();
    }
}
