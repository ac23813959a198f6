package io.gpudetect.probe;

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

    private Probes() {
    }

    public static List<Probe> defaults() {
        return List.of(
                new ToolProbe(NvidiaSmiXmlParser.PROBE, NVIDIA_SMI_XML, NvidiaSmiXmlParser::parse));
    }

    /** The bundle file names the default probes read: what a folder must hold to be a bundle. */
    public static List<String> bundleFiles(List<Probe> probes) {
        return probes.stream().filter(ToolProbe.class::isInstance)
                .map(p -> ((ToolProbe) p).command().bundleFile()).toList();
    }
}
