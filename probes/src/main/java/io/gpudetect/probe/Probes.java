package io.gpudetect.probe;

import io.gpudetect.nvml.JnaNvmlScope;
import io.gpudetect.probe.nvidia.NvidiaSmiXmlParser;
import io.gpudetect.probe.nvml.NvmlProbe;
import io.gpudetect.source.ToolCommand;
import java.util.List;
import java.util.Optional;

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
        return defaults(ProbeSettings.defaults());
    }

    public static List<Probe> defaults(ProbeSettings settings) {
        return List.of(
                new NvmlProbe(new JnaNvmlScope(Optional.ofNullable(settings.driverRoot())), settings.nvmlTimeout()),
                new ToolProbe(NvidiaSmiXmlParser.PROBE, NVIDIA_SMI_XML, NvidiaSmiXmlParser::parse));
    }

    /** The bundle file names the default probes read: what a folder must hold to be a bundle. */
    public static List<String> bundleFiles(List<Probe> probes) {
        return probes.stream().map(p -> p instanceof ToolProbe t ? t.command().bundleFile()
                : p instanceof NvmlProbe ? NvmlProbe.SNAPSHOT.bundleFile() : null)
                .filter(java.util.Objects::nonNull).toList();
    }
}
