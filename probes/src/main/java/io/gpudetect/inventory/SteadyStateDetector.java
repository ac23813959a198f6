package io.gpudetect.inventory;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import io.gpudetect.nvml.NvmlPulse;
import io.gpudetect.probe.Probe;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.probe.nvml.NvmlProbe;
import io.gpudetect.probe.pci.PciHealth;
import io.gpudetect.probe.pci.SysfsPciProbe;
import io.gpudetect.source.Source;
import io.gpudetect.tables.Tables;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Detection for an agent that passes every minute on a live host. After a complete pass, a later pass first
 * reads a {@link Fingerprint} of the host (the PCI bus's functions, the drivers bound to its GPUs, the loaded
 * NVIDIA and AMD kernel modules' versions, and NVML's {@link NvmlPulse}: which GPUs answer, MIG and ECC mode, ECC
 * errors; a few calls a GPU, not the whole snapshot, where the agent holds NVML initialised) and repeats the
 * full detection only when that changed, or when {@code refresh} has passed since the last full one. Reading
 * the fingerprint starts no process: tools run only in a full detection, so a host that does not change runs
 * none after the first pass, and a GPU that falls off the bus (the bus or NVML changes) is still seen at once.
 */
public final class SteadyStateDetector {

    static final String NVIDIA_MODULE_VERSION = "/sys/module/nvidia/version";
    /** Each PCI driver's folder, which links the functions bound to it by their address. */
    static final String PCI_DRIVERS = "/sys/bus/pci/drivers";

    private final Detector detector;
    private final NvmlProbe nvml;
    private final Source source;
    private final Tables tables;
    private final Duration refresh;
    private final Clock clock;
    private Inventory last;
    /** What a fingerprint reads of each GPU of {@link #last}, named once: every steady pass reads it. */
    private Basis lastBasis;
    private Fingerprint lastFingerprint;
    /** The NVML probe whose pulse a steady pass compares: where {@link #last} consulted NVML, else null. */
    private NvmlProbe lastNvml;
    /** When the full detection of {@link #last} is to be repeated though the host looks unchanged. */
    private Instant refreshDue;
    private long fullDetections;

    public SteadyStateDetector(List<Probe> probes, Source source, Tables tables, Duration refresh, Clock clock) {
        this.detector = new Detector(probes);
        this.nvml = probes.stream().filter(p -> p instanceof NvmlProbe).map(p -> (NvmlProbe) p).findFirst().orElse(null);
        this.source = source;
        this.tables = tables;
        this.refresh = refresh;
        this.clock = clock;
    }

    /**
     * What the host's GPUs are now: the last complete pass's inventory when the host's fingerprint is as it
     * was then and the refresh is not due, a full detection otherwise.
     */
    public synchronized Inventory detect() {
        Instant now = clock.instant();
        if (last != null && now.isBefore(refreshDue)) {
            Fingerprint current = Fingerprint.read(source, lastBasis, lastNvml);
            if (current.equals(lastFingerprint)) {
                return last;
            }
        }
        Fingerprint before = Fingerprint.read(source, Basis.NONE, null);
        Inventory inventory = detector.detect(source, tables);
        fullDetections++;
        Basis basis = Basis.of(inventory);
        NvmlProbe pulsed = consultedNvml(inventory) ? nvml : null;
        Fingerprint after = Fingerprint.read(source, basis, pulsed);
        // A bus or a module that changed during the detection (a driver loading) leaves an inventory older than
        // the fingerprint read after it: such a pass is not kept, so the next one detects again.
        if (inventory.complete() && after.sameBusAndModules(before)) {
            last = inventory;
            lastBasis = basis;
            lastNvml = pulsed;
            refreshDue = now.plus(refresh);
            lastFingerprint = after;
        } else {
            last = null;
            lastBasis = null;
        }
        return inventory;
    }

    /** How many full detections ran: for the agent's metrics and for tests. */
    public synchronized long fullDetections() {
        return fullDetections;
    }

    private boolean consultedNvml(Inventory inventory) {
        if (nvml == null) {
            return false;
        }
        for (Inventory.ProbeSummary p : inventory.probes()) {
            if (p.name().equals(nvml.name())) {
                return p.outcome() != ProbeResult.Outcome.SKIPPED && p.outcome() != ProbeResult.Outcome.ABSENT;
            }
        }
        return false;
    }

    /**
     * What a fingerprint reads of each GPU (with a PCI address) of one inventory: the address, the path of the
     * function's {@code driver} link, the folder of the driver the detection found bound to it, and, for a GPU NVML
     * does not describe, the function's folder (what {@link PciHealth} reads). Made once per full detection: a steady
     * pass reads the same paths, and naming them again (each address written out twice, each path put together) was
     * about a third of the samples in reading the fingerprint in the agent's interpreter (docs/performance.md, "The
     * pass thread").
     *
     * @param addresses     each GPU's PCI address as text, in the inventory's order
     * @param driverLinks   each GPU's {@code driver} link
     * @param drivers       the driver the detection found bound to each GPU, null for none
     * @param driverFolders each of {@code drivers}' folder under {@code /sys/bus/pci/drivers} (one object for GPUs
     *                      on the same driver), null for none
     * @param healthDirs    each GPU's function folder where its health is read from sysfs, else null
     */
    record Basis(List<String> addresses, List<String> driverLinks, List<String> drivers, List<String> driverFolders,
                 List<String> healthDirs) {

        static final Basis NONE = new Basis(List.of(), List.of(), List.of(), List.of(), List.of());

        static Basis of(Inventory inventory) {
            List<String> addresses = new ArrayList<>();
            List<String> driverLinks = new ArrayList<>();
            List<String> drivers = new ArrayList<>();
            List<String> driverFolders = new ArrayList<>();
            List<String> healthDirs = new ArrayList<>();
            Map<String, String> folders = new HashMap<>();
            for (Gpu g : inventory.gpus()) {
                if (g.pciAddress() != null) {
                    String address = g.pciAddress().toString();
                    String dir = SysfsPciProbe.PCI_DEVICES + "/" + address;
                    String driver = g.kernelDriver() == null || g.kernelDriver().isEmpty() ? null : g.kernelDriver();
                    addresses.add(address);
                    driverLinks.add(dir + "/driver");
                    drivers.add(driver);
                    driverFolders.add(driver == null ? null : folders.computeIfAbsent(driver, d -> PCI_DRIVERS + "/" + d));
                    healthDirs.add(g.vendor() != Vendor.NVIDIA ? dir : null);
                }
            }
            return new Basis(List.copyOf(addresses), List.copyOf(driverLinks), Collections.unmodifiableList(drivers),
                    Collections.unmodifiableList(driverFolders), Collections.unmodifiableList(healthDirs));
        }
    }

    /**
     * What a pass compares: equal fingerprints mean the full detection would find what it found before. An
     * unreadable part is read as null, which differs from any value read before, so a host that cannot be
     * read as before is detected in full.
     *
     * @param functions the PCI function names on the bus
     * @param gpus      the PCI addresses of the GPUs the last pass found on the bus, whose drivers are read
     * @param drivers   for each of {@code gpus}, the name of the driver bound to it ("" for none)
     * @param nvml      what NVML said (GPUs, health, MIG mode), where the last pass consulted it
     * @param health    for each GPU NVML does not describe, what {@link PciHealth} reads of its function
     */
    record Fingerprint(List<String> functions, List<String> gpus, List<String> drivers, String nvidiaModule,
                       String amdgpuModule, NvmlPulse nvml, List<String> health) {

        /** @param basis what is read of each GPU of the inventory the pass compares with ({@link Basis#NONE}: no GPU) */
        static Fingerprint read(Source source, Basis basis, NvmlProbe nvml) {
            List<String> functions;
            List<String> drivers = new ArrayList<>(basis.addresses().size());
            List<String> health = new ArrayList<>();
            String nvidia;
            String amdgpu;
            try {
                functions = source.list(SysfsPciProbe.PCI_DEVICES);
                String listedFolder = null;
                List<String> bound = List.of();
                for (int i = 0; i < basis.addresses().size(); i++) {
                    // The kernel links a bound function from its driver's folder as it links the function's driver
                    // (and takes both links away on unbinding): a GPU listed there is bound to that driver. One
                    // listing of the folder for the GPUs on it is cheaper than a link read for each of them (a GPU
                    // server: one listing of ~14 entries against eight link reads in the agent's interpreter); a GPU
                    // not listed there (unbound, rebound, a host root without those links) has its link read.
                    String folder = basis.driverFolders().get(i);
                    if (folder != null && !folder.equals(listedFolder)) {
                        bound = source.list(folder);
                        listedFolder = folder;
                    }
                    if (folder != null && Collections.binarySearch(bound, basis.addresses().get(i)) >= 0) {
                        drivers.add(basis.drivers().get(i));
                    } else {
                        String link = source.readLink(basis.driverLinks().get(i)).orElse(null);
                        drivers.add(link == null ? "" : link.substring(link.lastIndexOf('/') + 1));
                    }
                    String dir = basis.healthDirs().get(i);
                    if (dir != null) {
                        // What PciHealth reads: a GPU off the bus or a RAS count that moved is a change.
                        health.add(basis.addresses().get(i) + "=" + PciHealth.fingerprint(source, dir));
                    }
                }
                nvidia = source.readFile(NVIDIA_MODULE_VERSION).map(String::strip).orElse("");
                amdgpu = source.readFile(SysfsPciProbe.AMDGPU_VERSION).map(String::strip).orElse("");
            } catch (IOException e) {
                return new Fingerprint(null, null, null, null, null, null, null);
            }
            return new Fingerprint(functions, basis.addresses(), drivers, nvidia, amdgpu,
                    nvml == null ? null : nvml.pulse(source).orElse(null), health);
        }

        /** The PCI functions and the module versions are as in {@code other}: what does not depend on a basis. */
        boolean sameBusAndModules(Fingerprint other) {
            return functions != null && other.functions != null && functions.equals(other.functions)
                    && nvidiaModule.equals(other.nvidiaModule) && amdgpuModule.equals(other.amdgpuModule);
        }

        @Override
        public boolean equals(Object o) {
            // An unreadable fingerprint equals nothing, itself included.
            return o instanceof Fingerprint f && functions != null && f.functions != null
                    && functions.equals(f.functions) && gpus.equals(f.gpus) && drivers.equals(f.drivers)
                    && nvidiaModule.equals(f.nvidiaModule)
                    && amdgpuModule.equals(f.amdgpuModule) && Objects.equals(nvml, f.nvml) && Objects.equals(health, f.health);
        }

        @Override
        public int hashCode() {
            return Objects.hash(functions, gpus, drivers, nvidiaModule, amdgpuModule, nvml, health);
        }
    }
}
