package io.gpudetect.probe.nvidia;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.PcieLink;
import io.gpudetect.model.PowerLimits;
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
 * {@code nvidia-smi -q -x}, schema versions 10 to 13 (the DOCTYPE names {@code nvsmi_device_vNN.dtd}).
 * Fields moved between versions are looked up under each name they have had: power limit under
 * {@code power_readings/power_limit} (v10-v11) and {@code gpu_power_readings/current_power_limit}
 * (v12+); uncorrected ECC as {@code double_bit/total} (v10-v11), {@code sram_uncorrectable} and
 * {@code dram_uncorrectable} (v11-v12) and {@code sram_uncorrectable_parity/_secded} (v13).
 */
public final class NvidiaSmiXmlParser {

    public static final String PROBE = "nvidia-smi-xml";
    private static final Pattern SCHEMA = Pattern.compile("nvsmi_device_v(\\d{1,9})\\.dtd");
    private static final int NEWEST_KNOWN_SCHEMA = 13;
    private static final int OLDEST_KNOWN_SCHEMA = 10;

    private NvidiaSmiXmlParser() {
    }

    public static ParsedOutput parse(String text, String file) {
        List<Diagnostic> notes = new ArrayList<>();
        SafeXml.Parsed parsed = SafeXml.parse(text);
        if (parsed.error() != null) {
            notes.add(Diagnostic.error(PROBE, file, parsed.errorLine(), parsed.error()));
        }
        XmlElement root = parsed.root();
        if (root == null) {
            return new ParsedOutput(List.of(), notes);
        }
        if (!root.name().equals("nvidia_smi_log")) {
            notes.add(Diagnostic.error(PROBE, file, root.line(),
                    "root element is <" + root.name() + ">, expected <nvidia_smi_log> (the output of 'nvidia-smi -q -x')"));
            return new ParsedOutput(List.of(), notes);
        }
        checkSchema(parsed.doctype(), file, notes);

        String driver = new Field(root, file, notes).read(NvidiaValues::driverVersion, "driver_version");
        String cuda = root.child("cuda_version").map(e -> NvidiaValues.value(e.text())).orElse(null);
        List<Gpu> gpus = new ArrayList<>();
        for (XmlElement gpu : root.all("gpu")) {
            if (!gpu.closed()) {
                notes.add(Diagnostic.warning(PROBE, file, gpu.line(),
                        "the <gpu> starting here is cut off; it is left out"));
                continue;
            }
            gpus.add(readGpu(gpu, driver, cuda, file, notes));
        }
        root.child("attached_gpus").map(e -> e.text()).ifPresent(attached -> {
            if (attached.matches("\\d{1,9}") && Integer.parseInt(attached) != root.all("gpu").size()) {
                notes.add(Diagnostic.info(PROBE, file, root.child("attached_gpus").get().line(),
                        "attached_gpus says " + attached + " but " + root.all("gpu").size()
                                + " <gpu> elements are present (output filtered with -i?)"));
            }
        });
        return new ParsedOutput(gpus, notes);
    }

    private static void checkSchema(String doctype, String file, List<Diagnostic> notes) {
        if (doctype == null) {
            return;
        }
        Matcher m = SCHEMA.matcher(doctype);
        if (m.find()) {
            int version = Integer.parseInt(m.group(1));
            if (version > NEWEST_KNOWN_SCHEMA || version < OLDEST_KNOWN_SCHEMA) {
                notes.add(Diagnostic.info(PROBE, file, 1, "schema nvsmi_device_v" + version
                        + " is not one this version knows (v" + OLDEST_KNOWN_SCHEMA + " to v" + NEWEST_KNOWN_SCHEMA
                        + "); reading the fields it shares with them"));
            }
        }
    }

    private static Gpu readGpu(XmlElement gpu, String driver, String cuda, String file, List<Diagnostic> notes) {
        Gpu.Builder b = Gpu.builder(PROBE).vendor(Vendor.NVIDIA).driverVersion(driver).runtimeVersion(cuda);
        Field f = new Field(gpu, file, notes);

        String busId = gpu.child("pci", "pci_bus_id").map(XmlElement::text).orElse(gpu.attribute("id").orElse(null));
        PciAddress address = PciAddress.parse(busId).orElse(null);
        if (address == null && busId != null && !NvidiaValues.isPlaceholder(busId)) {
            notes.add(Diagnostic.warning(PROBE, file, gpu.line(), "'" + busId + "' is not a PCI bus id"));
        }
        b.pciAddress(address);
        b.name(f.text("product_name"));
        b.architecture(f.text("product_architecture"));
        b.serial(f.identifier("serial"));
        b.uuid(f.read(NvidiaValues::uuid, "uuid"));
        b.boardPartNumber(f.text("board_part_number"));

        String[] device = f.read(NvidiaValues::packedId, "pci", "pci_device_id");
        if (device != null) {
            b.pciDeviceId(device[0]).pciVendorId(device[1]);
        }
        String[] subsystem = f.read(NvidiaValues::packedId, "pci", "pci_sub_system_id");
        if (subsystem != null) {
            b.pciSubsystemDeviceId(subsystem[0]).pciSubsystemVendorId(subsystem[1]);
        }
        b.memoryMiB(f.read(NvidiaValues::mib, "fb_memory_usage", "total"));
        Double power = f.read(NvidiaValues::watts, "gpu_power_readings", "current_power_limit");
        if (power == null) {
            power = f.read(NvidiaValues::watts, "power_readings", "power_limit");
        }
        b.powerLimitWatts(power);
        b.powerLimits(powerLimits(gpu, f));
        b.vbiosVersion(f.text("vbios_version"));
        b.pcieLink(new PcieLink(f.read(NvidiaValues::pcieLink, "pci", "pci_gpu_link_info", "pcie_gen", "current_link_gen"),
                f.read(NvidiaValues::pcieLink, "pci", "pci_gpu_link_info", "pcie_gen", "max_link_gen"),
                f.read(NvidiaValues::pcieLink, "pci", "pci_gpu_link_info", "link_widths", "current_link_width"),
                f.read(NvidiaValues::pcieLink, "pci", "pci_gpu_link_info", "link_widths", "max_link_width")));
        b.partitioning(mig(gpu, f));
        b.health(health(gpu, f));
        return b.build();
    }

    /**
     * The power cap's range and default: {@code gpu_power_readings} since driver 535 (schema v12), {@code power_readings}
     * before, each with {@code min_power_limit}, {@code max_power_limit} and {@code default_power_limit}.
     */
    private static PowerLimits powerLimits(XmlElement gpu, Field f) {
        String readings = gpu.child("gpu_power_readings").isPresent() ? "gpu_power_readings" : "power_readings";
        return new PowerLimits(f.read(NvidiaValues::watts, readings, "min_power_limit"),
                f.read(NvidiaValues::watts, readings, "max_power_limit"),
                f.read(NvidiaValues::watts, readings, "default_power_limit"));
    }

    private static Partitioning mig(XmlElement gpu, Field f) {
        Boolean current = gpu.child("mig_mode", "current_mig").map(e -> NvidiaValues.enabled(e.text())).orElse(null);
        Boolean pending = gpu.child("mig_mode", "pending_mig").map(e -> NvidiaValues.enabled(e.text())).orElse(null);
        if (current == null && pending == null) {
            return null;
        }
        List<Partition> instances = new ArrayList<>();
        gpu.child("mig_devices").ifPresent(devices -> {
            for (XmlElement d : devices.all("mig_device")) {
                Field mf = new Field(d, f.file, f.notes);
                instances.add(new Partition(null,
                        mf.read(NvidiaValues::smallCount, "gpu_instance_id"),
                        mf.read(NvidiaValues::smallCount, "compute_instance_id"),
                        mf.read(NvidiaValues::mib, "fb_memory_usage", "total"),
                        mf.read(NvidiaValues::smallCount, "device_attributes", "shared", "multiprocessor_count"),
                        mf.read(NvidiaValues::uuid, "uuid")));
            }
        });
        return new Partitioning("mig", current, pending, instances);
    }

    private static Health health(XmlElement gpu, Field f) {
        List<String> problems = new ArrayList<>();
        boolean[] lost = {false};
        gpu.walk(e -> {
            if (e.children().isEmpty() && NvidiaValues.signalsLostGpu(e.text())) {
                if (!lost[0]) {
                    problems.add("<" + e.name() + "> reads '" + e.text() + "'");
                }
                lost[0] = true;
            }
        });
        long uncorrected = 0;
        boolean anyEcc = false;
        Optional<XmlElement> aggregate = gpu.child("ecc_errors", "aggregate");
        if (aggregate.isPresent()) {
            Field af = new Field(aggregate.get(), f.file, f.notes);
            for (String[] path : new String[][] {{"double_bit", "total"}, {"sram_uncorrectable"}, {"dram_uncorrectable"},
                    {"sram_uncorrectable_parity"}, {"sram_uncorrectable_secded"}}) {
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
        String pendingRetirement = gpu.child("retired_pages", "pending_retirement").map(XmlElement::text).orElse("");
        if (pendingRetirement.equalsIgnoreCase("Yes")) {
            problems.add("retired pages pending: the GPU needs a reset");
        }
        String remapPending = gpu.child("remapped_rows", "remapping_pending").map(XmlElement::text).orElse("");
        if (remapPending.equalsIgnoreCase("Yes")) {
            problems.add("row remapping pending: the GPU needs a reset");
        }
        Health.Status status = lost[0] ? Health.Status.LOST : problems.isEmpty() ? Health.Status.OK : Health.Status.DEGRADED;
        return new Health(status, anyEcc ? uncorrected : null, problems);
    }


    /** Reads child values of one element, turning a value that does not parse into a warning with its line. */
    private record Field(XmlElement parent, String file, List<Diagnostic> notes) {

        String text(String... path) {
            return parent.child(path).map(e -> NvidiaValues.value(e.text())).orElse(null);
        }

        String identifier(String... path) {
            return parent.child(path).map(e -> NvidiaValues.identifier(e.text())).orElse(null);
        }

        <T> T read(Function<String, T> reader, String... path) {
            Optional<XmlElement> e = parent.child(path);
            if (e.isEmpty()) {
                return null;
            }
            try {
                return reader.apply(e.get().text());
            } catch (IllegalArgumentException ex) {
                notes.add(Diagnostic.warning(PROBE, file, e.get().line(),
                        "<" + String.join("/", path) + ">: " + ex.getMessage()));
                return null;
            }
        }
    }
}
