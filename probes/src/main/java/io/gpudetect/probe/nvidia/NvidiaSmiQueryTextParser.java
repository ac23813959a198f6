package io.gpudetect.probe.nvidia;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PcieLink;
import io.gpudetect.model.PowerLimits;
import io.gpudetect.model.Health;
import io.gpudetect.model.Partition;
import io.gpudetect.model.Partitioning;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.ParsedOutput;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code nvidia-smi -q} as text: the same facts as the XML form, in indented {@code Key : Value}
 * sections under one {@code GPU 00000000:01:00.0} title per card. Names that changed between drivers are
 * looked up under each: power limit as {@code GPU Power Readings/Current Power Limit} (R525+) or
 * {@code Power Readings/Power Limit}; uncorrected ECC as {@code Double Bit/Total} (old),
 * {@code SRAM Uncorrectable}/{@code DRAM Uncorrectable} or {@code SRAM Uncorrectable Parity}/{@code SEC-DED}
 * (R580+). Windows drivers from R610 mark {@code Driver Version} deprecated and add {@code KMD Version},
 * which is preferred.
 */
public final class NvidiaSmiQueryTextParser {

    public static final String PROBE = "nvidia-smi-q";
    private static final Pattern GPU_TITLE = Pattern.compile("(?i)^GPU\\s+([0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7])$");
    /** Windows R610+: {@code 610.62 [Deprecated; will be removed in CUDA 14.0. Use KMD Version instead]}. */
    private static final Pattern DEPRECATION = Pattern.compile("(?i)\\s*\\[deprecated[^\\]]*]\\s*$");
    private static final String[][] UNCORRECTED_ECC = {
            {"Double Bit", "Total"}, {"SRAM Uncorrectable"}, {"DRAM Uncorrectable"},
            {"SRAM Uncorrectable Parity"}, {"SRAM Uncorrectable SEC-DED"}};

    private NvidiaSmiQueryTextParser() {
    }

    public static ParsedOutput parse(String text, String file) {
        List<Diagnostic> notes = new ArrayList<>();
        IndentedText.Node root = IndentedText.parse(text);
        boolean hasLogTitle = text.contains("NVSMI LOG");
        Fields top = new Fields(root, file, notes);
        String driver = firstOf(top.read(NvidiaValues::driverVersion, "KMD Version"),
                top.read(NvidiaValues::driverVersion, "Driver Version"));
        String cuda = firstOf(top.text("CUDA UMD Version"), top.text("CUDA Version"));

        List<Gpu> gpus = new ArrayList<>();
        int titles = 0;
        // 'nvidia-smi -q -l' prints every GPU again at each sample: a section for an address already read is a repeat.
        java.util.Set<PciAddress> seen = new java.util.HashSet<>();
        int repeats = 0;
        for (IndentedText.Node node : root.children()) {
            Optional<Gpu> lost = LostGpuLine.read(node.key() + (node.value() == null ? "" : " : " + node.value()), PROBE);
            if (lost.isPresent()) {
                gpus.add(lost.get().toBuilder(PROBE).driverVersion(driver).runtimeVersion(cuda).build());
                continue;
            }
            Matcher title = GPU_TITLE.matcher(node.key());
            if (node.value() == null && title.matches()) {
                titles++;
                PciAddress address = PciAddress.parse(title.group(1)).orElse(null);
                if (address != null && !seen.add(address)) {
                    repeats++;
                    continue;
                }
                gpus.add(readGpu(node, address, driver, cuda, file, notes));
            }
        }
        if (repeats > 0) {
            notes.add(Diagnostic.info(PROBE, file, null, repeats + " GPU section" + (repeats > 1 ? "s repeat GPUs" : " repeats a GPU")
                    + " already described (several samples in one capture, as 'nvidia-smi -q -l' prints): each GPU is "
                    + "counted once, from its first section"));
        }
        if (titles == 0 && gpus.isEmpty()) {
            if (text.contains("No devices were found")) {
                notes.add(Diagnostic.warning(PROBE, file, lineOf(text, "No devices were found"),
                        "nvidia-smi found no devices"));
            } else {
                notes.add(Diagnostic.error(PROBE, file, 1, hasLogTitle
                        ? "no 'GPU 00000000:01:00.0' section found under the NVSMI LOG title"
                        : "expected the text of 'nvidia-smi -q' (an '==============NVSMI LOG==============' title and "
                        + "one 'GPU 00000000:01:00.0' section per card); first line reads '" + firstLine(text) + "'"));
            }
        }
        lastGpuSection(root).filter(last -> last.child("Processes").isEmpty()).ifPresent(last -> notes.add(
                Diagnostic.warning(PROBE, file, last.line(), "the last GPU section (starting here) has no 'Processes' entry, "
                        + "which nvidia-smi -q prints at the end of every GPU: the output looks cut off, later fields are missing")));
        top.node("Attached GPUs").ifPresent(attached -> {
            String v = attached.value();
            if (v != null && v.matches("\\d{1,9}") && Integer.parseInt(v) != gpus.size()) {
                notes.add(Diagnostic.info(PROBE, file, attached.line(), "Attached GPUs says " + v + " but " + gpus.size()
                        + " GPU sections are present (output filtered with -i, or cut off?)"));
            }
        });
        return new ParsedOutput(gpus, notes);
    }

    private static Optional<IndentedText.Node> lastGpuSection(IndentedText.Node root) {
        IndentedText.Node last = null;
        for (IndentedText.Node node : root.children()) {
            if (node.value() == null && GPU_TITLE.matcher(node.key()).matches()) {
                last = node;
            }
        }
        return Optional.ofNullable(last);
    }

    private static Gpu readGpu(IndentedText.Node gpu, PciAddress titleAddress, String driver, String cuda, String file,
                               List<Diagnostic> notes) {
        Fields f = new Fields(gpu, file, notes);
        Gpu.Builder b = Gpu.builder(PROBE).vendor(Vendor.NVIDIA).driverVersion(driver).runtimeVersion(cuda);
        PciAddress busId = f.read(NvidiaSmiQueryTextParser::address, "PCI", "Bus Id");
        b.pciAddress(busId != null ? busId : titleAddress);
        b.name(f.text("Product Name"));
        b.architecture(f.text("Product Architecture"));
        b.serial(f.identifier("Serial Number"));
        b.uuid(f.read(NvidiaValues::uuid, "GPU UUID"));
        b.boardPartNumber(f.text("Board Part Number"));
        String[] device = f.read(NvidiaValues::packedId, "PCI", "Device Id");
        if (device != null) {
            b.pciDeviceId(device[0]).pciVendorId(device[1]);
        }
        String[] subsystem = f.read(NvidiaValues::packedId, "PCI", "Sub System Id");
        if (subsystem != null) {
            b.pciSubsystemDeviceId(subsystem[0]).pciSubsystemVendorId(subsystem[1]);
        }
        b.memoryMiB(f.read(NvidiaValues::mib, "FB Memory Usage", "Total"));
        Double power = f.read(NvidiaValues::watts, "GPU Power Readings", "Current Power Limit");
        if (power == null) {
            power = f.read(NvidiaValues::watts, "Power Readings", "Power Limit");
        }
        if (power == null) {
            // Driver 610 nests the cap under "GPU Ceiling Power Limit" beside a "GPU Base Power".
            power = f.read(NvidiaValues::watts, "GPU Power Readings", "GPU Ceiling Power Limit", "Current Power Limit");
        }
        b.powerLimitWatts(power);
        String readings = gpu.child("GPU Power Readings").isPresent() ? "GPU Power Readings" : "Power Readings";
        Double dflt = f.read(NvidiaValues::watts, readings, "Default Power Limit");
        b.powerLimits(new PowerLimits(f.read(NvidiaValues::watts, readings, "Min Power Limit"),
                f.read(NvidiaValues::watts, readings, "Max Power Limit"),
                dflt != null ? dflt : f.read(NvidiaValues::watts, readings, "GPU Ceiling Power Limit", "Default Power Limit")));
        b.vbiosVersion(f.text("VBIOS Version"));
        b.pcieLink(new PcieLink(f.read(NvidiaValues::pcieLink, "PCI", "GPU Link Info", "PCIe Generation", "Current"),
                f.read(NvidiaValues::pcieLink, "PCI", "GPU Link Info", "PCIe Generation", "Max"),
                f.read(NvidiaValues::pcieLink, "PCI", "GPU Link Info", "Link Width", "Current"),
                f.read(NvidiaValues::pcieLink, "PCI", "GPU Link Info", "Link Width", "Max")));
        b.partitioning(mig(gpu, f));
        b.health(health(gpu, f));
        return b.build();
    }

    private static PciAddress address(String v) {
        if (NvidiaValues.isPlaceholder(v)) {
            return null;
        }
        return PciAddress.parse(v).orElseThrow(() ->
                new IllegalArgumentException("'" + v.strip() + "' is not a PCI bus id (expected 00000000:01:00.0)"));
    }

    private static Partitioning mig(IndentedText.Node gpu, Fields f) {
        Boolean current = NvidiaValues.enabled(f.text("MIG Mode", "Current"));
        Boolean pending = NvidiaValues.enabled(f.text("MIG Mode", "Pending"));
        if (current == null && pending == null) {
            return null;
        }
        List<Partition> instances = new ArrayList<>();
        gpu.child("MIG Devices").ifPresent(devices -> {
            for (IndentedText.Node d : devices.all("MIG Device")) {
                Fields mf = new Fields(d, f.file, f.notes);
                Integer sms = mf.read(NvidiaValues::smallCount, "Device Attributes", "Shared", "Multiprocessor count");
                instances.add(new Partition(null,
                        mf.read(NvidiaValues::smallCount, "GPU Instance ID"),
                        mf.read(NvidiaValues::smallCount, "Compute Instance ID"),
                        mf.read(NvidiaValues::mib, "FB Memory Usage", "Total"),
                        sms, mf.read(NvidiaValues::uuid, "UUID")));
            }
        });
        return new Partitioning("mig", current, pending, instances);
    }

    private static Health health(IndentedText.Node gpu, Fields f) {
        List<String> problems = new ArrayList<>();
        gpu.walk(n -> {
            if (problems.isEmpty() && n.value() != null && NvidiaValues.signalsLostGpu(n.value())) {
                problems.add("'" + n.key() + "' reads '" + n.value() + "' (line " + n.line() + ")");
            }
        });
        boolean lost = !problems.isEmpty();
        long uncorrected = 0;
        boolean anyEcc = false;
        Optional<IndentedText.Node> aggregate = gpu.child("ECC Errors", "Aggregate");
        if (aggregate.isPresent()) {
            Fields af = new Fields(aggregate.get(), f.file, f.notes);
            for (String[] path : UNCORRECTED_ECC) {
                Long n = af.read(NvidiaValues::count, path);
                if (n != null) {
                    uncorrected += n;
                    anyEcc = true;
                }
            }
        }
        if (uncorrected > 0) {
            problems.add(uncorrected + " uncorrected ECC errors since the driver loaded");
        }
        String retirement = firstOf(f.text("Retired Pages", "Pending Page Blacklist"), f.text("Retired Pages", "Pending"));
        if ("Yes".equalsIgnoreCase(retirement)) {
            problems.add("retired pages pending: the GPU needs a reset");
        }
        if ("Yes".equalsIgnoreCase(f.text("Remapped Rows", "Pending"))) {
            problems.add("row remapping pending: the GPU needs a reset");
        }
        Health.Status status = lost ? Health.Status.LOST : problems.isEmpty() ? Health.Status.OK : Health.Status.DEGRADED;
        return new Health(status, anyEcc ? uncorrected : null, problems);
    }

    private static String firstOf(String a, String b) {
        return a != null ? a : b;
    }


    private static Integer lineOf(String text, String needle) {
        int at = text.indexOf(needle);
        return at < 0 ? null : (int) text.substring(0, at).chars().filter(c -> c == '\n').count() + 1;
    }

    private static String firstLine(String text) {
        String line = text.strip().lines().findFirst().orElse("");
        return line.length() > 80 ? line.substring(0, 80) + "..." : line;
    }

    /** Reads values under one section, turning a value that does not parse into a warning with its line. */
    private record Fields(IndentedText.Node parent, String file, List<Diagnostic> notes) {

        Optional<IndentedText.Node> node(String... path) {
            return parent.child(path);
        }

        String text(String... path) {
            return parent.child(path).map(n -> NvidiaValues.value(undeprecated(n.value()))).orElse(null);
        }

        String identifier(String... path) {
            return parent.child(path).map(n -> NvidiaValues.identifier(n.value())).orElse(null);
        }

        <T> T read(Function<String, T> reader, String... path) {
            Optional<IndentedText.Node> n = parent.child(path);
            if (n.isEmpty() || n.get().value() == null) {
                return null;
            }
            try {
                return reader.apply(undeprecated(n.get().value()));
            } catch (IllegalArgumentException | ArithmeticException ex) {
                notes.add(Diagnostic.warning(PROBE, file, n.get().line(), String.join(" / ", path) + ": " + ex.getMessage()));
                return null;
            }
        }

        private static String undeprecated(String v) {
            return v == null ? null : DEPRECATION.matcher(v).replaceFirst("");
        }
    }
}
