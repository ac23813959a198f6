package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release's Java steps (release/Release.java) run as build-release.sh runs them: the source file given to
 * {@code java}, with Jackson and helm-java on the class path (here the tests' own, which holds both), so that what is
 * checked is the file the release runs, not a compiled copy. The release itself is checked by ReleaseTest once
 * {@code mvn -Prelease} has built one; these are its failures, which a release build seldom shows.
 */
class ReleaseStepsTest {

    private static final Path RELEASE_JAVA = Chart.MODULE.resolve("release/Release.java");

    @TempDir
    Path tmp;

    record Run(int exit, String out, String err) {
    }

    /** {@code java -cp CLASSPATH release/Release.java ARGS...}, as build-release.sh runs it. */
    static Run release(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), RELEASE_JAVA.toString()));
        command.addAll(List.of(args));
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("Release.java " + String.join(" ", args) + ": no exit in 120 s");
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    /**
     * A build whose SBOM step wrote no bom.json (CycloneDX's plugin missing from an offline local repository): one
     * line naming the file and what to do, exit status 1, and no SBOM written; it was Jackson's
     * FileNotFoundException with its stack trace.
     */
    @Test
    void sbomOfAMissingBomIsOneLineAndStatusOne() throws Exception {
        Path bom = tmp.resolve("target/bom.json");
        Path sbom = tmp.resolve("release/gpu-detect-1.2.3.cdx.json");
        Path components = Files.writeString(tmp.resolve("release-components.tsv"), "");

        Run r = release(tmp, "sbom", bom.toString(), sbom.toString(), "1.2.3", "2026-05-01T10:00:00Z",
                components.toString());

        assertEquals("release: " + bom + " is missing: CycloneDX's makeBom (daemonset/pom.xml) wrote no SBOM; run the "
                + "release build without -q to see its warnings (offline, Maven may lack the plugin or what it reads)"
                + System.lineSeparator(), r.err(), "one line on stderr");
        assertEquals(1, r.exit(), r.err());
        assertEquals("", r.out());
        assertFalse(Files.exists(sbom), "no SBOM written");
    }
}
