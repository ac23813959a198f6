package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpudetect.daemonset.Debian11Root.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host archive that {@code package} built on the oldest system it is for, a Debian 11 root
 * ({@link Debian11Root}), run as a user runs it: {@code --version} through the link on the PATH, a replay,
 * {@code record}, the exit statuses of unusable input as an unprivileged user and on a read-only mount, the glibc
 * check. Runs in the {@code integration-test} phase, after the archive is built; needs root and debootstrap.
 */
class HostArchiveTest {

    /** The H100's nvidia-smi output, recorded by gpu-detect on a lent machine: ours, so it is in the project. */
    private static final Path BUNDLE = Chart.MODULE.resolve("../test-fixtures/live-bundles/h100-sxm5-80gb_580.159.04_vm-raw")
            .normalize();
    private static final String HOME = "/opt/gpu-detect-test";
    private static final int NOBODY = 65534;

    private static Debian11Root debian;
    private static Path root;

    @TempDir
    Path tmp;

    @BeforeAll
    static void debian11Root() throws Exception {
        debian = Debian11Root.prepare("HostArchiveTest");
        root = debian.path();
        debian.unmount("tmp/gpu-detect-test/read-only");
        run(List.of("rm", "-rf", root.resolve("tmp/gpu-detect-test").toString()), 60);
        debian.unpack(HOME);
        Path link = root.resolve("usr/local/bin/gpu-detect");
        Files.deleteIfExists(link);
        Files.createSymbolicLink(link, Path.of(HOME, "bin/gpu-detect"));
    }

    @AfterAll
    static void unmount() throws Exception {
        if (debian != null) {
            debian.unmount("tmp/gpu-detect-test/read-only");
            debian.unmount("proc");
        }
    }

    private static void mount(String target, String... args) throws Exception {
        debian.mount(target, args);
    }

    @Test
    void theRootIsDebian11WithGlibc231AndNoJava() throws Exception {
        assertEquals("glibc 2.31", chroot(0, "getconf", "GNU_LIBC_VERSION").output().strip());
        assertTrue(Files.readString(root.resolve("etc/debian_version")).startsWith("11."));
        assertEquals("", chroot(0, "sh", "-c", "command -v java; ls /usr/lib/jvm 2>/dev/null").output());
    }

    @Test
    void versionRunsThroughTheLinkAndWritesTheStartUpArchive() throws Exception {
        Result version = chroot(0, "gpu-detect", "--version");
        assertEquals(0, version.exit(), version.output());
        assertTrue(version.output().startsWith("gpu-detect " + System.getProperty("gpudetect.version")), version.output());
        assertTrue(version.output().contains("Java 17.0."), version.output());
        // The install step dumps the class-data-sharing archives for later runs: the command's, and the agent's,
        // which the units' unprivileged user could not write itself.
        assertTrue(Files.isRegularFile(root.resolve(HOME.substring(1)).resolve("lib/gpu-detect.jsa")));
        assertTrue(Files.isRegularFile(root.resolve(HOME.substring(1)).resolve("lib/gpu-detect-agent.jsa")));
    }

    @Test
    void aReplayedBundleGivesTheRecordedHostsGpus() throws Exception {
        Path bundle = Files.createDirectories(root.resolve("tmp/gpu-detect-test/h100"));
        for (String file : List.of("nvidia-smi-q.txt", "nvidia-smi-L.txt", "nvidia-smi-query.csv", "nvidia-smi.txt")) {
            Files.copy(BUNDLE.resolve(file), bundle.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        // expected.json names the card by Akash's table, which gpu-detect reads at run time: the shared copy.
        Path table = Debian11Root.sharedAkashTable().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(table != null, "skipped: no shared/data/akash-gpus.json above "
                + Chart.MODULE + " (Akash's table, which expected.json was made with)");
        Files.copy(table, bundle.resolveSibling("akash-gpus.json"), StandardCopyOption.REPLACE_EXISTING);
        Result replay = chroot(NOBODY, "gpu-detect", "--output", "json", "--replay", "/tmp/gpu-detect-test/h100",
                "--akash-table", "/tmp/gpu-detect-test/akash-gpus.json");
        assertEquals(0, replay.exit(), replay.output());
        ObjectMapper json = new ObjectMapper();
        JsonNode expected = json.readTree(BUNDLE.resolve("expected.json").toFile());
        JsonNode actual = json.readTree(replay.out());
        assertEquals(expected.path("gpus"), actual.path("gpus"));
        assertTrue(actual.path("complete").asBoolean(), replay.output());
    }

    @Test
    void recordWritesABundleThatReplays() throws Exception {
        Result record = chroot(0, "gpu-detect", "record", "/tmp/gpu-detect-test/recorded");
        assertEquals(0, record.exit(), record.output());
        assertTrue(Files.isRegularFile(root.resolve("tmp/gpu-detect-test/recorded/bundle.json")));
        Result replay = chroot(0, "gpu-detect", "--replay", "/tmp/gpu-detect-test/recorded");
        assertEquals(0, replay.exit(), replay.output());
    }

    @Test
    void unusableInputIsExitOneWithOneLineSayingWhy() throws Exception {
        Path test = Files.createDirectories(root.resolve("tmp/gpu-detect-test"));
        Path locked = Files.createDirectories(test.resolve("locked"));
        Files.copy(BUNDLE.resolve("nvidia-smi-q.txt"), locked.resolve("nvidia-smi-q.txt"), StandardCopyOption.REPLACE_EXISTING);
        run(List.of("chmod", "700", locked.toString()), 10);
        Files.createDirectories(test.resolve("empty"));
        Files.createDirectories(test.resolve("root-owned"));
        Files.createDirectories(test.resolve("read-only"));
        mount("tmp/gpu-detect-test/read-only", "--bind", test.resolve("read-only").toString());
        mount("tmp/gpu-detect-test/read-only", "-o", "remount,bind,ro");

        assertOneLine(chroot(NOBODY, "gpu-detect", "--replay", "/tmp/gpu-detect-test/locked"),
                "gpu-detect: cannot read bundle folder /tmp/gpu-detect-test/locked: permission denied");
        assertOneLine(chroot(NOBODY, "gpu-detect", "--replay", "/tmp/gpu-detect-test/empty"),
                "gpu-detect: /tmp/gpu-detect-test/empty is empty (expected one of ");
        assertOneLine(chroot(NOBODY, "gpu-detect", "record", "/tmp/gpu-detect-test/root-owned"),
                "gpu-detect record: cannot write /tmp/gpu-detect-test/root-owned");
        assertTrue(chroot(NOBODY, "gpu-detect", "record", "/tmp/gpu-detect-test/root-owned").output()
                .strip().endsWith(": permission denied"));
        assertOneLine(chroot(0, "gpu-detect", "record", "/tmp/gpu-detect-test/read-only/bundle"),
                "gpu-detect record: cannot write /tmp/gpu-detect-test/read-only/bundle: read-only file system");
    }

    /** The launcher compares the host's glibc with the one the runtime needs (runtime/GLIBC) before Java starts. */
    @Test
    void anOlderGlibcIsOneLineSayingWhatIsNeeded() throws Exception {
        Path copy = root.resolve("tmp/gpu-detect-test/needs-newer");
        Files.createDirectories(copy.getParent());
        assertEquals(0, run(List.of("cp", "-a", root.resolve(HOME.substring(1)).toString(), copy.toString()), 60).exit());
        String needed = Files.readString(copy.resolve("runtime/GLIBC")).strip();
        assertTrue(needed.compareTo("2.31") <= 0 && needed.startsWith("2."), "the runtime needs glibc " + needed);
        Files.writeString(copy.resolve("runtime/GLIBC"), "2.99\n");
        Result refused = chroot(0, "/tmp/gpu-detect-test/needs-newer/bin/gpu-detect", "--version");
        assertOneLine(refused, "gpu-detect: needs glibc 2.99 or newer (Debian 11, Ubuntu 20.04, RHEL 8 and later "
                + "have it); this host has glibc 2.31");
    }

    /** The repository's own launcher, linked from a folder on the PATH ({@code ~/bin/gpu-detect}). */
    @Test
    void theRepositoryLauncherRunsThroughASymbolicLink() throws Exception {
        Path link = Files.createDirectories(tmp.resolve("bin")).resolve("gpu-detect");
        Files.createSymbolicLink(link, Chart.MODULE.resolve("../gpu-detect").normalize());
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", "gpu-detect --version").directory(tmp.toFile());
        pb.environment().put("PATH", link.getParent() + ":" + System.getenv("PATH"));
        Result version = run(pb, 60);
        assertEquals(0, version.exit(), version.output());
        assertTrue(version.output().startsWith("gpu-detect "), version.output());
    }

    private static void assertOneLine(Result result, String start) {
        assertEquals(1, result.exit(), result.output());
        assertEquals(1, result.output().strip().lines().count(), result.output());
        assertTrue(result.output().startsWith(start), result.output());
    }

    private static Result chroot(int uid, String... command) throws Exception {
        return debian.chroot(uid, command);
    }

    private static Result run(List<String> command, int seconds) throws Exception {
        return Debian11Root.run(command, seconds);
    }

    private static Result run(ProcessBuilder pb, int seconds) throws Exception {
        return Debian11Root.run(pb, seconds);
    }
}
