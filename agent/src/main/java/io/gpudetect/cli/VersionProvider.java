package io.gpudetect.cli;

import picocli.CommandLine.IVersionProvider;

/** The version the jar was built as (its manifest), or {@code dev} when run from classes. */
public final class VersionProvider implements IVersionProvider {

    public static String version() {
        String v = VersionProvider.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    @Override
    public String[] getVersion() {
        return new String[] {"gpu-detect " + version(), "Java " + System.getProperty("java.version")};
    }
}
