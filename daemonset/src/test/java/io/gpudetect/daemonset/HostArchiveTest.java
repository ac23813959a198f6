package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host archive that {@code package} built ({@code target/gpu-detect-VERSION-linux-x86_64.tar.gz}) on
 * the oldest system it is for: a Debian 11 root (glibc 2.31, no Java) made by {@code debootstrap
 * --variant=minbase bullseye}, entered with {@code chroot}. The root is made once and kept in the system's
 * temporary folder ({@value #ROOT_NAME}); each run unpacks the archive into it afresh. Runs in the
 * {@code integration-test} phase, after the archive is built; needs root (chroot, mount) and debootstrap.
 */
class HostArchiveTest {

    static final String ROOT_NAME = "gpu-detect-debian11-root";
    private static final Path ARCHIVE = Chart.MODULE.resolve("target/gpu-detect-" + System.getProperty("gpudetect.version")
            + "-linux-x86_64.tar.gz");
    /** The H100's nvidia-smi output, recorded by gpu-detect on a lent machine: ours, so it is in the project. */
    private static final Path BUNDLE = Chart.MODULE.resolve("../test-fixtures/live-bundles/h100-sxm5-80gb_580.159.04_vm-raw")
            .normalize();
    private static final String HOME = "/opt/gpu-detect-test";
    private static final int NOBODY = 65534;

    private static Path root;

    @TempDir
    Path tmp;

    @BeforeAll
    static void debian11Root() throws Exception {
        assertTrue(Files.isRegularFile(ARCHIVE), ARCHIVE + " is missing: it is built by `package` (profile dist)");
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "HostArchiveTest needs root (chroot, mount): the archive is not run in a Debian 11 root");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/debootstrap")),
                "debootstrap is not installed (Debian package debootstrap; .ci/run installs it): the archive is "
                        + "not run in a Debian 11 root");
        root = Path.of(System.getProperty("java.io.tmpdir"), ROOT_NAME);
        if (!Files.isExecutable(root.resolve("usr/bin/getconf"))) {
            Path partial = Path.of(root + ".partial");
            run(List.of("rm", "-rf", partial.toString()), 60);
            // About a minute; made under another name and renamed, so a run cut short leaves no half root.
            Result made = run(List.of("/usr/sbin/debootstrap", "--variant=minbase", "bullseye", partial.toString(),
                    "http://deb.debian.org/debian"), 600);
            assertEquals(0, made.exit(), made.output());
            Files.move(partial, root, StandardCopyOption.ATOMIC_MOVE);
        }
        Path home = root.resolve(HOME.substring(1));
        run(List.of("umount", "-l", root.resolve("tmp/gpu-detect-test/read-only").toString()), 30);
        run(List.of("rm", "-rf", home.toString(), root.resolve("tmp/gpu-detect-test").toString()), 60);
        Files.createDirectories(home);
        assertEquals(0, run(List.of("tar", "-xzf", ARCHIVE.toString(), "--strip-components=1", "-C", home.toString()), 120).exit());
        Path link = root.resolve("usr/local/bin/gpu-detect");
        Files.deleteIfExists(link);
        Files.createSymbolicLink(link, Path.of(HOME, "bin/gpu-detect"));
        mount("proc", "-t", "proc", "proc");
        // A host has its /sys, and a live pass refuses to judge a host whose PCI bus it cannot read: the root
        // gets a PCI bus with one host bridge (not the build machine's, which a container may not have).
        Path bridge = Files.createDirectories(root.resolve("sys/bus/pci/devices/0000:00:00.0"));
        Files.writeString(bridge.resolve("class"), "0x060000\n");
    }

    @AfterAll
    static void unmount() throws Exception {
        if (root != null) {
            run(List.of("umount", "-l", root.resolve("tmp/gpu-detect-test/read-only").toString()), 30);
            run(List.of("umount", "-l", root.resolve("proc").toString()), 30);
        }
    }

    private static void mount(String target, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("mount"));
        command.addAll(List.of(args));
        command.add(root.resolve(target).toString());
        Result mounted = run(command, 30);
        assertEquals(0, mounted.exit(), mounted.output());
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
        // The first run that may write lib/ dumps the class-data-sharing archive for later runs.
        assertTrue(Files.isRegularFile(root.resolve(HOME.substring(1)).resolve("lib/gpu-detect.jsa")));
    }

    @Test
    void aReplayedBundleGivesTheRecordedHostsGpus() throws Exception {
        Path bundle = Files.createDirectories(root.resolve("tmp/gpu-detect-test/h100"));
        for (String file : List.of("nvidia-smi-q.txt", "nvidia-smi-L.txt", "nvidia-smi-query.csv", "nvidia-smi.txt")) {
            Files.copy(BUNDLE.resolve(file), bundle.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        Result replay = chroot(NOBODY, "gpu-detect", "--output", "json", "--replay", "/tmp/gpu-detect-test/h100");
        assertEquals(0, replay.exit(), replay.output());
        ObjectMapper json = new ObjectMapper();
        JsonNode expected = json.readTree(BUNDLE.resolve("expected.json").toFile());
        JsonNode actual = json.readTree(replay.output());
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

    /** Runs a command in the Debian 11 root as {@code uid} (0 or nobody), with a plain environment. */
    private static Result chroot(int uid, String... command) throws Exception {
        List<String> line = new ArrayList<>(List.of("chroot", "--userspec=" + uid + ":" + uid, root.toString(),
                "env", "-i", "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME=/tmp", "LANG=C.UTF-8"));
        line.addAll(List.of(command));
        return run(line, 120);
    }

    record Result(int exit, String output) {
    }

    private static Result run(List<String> command, int seconds) throws Exception {
        return run(new ProcessBuilder(command), seconds);
    }

    private static Result run(ProcessBuilder pb, int seconds) throws Exception {
        Path log = Files.createTempFile("host-archive-test", ".log");
        try {
            Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                throw new AssertionError(pb.command() + " did not finish in " + seconds + " s");
            }
            return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
