package io.gpudetect.probe;

import io.gpudetect.probe.nvidia.NvidiaSmiCsvParser;
import io.gpudetect.probe.nvidia.NvidiaSmiListParser;
import io.gpudetect.probe.nvidia.NvidiaSmiQueryTextParser;
import io.gpudetect.probe.nvidia.NvidiaSmiTableParser;
import io.gpudetect.probe.nvidia.NvidiaSmiXmlParser;
import io.gpudetect.source.ToolCommand;
import java.util.List;

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

    private Probes() {
    }

    public static List<Probe> defaults() {
        return List.of(
                new ToolProbe(NvidiaSmiXmlParser.PROBE, NVIDIA_SMI_XML, NvidiaSmiXmlParser::parse),
                // Text forms after the XML, richest first: -q has every field, the CSV most, the table
                // cuts long names. -L comes last because it prints no PCI address: its cards can only
                // join cards already placed by address (by UUID, or in bus order); placed first, they
                // would stand beside the same cards seen by address, and every GPU would count twice.
                new ToolProbe(NvidiaSmiQueryTextParser.PROBE, NVIDIA_SMI_Q_TEXT, NvidiaSmiQueryTextParser::parse),
                new ToolProbe(NvidiaSmiCsvParser.PROBE, NVIDIA_SMI_QUERY_CSV, NvidiaSmiCsvParser::parse),
                new ToolProbe(NvidiaSmiTableParser.PROBE, NVIDIA_SMI_TABLE, NvidiaSmiTableParser::parse),
                new ToolProbe(NvidiaSmiListParser.PROBE, NVIDIA_SMI_LIST, NvidiaSmiListParser::parse));
    }

    /** The bundle file names the default probes read: what a folder must hold to be a bundle. */
    public static List<String> bundleFiles(List<Probe> probes) {
        return probes.stream().filter(ToolProbe.class::isInstance)
                .map(p -> ((ToolProbe) p).command().bundleFile()).toList();
    }
}
