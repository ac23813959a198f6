package io.gpudetect.cli;

import io.gpudetect.tables.AmdGpuIds;
import io.gpudetect.tables.PciIds;
import picocli.CommandLine.IVersionProvider;

/**
 * The version the jar was built as (its manifest), or {@code dev} when run from classes, and which copies of the id
 * tables it carries: amdgpu.ids is taken from Debian at build time, and a build that could not fetch it has none.
 */
public final class VersionProvider implements IVersionProvider {

    public static String version() {
        String v = VersionProvider.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    @Override
    public String[] getVersion() {
        return new String[] {"gpu-detect " + version(), "Java " + System.getProperty("java.version"),
                "pci.ids " + PciIds.shipped().version() + " (shipped; a live host's newer copy wins)",
                "amdgpu.ids: " + AmdGpuIds.shipped().origin() + "; a live host's copy listing more wins",
                "Akash's GPU table: read at run time (--akash-table)"};
    }
}
