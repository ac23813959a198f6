package io.gpudetect.probe.nvidia;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.probe.ParsedOutput;
import io.gpudetect.probe.nvidia.SmiGpuMapping.Fields;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code nvidia-smi -q -x}, schema versions 10 to 13 (the DOCTYPE names {@code nvsmi_device_vNN.dtd}).
 * Fields moved between versions are looked up under each name they have had: power limit under
 * {@code power_readings/power_limit} (v10-v11) and {@code gpu_power_readings/current_power_limit}
 * (v12+); uncorrected ECC as {@code double_bit/total} (v10-v11), {@code sram_uncorrectable} and
 * {@code dram_uncorrectable} (v11-v12) and {@code sram_uncorrectable_parity/_secded} (v13). The fields of a GPU are
 * read as in the text form, by {@link SmiGpuMapping} under the names {@link SmiField} gives each in the XML.
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

        String driver = new Fields<>(root, SmiGpuMapping.Form.XML, file, notes).read(NvidiaReaders.DRIVER_VERSION, "driver_version");
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
        String busId = gpu.child("pci", "pci_bus_id").map(XmlElement::text).orElse(gpu.attribute("id").orElse(null));
        PciAddress address = PciAddress.parse(busId).orElse(null);
        if (address == null && busId != null && !NvidiaValues.isPlaceholder(busId)) {
            notes.add(Diagnostic.warning(PROBE, file, gpu.line(), "'" + busId + "' is not a PCI bus id"));
        }
        return SmiGpuMapping.read(new Fields<>(gpu, SmiGpuMapping.Form.XML, file, notes), driver, cuda)
                .pciAddress(address).build();
    }
}
