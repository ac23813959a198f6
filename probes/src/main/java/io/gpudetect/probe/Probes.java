package io.gpudetect.probe;

import io.gpudetect.nvml.JnaNvmlScope;
import io.gpudetect.probe.amd.AmdSmiJsonParser;
import io.gpudetect.probe.amd.AmdSmiTextParser;
import io.gpudetect.probe.amd.RocmSmiJsonParser;
import io.gpudetect.probe.amd.RocmSmiTableParser;
import io.gpudetect.probe.amd.RocminfoParser;
import io.gpudetect.probe.nvidia.NvidiaSmiCsvParser;
import io.gpudetect.probe.nvidia.NvidiaSmiListParser;
import io.gpudetect.probe.nvidia.NvidiaSmiQueryTextParser;
import io.gpudetect.probe.nvidia.NvidiaSmiTableParser;
import io.gpudetect.probe.nvidia.NvidiaSmiXmlParser;
import io.gpudetect.probe.nvml.NvmlProbe;
import io.gpudetect.probe.opencl.ClinfoParser;
import io.gpudetect.probe.opencl.ClinfoRawParser;
import io.gpudetect.probe.pci.LspciParser;
import io.gpudetect.probe.pci.SysfsPciProbe;
import io.gpudetect.source.ToolCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Every probe, in merge precedence order: native library, then vendor tools (the richest form of each
 * first), then OpenCL, then the PCI bus. The list is explicit so that the order never depends on how
 * classes were loaded; the inventory takes each field from the first probe here that reported it.
 */
public final class Probes {

    public static final ToolCommand NVIDIA_SMI_XML = ToolCommand.of("nvidia-smi.xml", "nvidia-smi", "-q", "-x");
    /** The forms people paste into bug reports; a live host runs the XML form instead, so these exist only in bundles. */
    public static final ToolCommand NVIDIA_SMI_Q_TEXT = ToolCommand.bundleOnly("nvidia-smi-q.txt");
    public static final ToolCommand NVIDIA_SMI_QUERY_CSV = ToolCommand.bundleOnly("nvidia-smi-query.csv");
    public static final ToolCommand NVIDIA_SMI_LIST = ToolCommand.bundleOnly("nvidia-smi-L.txt");
    public static final ToolCommand NVIDIA_SMI_TABLE = ToolCommand.bundleOnly("nvidia-smi.txt");
    public static final ToolCommand AMD_SMI_STATIC = ToolCommand.of("amd-smi.json", "amd-smi", "static", "--json");
    public static final ToolCommand ROCM_SMI_JSON = ToolCommand.of("rocm-smi.json", "rocm-smi", "--showallinfo", "--json");
    public static final ToolCommand ROCMINFO = ToolCommand.of("rocminfo.txt", "rocminfo");
    /** The table people paste; a live host runs the JSON form instead. */
    public static final ToolCommand ROCM_SMI_TABLE = ToolCommand.bundleOnly("rocm-smi.txt");
    public static final ToolCommand CLINFO = ToolCommand.of("clinfo.txt", "clinfo");
    /** {@code clinfo --raw}; a live host runs the long form instead. */
    public static final ToolCommand CLINFO_RAW = ToolCommand.bundleOnly("clinfo-raw.txt");
    /** What people paste; a live host reads the same facts from sysfs. */
    public static final ToolCommand LSPCI = ToolCommand.bundleOnly("lspci.txt");

    private Probes() {
    }

    public static List<Probe> defaults() {
        return defaults(ProbeSettings.defaults());
    }

    public static List<Probe> defaults(ProbeSettings settings) {
        return List.of(
                new NvmlProbe(new JnaNvmlScope(Optional.ofNullable(settings.driverRoot()), settings.nvmlSession()),
                        settings.nvmlTimeout()),
                new ToolProbe(NvidiaSmiXmlParser.PROBE, NVIDIA_SMI_XML, Format.NVIDIA_SMI_XML, ProbeRole.NVIDIA_TOOL),
                // Text forms after the XML, richest first: -q has every field, the CSV most, the table
                // cuts long names, -L has names and UUIDs only.
                new ToolProbe(NvidiaSmiQueryTextParser.PROBE, NVIDIA_SMI_Q_TEXT, Format.NVIDIA_SMI_Q_TEXT, ProbeRole.NVIDIA_TOOL),
                new ToolProbe(NvidiaSmiCsvParser.PROBE, NVIDIA_SMI_QUERY_CSV, Format.NVIDIA_SMI_CSV, ProbeRole.NVIDIA_TOOL),
                new ToolProbe(NvidiaSmiTableParser.PROBE, NVIDIA_SMI_TABLE, Format.NVIDIA_SMI_TABLE, ProbeRole.NVIDIA_TOOL),
                new ToolProbe(NvidiaSmiListParser.PROBE, NVIDIA_SMI_LIST, Format.NVIDIA_SMI_LIST, ProbeRole.NVIDIA_TOOL),
                new ToolProbe(AmdSmiJsonParser.PROBE, AMD_SMI_STATIC, Format.AMD_SMI_JSON, ProbeRole.AMD_TOOL),
                new ToolProbe(AmdSmiTextParser.PROBE, AmdSmiTextParser.COMMAND, AmdSmiTextParser.Format.AMD_SMI_TEXT, ProbeRole.AMD_TOOL),
                new ToolProbe(RocmSmiJsonParser.PROBE, ROCM_SMI_JSON, Format.ROCM_SMI_JSON, ProbeRole.AMD_TOOL),
                new ToolProbe(RocminfoParser.PROBE, ROCMINFO, Format.ROCMINFO, ProbeRole.AMD_TOOL, false),
                new ToolProbe(RocmSmiTableParser.PROBE, ROCM_SMI_TABLE, Format.ROCM_SMI_TABLE, ProbeRole.AMD_TOOL),
                new ToolProbe(ClinfoParser.PROBE, CLINFO, Format.CLINFO, ProbeRole.OPENCL),
                new ToolProbe(ClinfoRawParser.PROBE, CLINFO_RAW, Format.CLINFO_RAW, ProbeRole.OPENCL),
                new SysfsPciProbe(),
                new ToolProbe(LspciParser.PROBE, LSPCI, Format.LSPCI, ProbeRole.BUS));
    }

    /**
     * Each tool output format with its parser. Constants rather than method references ({@code
     * RocminfoParser::parse}): a one-shot {@code gpu-detect} builds this list once, interpreted, and each method
     * reference is a call site to link at every start, and loads its parser's class whether that tool's output
     * is there or not. Measured: docs/performance.md, "Start-up and footprint tricks", row "parsers as enum
     * constants".
     */
    private enum Format implements ToolOutputParser {
        NVIDIA_SMI_XML { @Override public ParsedOutput parse(String text, String file) { return NvidiaSmiXmlParser.parse(text, file); } },
        NVIDIA_SMI_Q_TEXT { @Override public ParsedOutput parse(String text, String file) { return NvidiaSmiQueryTextParser.parse(text, file); } },
        NVIDIA_SMI_CSV {
            @Override public ParsedOutput parse(String text, String file) { return NvidiaSmiCsvParser.parse(text, file); }
            @Override public ParsedOutput parse(String text, String file, List<PastedText.Command> commands) {
                return NvidiaSmiCsvParser.parse(text, file, commands);
            }
        },
        NVIDIA_SMI_TABLE { @Override public ParsedOutput parse(String text, String file) { return NvidiaSmiTableParser.parse(text, file); } },
        NVIDIA_SMI_LIST { @Override public ParsedOutput parse(String text, String file) { return NvidiaSmiListParser.parse(text, file); } },
        AMD_SMI_JSON { @Override public ParsedOutput parse(String text, String file) { return AmdSmiJsonParser.parse(text, file); } },
        ROCM_SMI_JSON { @Override public ParsedOutput parse(String text, String file) { return RocmSmiJsonParser.parse(text, file); } },
        ROCMINFO { @Override public ParsedOutput parse(String text, String file) { return RocminfoParser.parse(text, file); } },
        ROCM_SMI_TABLE { @Override public ParsedOutput parse(String text, String file) { return RocmSmiTableParser.parse(text, file); } },
        CLINFO { @Override public ParsedOutput parse(String text, String file) { return ClinfoParser.parse(text, file); } },
        CLINFO_RAW { @Override public ParsedOutput parse(String text, String file) { return ClinfoRawParser.parse(text, file); } },
        LSPCI { @Override public ParsedOutput parse(String text, String file) { return LspciParser.parse(text, file); } }
    }

    /** The bundle file names the default probes read: what a folder must hold to be a bundle. */
    public static List<String> bundleFiles(List<Probe> probes) {
        List<String> files = new ArrayList<>();
        for (Probe p : probes) {
            if (p instanceof ToolProbe t && t.command().bundleFile() != null) {
                files.add(t.command().bundleFile());
            } else if (p instanceof NvmlProbe) {
                files.add(NvmlProbe.SNAPSHOT.bundleFile());
            }
        }
        return List.copyOf(files);
    }
}
