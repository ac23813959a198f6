package io.gpudetect.daemonset;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The release's files ({@code target/release/} at the repository root, written by
 * {@code mvn -Prelease package}: release/build-release.sh), when this build made them: the shipped tests then run
 * those, not the neighbouring build outputs they were made from. A release folder of this version that is older
 * than this build's host archive (a later {@code mvn verify} without -Prelease rebuilt the archive) is stale, and
 * the build's own outputs are tested instead.
 */
final class ReleaseFiles {

    static final Path DIR = Chart.MODULE.resolve("../target/release").normalize();
    static final String VERSION = System.getProperty("gpudetect.version");
    /** What {@code package} builds (profile dist), and the release copies. */
    static final Path BUILT_ARCHIVE = Chart.MODULE.resolve("target/gpu-detect-" + VERSION + "-linux-x86_64.tar.gz");

    private ReleaseFiles() {
    }

    static Path archive(String arch) {
        return DIR.resolve("gpu-detect-" + VERSION + "-linux-" + arch + ".tar.gz");
    }

    static Path image() {
        return DIR.resolve("gpu-detect-" + VERSION + "-image.oci.tar");
    }

    static Path chart() {
        return DIR.resolve("gpu-detect-" + VERSION + ".tgz");
    }

    static Path sbom() {
        return DIR.resolve("gpu-detect-" + VERSION + ".cdx.json");
    }

    /**
     * Whether there is a release of this version that is this build's (SHA256SUMS is written last, so a complete
     * one): written after this build's archive, or holding the same bytes as it (a later build of the same
     * commit, the archive being reproducible).
     */
    static boolean built() {
        Path sums = DIR.resolve("SHA256SUMS");
        try {
            if (!Files.isRegularFile(sums) || !Files.isRegularFile(archive("x86_64"))) {
                return false;
            }
            return !Files.isRegularFile(BUILT_ARCHIVE)
                    || !Files.getLastModifiedTime(sums).toInstant()
                            .isBefore(Files.getLastModifiedTime(BUILT_ARCHIVE).toInstant())
                    || Files.mismatch(archive("x86_64"), BUILT_ARCHIVE) == -1;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The x86_64 host archive the shipped tests run: the release's when there is one, else the build's. */
    static Path hostArchive() {
        return built() ? archive("x86_64") : BUILT_ARCHIVE;
    }
}
