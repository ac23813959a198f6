package io.gpudetect.probe.nvml;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuLinks;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.model.PcieLink;
import io.gpudetect.model.PowerLimits;
import io.gpudetect.model.Partition;
import io.gpudetect.model.Partitioning;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.nvml.NvmlCall;
import io.gpudetect.nvml.NvmlPulse;
import io.gpudetect.nvml.NvmlReturn;
import io.gpudetect.nvml.NvmlSnapshot;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.probe.nvidia.NvidiaValues;
import io.gpudetect.tables.MemorySize;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns an {@link NvmlSnapshot} into GPUs and diagnostics: a pure function, the same for a live library
 * and a replayed {@code nvml.json}. A call that answered {@code NOT_SUPPORTED} is a fact the GPU does not
 * have; a symbol the library lacks is a fact this driver cannot give (one note per symbol); a GPU that
 * answers {@code GPU_IS_LOST}, {@code UNKNOWN} or {@code RESET_REQUIRED} is reported lost, with its PCI
 * address when NVML still had it, and a note (a GPU described as lost is not a failure to read it); any other
 * failure is a warning naming the GPU and the call.
 */
public final class NvmlGpus {

    private static final long MIB = 1024L * 1024L;
    /** {@code NVML_ERROR_INVALID_ARGUMENT}: what a link past a GPU's last answers. */
    private static final int ERROR_INVALID_ARGUMENT = 2;
    /** "NVIDIA A100-SXM4-40GB MIG 1g.5gb" -> "1g.5gb"; also "... MIG 1c.2g.20gb" for a compute instance. */
    private static final Pattern MIG_PROFILE = Pattern.compile("\\bMIG\\s+(\\S+)\\s*$");

    private NvmlGpus() {
    }

    public static ProbeResult interpret(NvmlSnapshot s, String file) {
        String probe = NvmlProbe.PROBE;
        if (s.unavailable() != null) {
            return ProbeResult.absent(probe, Diagnostic.info(probe, file, "NVML unavailable: " + s.unavailable()));
        }
        if (s.format() > NvmlSnapshot.FORMAT) {
            return ProbeResult.failed(probe, Diagnostic.error(probe, file, null, "snapshot format " + s.format()
                    + " is newer than this gpu-detect reads (" + NvmlSnapshot.FORMAT + "); upgrade gpu-detect"));
        }
        if (s.init() == null) {
            return ProbeResult.failed(probe, Diagnostic.error(probe, file, null,
                    "the snapshot has neither 'init' nor 'unavailable': not written by 'gpu-detect record'"));
        }
        if (!s.init().ok()) {
            return ProbeResult.failed(probe, Diagnostic.error(probe, file, null,
                    describe(s.init()) + " for " + s.library() + hint(s.init().returnCode())));
        }
        if (s.deviceCount() == null || !s.deviceCount().ok()) {
            return ProbeResult.failed(probe, Diagnostic.error(probe, file, null, s.deviceCount() == null
                    ? "the snapshot has no device count" : describe(s.deviceCount()) + ": no GPU could be listed"));
        }
        Context c = new Context(file);
        String driver = c.fact(s.driverVersion(), "the driver version", null);
        Integer cuda = c.fact(s.cudaDriverVersion(), "the CUDA version", null);
        String runtime = cuda == null || cuda <= 0 ? null : (cuda / 1000) + "." + (cuda % 1000) / 10;
        List<Gpu> gpus = new ArrayList<>();
        for (NvmlSnapshot.Device d : s.devices()) {
            Gpu gpu = c.gpu(d, driver, runtime);
            if (gpu != null) {
                gpus.add(gpu);
            }
        }
        // A replayed snapshot can say success and still hold no count: then there is nothing to compare.
        Integer counted = s.deviceCount().value();
        if (counted != null && s.devices().size() != counted) {
            c.notes.add(Diagnostic.warning(probe, file, null, "NVML counted " + counted
                    + " GPUs but the snapshot describes " + s.devices().size()));
        }
        for (String symbol : c.missingSymbols) {
            c.notes.add(Diagnostic.info(probe, file, "this libnvidia-ml does not export " + symbol
                    + " (an older driver); that fact comes from another probe if any"));
        }
        return ProbeResult.of(probe, gpus, c.notes);
    }

    private static String describe(NvmlCall<?> call) {
        return call.function() + " returned " + call.status() + (call.error() == null ? "" : " (" + call.error() + ")");
    }

    /** What a person can do about an init failure. */
    private static String hint(int code) {
        return switch (code) {
            case NvmlReturn.ERROR_DRIVER_NOT_LOADED -> ": the NVIDIA kernel module is not loaded (driver not installed, or it failed to load: see dmesg)";
            case NvmlReturn.ERROR_NO_PERMISSION -> ": no access to /dev/nvidia* (give the container the NVIDIA devices or run it privileged)";
            case NvmlReturn.ERROR_LIB_RM_VERSION_MISMATCH -> ": libnvidia-ml and the loaded kernel module are different driver versions (driver upgraded without a reboot, or the wrong driver root mounted)";
            case NvmlReturn.ERROR_LIBRARY_NOT_FOUND -> ": NVML could not load the driver's other libraries";
            default -> "";
        };
    }

    /** The state of one interpretation: its notes and the symbols found missing so far. */
    private static final class Context {
        private final String file;
        private final List<Diagnostic> notes = new ArrayList<>();
        private final Set<String> missingSymbols = new TreeSet<>();
        /** Why the device being read is lost; null while it answers. */
        private String lostBecause;

        Context(String file) {
            this.file = file;
        }

        /**
         * A note, not a warning: a lost GPU is described (its health says lost, with why) rather than misread,
         * so NVML's answer stays {@code ok}, the pass can be complete, and {@code gpu.unhealthy.count} reaches the
         * node. The table's health column and the inventory's {@code health.problems} show it.
         */
        Diagnostic lost(String label, String why) {
            return Diagnostic.info(NvmlProbe.PROBE, file, null, label + " is lost: " + why
                    + "; it needs a reset or has fallen off the bus");
        }

        /** The value of a call, or null with the failure noted the way its code deserves. */
        <T> T fact(NvmlCall<T> call, String what, String gpu) {
            if (call == null) {
                return null;
            }
            if (call.ok()) {
                return call.value();
            }
            int code = call.returnCode();
            if (code == NvmlReturn.ERROR_NOT_SUPPORTED) {
                return null;
            }
            if (code == NvmlReturn.ERROR_FUNCTION_NOT_FOUND) {
                // A replayed file may name no function; the live library always does.
                missingSymbols.add(call.function() == null ? "(a function the snapshot does not name)" : call.function());
                return null;
            }
            if (gpu != null && NvmlReturn.meansGpuLost(code)) {
                if (lostBecause == null) {
                    lostBecause = describe(call);
                }
                return null;
            }
            notes.add(Diagnostic.warning(NvmlProbe.PROBE, file, null,
                    (gpu == null ? "" : gpu + ": ") + what + " not read: " + describe(call)));
            return null;
        }

        Gpu gpu(NvmlSnapshot.Device d, String driver, String runtime) {
            String label = "GPU " + d.index();
            lostBecause = null;
            if (d.handle() == null || !d.handle().ok()) {
                if (d.handle() != null && NvmlReturn.meansGpuLost(d.handle().returnCode())) {
                    String why = describe(d.handle());
                    notes.add(lost(label, why));
                    return Gpu.builder(NvmlProbe.PROBE).vendor(Vendor.NVIDIA)
                            .health(Health.of(List.of(HealthReason.GPU_LOST), null, List.of(why))).build();
                }
                fact(d.handle(), "the handle", label);
                return null;
            }
            Gpu.Builder b = Gpu.builder(NvmlProbe.PROBE).vendor(Vendor.NVIDIA).driverVersion(driver).runtimeVersion(runtime);
            NvmlSnapshot.Pci pci = fact(d.pci(), "the PCI address", label);
            if (pci != null) {
                try {
                    PciAddress address = new PciAddress(Math.toIntExact(pci.domain()), pci.bus(), pci.device(), 0);
                    b.pciAddress(address);
                    label += " (" + address + ")";
                } catch (IllegalArgumentException | ArithmeticException e) {
                    notes.add(Diagnostic.warning(NvmlProbe.PROBE, file, null, label + ": PCI domain " + pci.domain()
                            + ", bus " + pci.bus() + ", device " + pci.device() + " is not a PCI address"));
                }
                ids(b, pci, label);
            }
            b.name(NvidiaValues.value(fact(d.name(), "the name", label)));
            b.uuid(NvidiaValues.identifier(fact(d.uuid(), "the UUID", label)));
            b.serial(NvidiaValues.identifier(fact(d.serial(), "the serial number", label)));
            b.boardPartNumber(NvidiaValues.value(fact(d.boardPartNumber(), "the board part number", label)));
            NvmlSnapshot.Memory memory = fact(d.memory(), "the memory size", label);
            b.memoryMiB(memory == null ? null : mib(memory.total()));
            if (d.memory() != null && d.memory().returnCode() == NvmlReturn.ERROR_NOT_SUPPORTED) {
                // GB10 (DGX Spark) and Jetson: a GPU without memory of its own; the inventory sizes it from the host's.
                b.memoryKind(Gpu.UNIFIED_MEMORY);
            }
            NvmlSnapshot.ComputeCapability cc = fact(d.computeCapability(), "the compute capability", label);
            b.computeCapability(cc == null ? null : cc.major() + "." + cc.minor());
            Long arch = fact(d.architecture(), "the architecture", label);
            b.architecture(arch == null ? null : io.gpudetect.model.NvidiaArchitecture.ofNvml(arch).map(io.gpudetect.model.NvidiaArchitecture::printed).orElse(null));
            fact(d.brand(), "the brand", label);
            Long milliwatts = fact(d.powerLimitMilliwatts(), "the power limit", label);
            Long enforced = fact(d.enforcedPowerLimitMilliwatts(), "the enforced power limit", label);
            // The cap in force is the enforced one (the set limit, lowered by any board or chassis limit), as
            // nvidia-smi's "Current Power Limit" shows it; the set limit where the library has no enforced one.
            b.powerLimitWatts(watts(enforced != null ? enforced : milliwatts));
            NvmlSnapshot.PowerRange range = fact(d.powerLimitConstraints(), "the power limit range", label);
            Long dflt = fact(d.defaultPowerLimitMilliwatts(), "the default power limit", label);
            b.powerLimits(new PowerLimits(range == null ? null : watts(range.minMilliwatts()),
                    range == null ? null : watts(range.maxMilliwatts()), watts(dflt)));
            b.vbiosVersion(NvidiaValues.value(fact(d.vbiosVersion(), "the VBIOS version", label)));
            PcieLink link = new PcieLink(lanesOrGen(fact(d.currentPcieLinkGeneration(), "the PCIe link generation", label)),
                    lanesOrGen(fact(d.maxPcieLinkGeneration(), "the maximum PCIe link generation", label)),
                    lanesOrGen(fact(d.currentPcieLinkWidth(), "the PCIe link width", label)),
                    lanesOrGen(fact(d.maxPcieLinkWidth(), "the maximum PCIe link width", label)));
            b.pcieLink(link);
            b.links(links(d, label));
            NvmlSnapshot.Modes ecc = fact(d.eccMode(), "the ECC mode", label);
            Long uncorrected = ecc != null && ecc.current()
                    ? fact(d.eccUncorrectedAggregate(), "the uncorrected ECC count", label) : null;
            b.partitioning(mig(d, label));
            List<HealthReason> reasons = new ArrayList<>();
            List<String> problems = new ArrayList<>();
            Long sinceLoad = ecc != null && ecc.current()
                    ? fact(d.eccUncorrectedVolatile(), "the uncorrected ECC count since the driver loaded", label) : null;
            if (sinceLoad != null && sinceLoad > 0) {
                reasons.add(HealthReason.UNCORRECTABLE_ECC);
                problems.add(sinceLoad + " uncorrected ECC errors since the driver loaded (volatile)");
            } else if (uncorrected != null && uncorrected > 0) {
                // The lifetime count never goes back to zero: a GPU that had errors once and none since the driver
                // loaded still works, so it is a sign to watch, not a failure.
                reasons.add(HealthReason.PAST_UNCORRECTABLE_ECC);
                problems.add(uncorrected + " uncorrected ECC errors over the GPU's lifetime (aggregate)");
            }
            NvmlSnapshot.RemappedRows rows = fact(d.remappedRows(), "the remapped rows", label);
            if (rows != null && rows.failure()) {
                reasons.add(HealthReason.ROW_REMAP_FAILURE);
                problems.add("a row could not be remapped (" + rows.uncorrected() + " rows remapped for uncorrectable"
                        + " errors, " + rows.corrected() + " for correctable)");
            } else if (rows != null && rows.pending()) {
                reasons.add(HealthReason.ROWS_PENDING_REMAP);
                problems.add("rows remapped, pending a GPU reset (" + rows.uncorrected() + " for uncorrectable errors, "
                        + rows.corrected() + " for correctable)");
            }
            Long pagesPending = fact(d.retiredPagesPending(), "the retired pages pending status", label);
            if (pagesPending != null && pagesPending != 0) {
                reasons.add(HealthReason.PAGES_PENDING_RETIREMENT);
                problems.add("retired pages pending a GPU reset");
            }
            Long clocks = fact(d.clocksEventReasons(), "the clock event reasons", label);
            if (clocks != null && (clocks & NvmlPulse.HARDWARE_SLOWDOWN_BITS) != 0) {
                reasons.add(HealthReason.HARDWARE_SLOWDOWN);
                problems.add("clocks held down by a hardware slowdown (" + slowdowns(clocks) + ")");
            }
            if (Boolean.TRUE.equals(link.degraded())) {
                reasons.add(HealthReason.PCIE_LINK_DEGRADED);
                problems.add("PCIe link on " + link.currentWidth() + " of " + link.maxWidth() + " lanes");
            }
            if (lostBecause != null) {
                notes.add(lost(label, lostBecause));
                reasons.add(0, HealthReason.GPU_LOST);
                problems.add(0, lostBecause);
            }
            return b.health(Health.of(reasons, uncorrected, problems)).build();
        }

        /** The hardware slowdown bits set, by their nvml.h names. */
        private static String slowdowns(long bits) {
            List<String> names = new ArrayList<>();
            if ((bits & 0x8L) != 0) {
                names.add("HwSlowdown");
            }
            if ((bits & 0x40L) != 0) {
                names.add("HwThermalSlowdown");
            }
            if ((bits & 0x80L) != 0) {
                names.add("HwPowerBrakeSlowdown");
            }
            return String.join(", ", names);
        }

        /**
         * The GPU's NVLinks grouped by far end, and its multi-node fabric; null when neither was asked (a snapshot
         * recorded before issue 40) or this library lacks the calls. A first link that answers Not Supported is a GPU
         * without NVLink: an empty list. The list ends at the first link whose state call fails (Invalid Argument:
         * past the GPU's last link), as the snapshot's reader stopped asking there.
         */
        private GpuLinks links(NvmlSnapshot.Device d, String label) {
            GpuLinks.Fabric fabric = fabric(d, label);
            if (d.nvLinks() == null) {
                return fabric == null ? null : new GpuLinks(List.of(), fabric);
            }
            Map<GpuLinks.Link, Integer> groups = new LinkedHashMap<>();
            boolean known = false;
            // The snapshot asks the version of the first active link only: the GPU's one NVLink generation.
            Integer generation = null;
            for (NvmlSnapshot.NvLink l : d.nvLinks()) {
                if (generation == null && l.version() != null) {
                    generation = nvlinkGeneration(fact(l.version(), "the version of NVLink " + l.link(), label));
                }
            }
            for (NvmlSnapshot.NvLink l : d.nvLinks()) {
                NvmlCall<Boolean> active = l.active();
                if (active == null) {
                    continue;
                }
                if (!active.ok()) {
                    int code = active.returnCode();
                    boolean end = code == NvmlReturn.ERROR_NOT_SUPPORTED || code == ERROR_INVALID_ARGUMENT;
                    known |= end;
                    if (!end) {
                        // A lost GPU, a missing symbol, or a failure after some links were read: said, not hidden.
                        fact(active, "the state of NVLink " + l.link(), label);
                    }
                    break;
                }
                known = true;
                GpuLinks.Link link;
                if (!active.value()) {
                    link = new GpuLinks.Link(GpuLinks.Kind.NVLINK, false, null, GpuLinks.Remote.UNKNOWN, null, 1);
                } else {
                    Long type = fact(l.remoteType(), "the far end of NVLink " + l.link(), label);
                    NvmlSnapshot.Pci far = fact(l.remotePci(), "the far end's PCI address of NVLink " + l.link(), label);
                    GpuLinks.Remote remote = type == null ? GpuLinks.Remote.UNKNOWN : type == 0 ? GpuLinks.Remote.GPU
                            : type == 1 ? GpuLinks.Remote.CPU : type == 2 ? GpuLinks.Remote.NVSWITCH : GpuLinks.Remote.UNKNOWN;
                    String address = null;
                    if (remote == GpuLinks.Remote.GPU && far != null) {
                        try {
                            address = new PciAddress(Math.toIntExact(far.domain()), far.bus(), far.device(), 0).toString();
                        } catch (IllegalArgumentException | ArithmeticException e) {
                            notes.add(Diagnostic.warning(NvmlProbe.PROBE, file, null, label + ": NVLink " + l.link()
                                    + " leads to domain " + far.domain() + ", bus " + far.bus() + ", device " + far.device()
                                    + ", which is not a PCI address"));
                        }
                    }
                    link = new GpuLinks.Link(GpuLinks.Kind.NVLINK, true, generation, remote, address, 1);
                }
                groups.merge(link, 1, Integer::sum);
            }
            if (!known) {
                return fabric == null ? null : new GpuLinks(List.of(), fabric);
            }
            List<GpuLinks.Link> links = new ArrayList<>();
            for (Map.Entry<GpuLinks.Link, Integer> e : groups.entrySet()) {
                GpuLinks.Link k = e.getKey();
                links.add(new GpuLinks.Link(k.kind(), k.up(), k.version(), k.remote(), k.remotePciAddress(), e.getValue()));
            }
            return new GpuLinks(links, fabric);
        }

        private GpuLinks.Fabric fabric(NvmlSnapshot.Device d, String label) {
            NvmlSnapshot.Fabric f = fact(d.fabric(), "the NVLink fabric", label);
            if (f == null) {
                return null;
            }
            String uuid = f.clusterUuid() == null || f.clusterUuid().replace("-", "").matches("0*") ? null
                    : f.clusterUuid().toLowerCase(java.util.Locale.ROOT);
            String state = switch (f.state()) {
                case 0 -> "not-supported";
                case 1 -> "not-started";
                case 2 -> "in-progress";
                case 3 -> "completed";
                default -> "unknown";
            };
            return new GpuLinks.Fabric(uuid, uuid == null ? null : f.cliqueId(), state, NvmlReturn.name(f.status()));
        }

        /**
         * NVLink's generation from {@code nvmlNvlinkVersion_t} (1 for 1.0, 2 for 2.0, 3 for 2.2, 4 for 3.0, 5 for
         * 3.1, 6 for 4.0, 7 for 5.0, 8 for 6.0): the generation that tells link speeds apart (V100 2, A100 3, H100 4,
         * B200 5); null for 0 (invalid) or a value nvml.h does not have.
         */
        private static Integer nvlinkGeneration(Long version) {
            if (version == null) {
                return null;
            }
            return switch (version.intValue()) {
                case 1 -> 1;
                case 2, 3 -> 2;
                case 4, 5 -> 3;
                case 6 -> 4;
                case 7 -> 5;
                case 8 -> 6;
                default -> null;
            };
        }

        private void ids(Gpu.Builder b, NvmlSnapshot.Pci pci, String label) {
            try {
                String[] device = NvidiaValues.packedId(pci.pciDeviceId());
                if (device != null) {
                    b.pciDeviceId(device[0]).pciVendorId(device[1]);
                }
                String[] subsystem = NvidiaValues.packedId(pci.pciSubSystemId());
                if (subsystem != null) {
                    b.pciSubsystemDeviceId(subsystem[0]).pciSubsystemVendorId(subsystem[1]);
                }
            } catch (IllegalArgumentException e) {
                notes.add(Diagnostic.warning(NvmlProbe.PROBE, file, null, label + ": " + e.getMessage()));
            }
        }

        private Partitioning mig(NvmlSnapshot.Device d, String label) {
            NvmlSnapshot.Modes mode = fact(d.migMode(), "the MIG mode", label);
            if (mode == null) {
                return null;
            }
            fact(d.maxMigDevices(), "the MIG device count", label);
            List<Partition> instances = new ArrayList<>();
            for (NvmlSnapshot.MigDevice m : d.migDevices()) {
                String slice = label + " MIG device " + m.index();
                if (m.handle() == null || !m.handle().ok()) {
                    fact(m.handle(), "the handle", slice);
                    continue;
                }
                String name = fact(m.name(), "the name", slice);
                Matcher profile = name == null ? null : MIG_PROFILE.matcher(name);
                NvmlSnapshot.Memory memory = fact(m.memory(), "the memory size", slice);
                instances.add(new Partition(profile != null && profile.find() ? profile.group(1) : null,
                        toInt(fact(m.gpuInstanceId(), "the GPU instance id", slice)),
                        toInt(fact(m.computeInstanceId(), "the compute instance id", slice)),
                        memory == null ? null : mib(memory.total()),
                        toInt(fact(m.multiprocessors(), "the multiprocessor count", slice)),
                        NvidiaValues.identifier(fact(m.uuid(), "the UUID", slice))));
            }
            return new Partitioning("mig", mode.current(), mode.pending(), instances);
        }

        /** Milliwatts as watts; null for none, and for 0 or more than 100 kW (a broken or hand-edited replay). */
        private static Double watts(Long milliwatts) {
            return milliwatts == null || milliwatts <= 0 || milliwatts > 100_000_000L ? null : milliwatts / 1000.0;
        }

        /** A PCIe generation (1 to 7) or lane count (1 to 32); anything else (0: no link) is unknown. */
        private static Integer lanesOrGen(Long v) {
            return v == null || v < 1 || v > 32 ? null : v.intValue();
        }

        /** Ids and counts from a replayed file can be anything; one that does not fit is left out. */
        private static Integer toInt(Long v) {
            return v == null || v < 0 || v > Integer.MAX_VALUE ? null : v.intValue();
        }

        /** Bytes to MiB; a negative or implausible total (a hand-edited or broken replay) is left out. */
        private static Long mib(long bytes) {
            long mib = bytes / MIB;
            return MemorySize.isPlausibleMiB(mib) ? mib : null;
        }
    }
}
