package io.gpudetect.agent;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.model.PciAddress;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.sink.Observation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The GPUs of the agent's last complete pass, so that a GPU whose PCI function left the bus (the kernel removed it:
 * an AER surprise removal, {@code echo 1 > remove}, a card that fell off) reads {@code lost} with reason
 * {@code GpuLost} instead of simply disappearing: a pass that no longer sees a remembered GPU adds it to its
 * inventory, its facts as last seen and its health lost, so that the labels, the record, the metrics, the Node
 * condition and the Events all say it. The pass cannot tell a removed GPU from one never there; only memory can.
 * It works the same for every vendor (an NVIDIA GPU that NVML no longer lists too).
 *
 * <p>A remembered GPU is forgotten when
 * <ul>
 *   <li>it is back: a GPU answers at its PCI address (or, renumbered, with its UUID or serial);</li>
 *   <li>the node rebooted: the node's boot id (the kubelet's {@code status.nodeInfo.bootID}) is not the one the
 *       memory was built in. A card taken out on purpose is taken out with the power off, and a card the provider
 *       removed from a running node is forgotten at the next reboot;</li>
 *   <li>someone deletes the agent's {@code GpuCapacity} record: the way to say "start from what is on the bus now"
 *       without a reboot ({@link #forget}).</li>
 * </ul>
 * The memory outlives an agent restart within one boot (an upgrade, a crash): the record lists the GPUs of the last
 * complete pass with the boot id they were seen in ({@code spec.bootId}), and a new agent's first pass takes those
 * of the same boot as its memory ({@link #seed}). A record of another boot, or of an older agent without a boot id,
 * is not taken.
 *
 * <p>Only a complete pass changes the memory (an incomplete one may have missed a GPU that is there). A pass whose
 * inventory and memory are as before gets the very observation it got before, so a steady pass stays steady.
 * Thread-safe: the record's informer calls {@link #forget} on its own thread.
 */
public final class LostGpus {

    /** What a lost GPU's fields are recorded as coming from. */
    static final String SOURCE = "remembered";

    private final AgentLog log;
    /** The GPUs of the last complete pass, and those remembered lost since, by PCI address. */
    private final Map<PciAddress, Gpu> remembered = new TreeMap<>();
    /** The PCI addresses of remembered GPUs already said lost in the log, so that each is said once. */
    private final Set<PciAddress> said = new HashSet<>();
    /** The boot the memory was built in; null while the node's boot id is not known. */
    private String bootId;
    /** True once the record was read for what an agent before this one remembered. */
    private boolean seeded;
    /** Counts changes to the memory, so that a pass over the same inventory and memory reuses its result. */
    private long version;
    private Inventory lastIn;
    private long lastVersion = -1;
    private Observation lastOut;

    public LostGpus(AgentLog log) {
        this.log = log;
    }

    /** True until {@link #seed} has read a record (or learnt that there is none). */
    public synchronized boolean needsSeed() {
        return !seeded;
    }

    /**
     * Takes what the agent before this one remembered: the GPUs {@code record} lists, where it was written in the boot
     * {@code bootId} names (an agent restarted, the node not). GPUs the memory has are kept as they are.
     *
     * @param record the agent's record as the API server holds it; null when there is none
     * @return true when the memory changed
     */
    public synchronized boolean seed(String bootId, GpuCapacity record) {
        seeded = true;
        noteBoot(bootId);
        GpuCapacitySpec spec = record == null ? null : record.getSpec();
        if (spec == null || bootId == null || !bootId.equals(spec.bootId())) {
            return false;
        }
        int taken = 0;
        for (GpuCapacitySpec.GpuEntry e : spec.gpus()) {
            PciAddress address = PciAddress.parse(e.pciAddress()).orElse(null);
            if (address != null && !remembered.containsKey(address)) {
                remembered.put(address, e.toGpu(SOURCE));
                taken++;
            }
        }
        if (taken > 0) {
            version++;
        }
        return taken > 0;
    }

    /**
     * Notes the node's boot id as this pass read it: a boot id other than the memory's means the node rebooted, and
     * everything remembered is forgotten.
     *
     * @return true when the memory changed
     */
    public synchronized boolean noteBoot(String bootId) {
        if (bootId == null) {
            return false;
        }
        boolean rebooted = this.bootId != null && !this.bootId.equals(bootId) && !remembered.isEmpty();
        if (rebooted) {
            log.info("node rebooted: the GPUs remembered from the boot before are forgotten", "gpus", remembered.size());
            remembered.clear();
            said.clear();
            version++;
        }
        this.bootId = bootId;
        return rebooted;
    }

    /** Forgets every remembered GPU: the agent's record was deleted, the next complete pass is the memory. */
    public synchronized void forget() {
        if (!remembered.isEmpty()) {
            log.info("GpuCapacity record deleted: the GPUs remembered from earlier passes are forgotten",
                    "gpus", remembered.size());
        }
        remembered.clear();
        said.clear();
        version++;
    }

    /**
     * The pass's observation with each remembered GPU it does not see added as lost; the very observation when it
     * sees them all. A complete pass becomes the memory (with the GPUs still missing kept).
     */
    public synchronized Observation apply(Observation seen) {
        Inventory inventory = seen.inventory();
        if (inventory.failure() != null) {
            return seen;
        }
        if (inventory == lastIn && version == lastVersion) {
            // The steady detector hands back the very inventory while the host is unchanged: so is the answer.
            return lastOut == null ? seen : new Observation(lastOut.inventory(), seen.drmCards(), seen.hostFacts());
        }
        List<Gpu> present = inventory.realGpus();
        Set<PciAddress> addresses = new HashSet<>();
        Set<String> ids = new HashSet<>();
        for (Gpu g : present) {
            if (g.pciAddress() != null) {
                addresses.add(g.pciAddress());
            }
            if (g.uuid() != null) {
                ids.add(g.uuid());
            }
            if (g.serial() != null) {
                ids.add(g.serial());
            }
        }
        List<Gpu> missing = new ArrayList<>();
        Set<PciAddress> missingAt = new HashSet<>();
        for (Map.Entry<PciAddress, Gpu> e : remembered.entrySet()) {
            Gpu g = e.getValue();
            if (!addresses.contains(e.getKey()) && !ids.contains(g.uuid()) && !ids.contains(g.serial())) {
                missing.add(g);
                missingAt.add(e.getKey());
            }
        }
        for (PciAddress a : new ArrayList<>(said)) {
            if (!missingAt.contains(a)) {
                said.remove(a);
                log.info("GPU back on the PCI bus", "pciAddress", a.toString());
            }
        }
        if (inventory.complete()) {
            remember(present, missing);
        }
        Observation out = null;
        if (!missing.isEmpty()) {
            List<Gpu> gpus = new ArrayList<>(inventory.gpus());
            for (Gpu g : missing) {
                gpus.add(lost(g));
                if (said.add(g.pciAddress())) {
                    log.warn("GPU gone from the PCI bus: reported lost until it is back, the node reboots or the record "
                            + "is deleted", "pciAddress", g.pciAddress().toString(),
                            "model", g.model() == null ? "unknown" : g.model(), "uuid", g.uuid() == null ? "unknown" : g.uuid());
                }
            }
            gpus.sort(Comparator.comparing(Gpu::pciAddress, Comparator.nullsLast(Comparator.naturalOrder())));
            out = new Observation(new Inventory(inventory.source(), gpus, inventory.probes(), inventory.diagnostics(),
                    inventory.machine(), inventory.gaps(), inventory.failure(), inventory.fabric()),
                    seen.drmCards(), seen.hostFacts());
        }
        lastIn = inventory;
        lastVersion = version;
        lastOut = out;
        return out == null ? seen : out;
    }

    /** The memory after a complete pass: the GPUs it saw, and those still missing. */
    private void remember(List<Gpu> present, List<Gpu> missing) {
        Map<PciAddress, Gpu> next = new TreeMap<>();
        for (Gpu g : missing) {
            next.put(g.pciAddress(), g);
        }
        for (Gpu g : present) {
            if (g.pciAddress() == null) {
                continue; // a GPU NVML could not even address is in the inventory already, lost
            }
            Gpu before = remembered.get(g.pciAddress());
            // A GPU that answers lost has few facts left: what it was is kept from when it answered.
            boolean thin = g.health() != null && g.health().status() == Health.Status.LOST && before != null;
            next.put(g.pciAddress(), thin ? before : g);
        }
        // By identity: a record's equals over every GPU's facts would cost each pass more than the pass's own work.
        boolean same = next.size() == remembered.size();
        for (Map.Entry<PciAddress, Gpu> e : next.entrySet()) {
            same = same && remembered.get(e.getKey()) == e.getValue();
        }
        if (!same) {
            remembered.clear();
            remembered.putAll(next);
            version++;
        }
    }

    /**
     * The GPU as last seen, its facts that stay with the card (what it is, where it was), health lost. What left
     * with the function is not kept: its driver binding, partitions, link, power limits and links.
     */
    static Gpu lost(Gpu g) {
        return Gpu.builder(SOURCE).vendor(g.vendor()).name(g.name()).model(g.model()).memoryMiB(g.memoryMiB())
                .memoryGi(g.memoryGi()).sharedMemory(g.sharedMemory()).driverVersion(g.driverVersion())
                .runtimeVersion(g.runtimeVersion()).pciAddress(g.pciAddress()).pciVendorId(g.pciVendorId())
                .pciDeviceId(g.pciDeviceId()).pciSubsystemVendorId(g.pciSubsystemVendorId())
                .pciSubsystemDeviceId(g.pciSubsystemDeviceId()).pciRevision(g.pciRevision()).pciClass(g.pciClass())
                .uuid(g.uuid()).serial(g.serial()).boardPartNumber(g.boardPartNumber()).boardName(g.boardName())
                .interfaceType(g.interfaceType()).architecture(g.architecture()).computeCapability(g.computeCapability())
                .computeUnits(g.computeUnits()).pcieRoot(g.pcieRoot()).numaNode(g.numaNode())
                .vbiosVersion(g.vbiosVersion()).memoryKind(g.memoryKind())
                .health(Health.of(List.of(HealthReason.GPU_LOST), null, List.of("PCI function " + g.pciAddress()
                        + " is gone from the bus: the kernel no longer lists it (it was there at an earlier pass)")))
                .build();
    }

    /** How many GPUs are remembered now: for tests and logs. */
    public synchronized int remembered() {
        return remembered.size();
    }

}
