package io.gpudetect.cli;

import io.gpudetect.tables.AmdGpuIds;
import io.gpudetect.tables.PciIds;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * The version, commit and date the jar was built from ({@code build-info.properties}, which
 * {@code src/build/build-info.sh} writes at build time, so that no git runs at start-up), or {@code dev} when
 * run from classes without it, and which copies of the id tables it carries: amdgpu.ids is taken from Debian at
 * build time, and a build that could not fetch it has none.
 */
public final class VersionProvider implements IVersionProvider {

    /** What the build wrote; absent keys (a build without the file) read as unknown. */
    record BuildInfo(String version, String commit, String date) {

        static BuildInfo read() {
            Properties p = new Properties();
            try (InputStream in = VersionProvider.class.getResourceAsStream("build-info.properties")) {
                if (in != null) {
                    p.load(in);
                }
            } catch (IOException e) {
                // Unreadable inside our own jar: report what is known, as for a build without the file.
            }
            String manifest = VersionProvider.class.getPackage().getImplementationVersion();
            return new BuildInfo(p.getProperty("version", manifest == null ? "dev" : manifest),
                    p.getProperty("commit", "unknown"), p.getProperty("date", "unknown"));
        }
    }

    public static String version() {
        return BuildInfo.read().version();
    }

    @Override
    public String[] getVersion() {
        BuildInfo build = BuildInfo.read();
        return new String[] {"gpu-detect " + build.version(),
                "commit " + build.commit() + ", built " + build.date() + " (the commit's date)",
                "Java " + System.getProperty("java.version") + " (" + System.getProperty("os.arch") + ")",
                "pci.ids " + PciIds.shippedVersion() + " (shipped; a live host's newer copy wins)",
                "amdgpu.ids: " + AmdGpuIds.shippedOrigin() + "; a live host's copy listing more wins",
                "Akash's GPU table: read at run time (--akash-table)"};
    }
}
