package io.gpudetect.probe.nvidia;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.probe.ParsedOutput;
import io.gpudetect.probe.nvidia.SmiGpuMapping.Fields;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code nvidia-smi -q} as text: the same facts as the XML form, in indented {@code Key : Value}
 * sections under one {@code GPU 00000000:01:00.0} title per card. Names that changed between drivers are
 * looked up under each: power limit as {@code GPU Power Readings/Current Power Limit} (R525+) or
 * {@code Power Readings/Power Limit}; uncorrected ECC as {@code Double Bit/Total} (old),
 * {@code SRAM Uncorrectable}/{@code DRAM Uncorrectable} or {@code SRAM Uncorrectable Parity}/{@code SEC-DED}
 * (R580+). Windows drivers from R610 mark {@code Driver Version} deprecated and add {@code KMD Version},
 * which is preferred. The fields of a GPU are read as in the XML form, by {@link SmiGpuMapping} under the names
 * {@link SmiField} gives each in the text.
 */
public final class NvidiaSmiQueryTextParser {

    public static final String PROBE = "nvidia-smi-q";
    private static final Pattern GPU_TITLE = Pattern.compile("(?i)^GPU\\s+([0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7])$");

    private NvidiaSmiQueryTextParser() {
    }

    public static ParsedOutput parse(String text, String file) {
        List<Diagnostic> notes = new ArrayList<>();
        IndentedText.Node root = IndentedText.parse(text);
        boolean hasLogTitle = text.contains("NVSMI LOG");
        Fields<IndentedText.Node> top = new Fields<>(root, SmiGpuMapping.Form.TEXT, file, notes);
        String driver = firstOf(top.read(NvidiaReaders.DRIVER_VERSION, "KMD Version"),
                top.read(NvidiaReaders.DRIVER_VERSION, "Driver Version"));
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
        root.child("Attached GPUs").ifPresent(attached -> {
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
        Fields<IndentedText.Node> f = new Fields<>(gpu, SmiGpuMapping.Form.TEXT, file, notes);
        PciAddress busId = f.read(NvidiaSmiQueryTextParser::address, "PCI", "Bus Id");
        return SmiGpuMapping.read(f, driver, cuda).pciAddress(busId != null ? busId : titleAddress).build();
    }

    private static PciAddress address(String v) {
        if (NvidiaValues.isPlaceholder(v)) {
            return null;
        }
        return PciAddress.parse(v).orElseThrow(() ->
                new IllegalArgumentException("'" + v.strip() + "' is not a PCI bus id (expected 00000000:01:00.0)"));
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
}
