package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The oldest system the host archive is for, to run the archive that {@code package} built
 * ({@code target/gpu-detect-VERSION-linux-x86_64.tar.gz}, or the release's copy when this build made a release:
 * {@link ReleaseFiles}) in: a Debian 11 root (glibc 2.31, no Java) made by
 * {@code debootstrap --variant=minbase bullseye}, entered with {@code chroot}. The root is made once and kept in
 * the system's temporary folder ({@value #NAME}-HASH, one per checkout); each test class unpacks the archive into it afresh. Used in
 * the {@code integration-test} phase, after the archive is built; needs root (chroot, mount) and debootstrap,
 * and skips (one line) without them.
 */
record Debian11Root(Path path) {

    static final String NAME = "gpu-detect-debian11-root";
    static final String VERSION = System.getProperty("gpudetect.version");
    static final Path ARCHIVE = ReleaseFiles.hostArchive();
    static final String PATH = "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";

    /** What a run printed, each stream apart: stderr must be checked for stack traces on its own. */
    record Result(int exit, String out, String err) {
        /** Both streams, stdout first. */
        String output() {
            return out + err;
        }
    }

    /**
     * The root, made when missing (about a minute), with {@code /proc} mounted and a PCI bus with one host
     * bridge in {@code /sys}: a host has its /sys, and a live pass refuses to judge a host whose PCI bus it
     * cannot read (the build machine's, which a container may not have, is not used).
     */
    static Debian11Root prepare(String testClass) throws Exception {
        assertTrue(Files.isRegularFile(ARCHIVE), ARCHIVE + " is missing: it is built by `package` (profile dist)");
        System.out.println(testClass + ": runs " + ARCHIVE);
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                testClass + " needs root (chroot, mount): the archive is not run in a Debian 11 root");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/debootstrap")),
                "debootstrap is not installed (Debian package debootstrap; .ci/run installs it): " + testClass
                        + " does not run the archive in a Debian 11 root");
        // One root per checkout: builds of two checkouts at once on one machine would otherwise unpack into,
        // mount and unmount the same root under each other.
        Path root = Path.of(System.getProperty("java.io.tmpdir"), NAME + "-"
                + Integer.toHexString(Chart.MODULE.toString().hashCode()));
        if (!Files.isExecutable(root.resolve("usr/bin/getconf"))) {
            Path partial = Path.of(root + ".partial");
            run(List.of("rm", "-rf", partial.toString()), 60);
            // Made under another name and renamed, so a run cut short leaves no half root.
            Result made = run(List.of("/usr/sbin/debootstrap", "--variant=minbase", "bullseye", partial.toString(),
                    "http://deb.debian.org/debian"), 600);
            assertEquals(0, made.exit(), made.output());
            Files.move(partial, root, StandardCopyOption.ATOMIC_MOVE);
        }
        Debian11Root debian = new Debian11Root(root);
        if (!Files.exists(root.resolve("proc/self"))) {
            debian.mount("proc", "-t", "proc", "proc");
        }
        Path bridge = Files.createDirectories(root.resolve("sys/bus/pci/devices/0000:00:00.0"));
        Files.writeString(bridge.resolve("class"), "0x060000\n");
        return debian;
    }

    /** {@code inRoot} ("/opt/x" or "opt/x") as a path on the build machine. */
    Path resolve(String inRoot) {
        return path.resolve(inRoot.startsWith("/") ? inRoot.substring(1) : inRoot);
    }

    /** Unpacks the archive into {@code home} (a path in the root), replacing what was there. */
    void unpack(String home) throws Exception {
        Path dir = resolve(home);
        run(List.of("rm", "-rf", dir.toString()), 60);
        Files.createDirectories(dir);
        Result unpacked = run(List.of("tar", "-xzf", ARCHIVE.toString(), "--strip-components=1", "-C", dir.toString()), 120);
        assertEquals(0, unpacked.exit(), unpacked.output());
    }

    void mount(String target, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("mount"));
        command.addAll(List.of(args));
        command.add(resolve(target).toString());
        Result mounted = run(command, 30);
        assertEquals(0, mounted.exit(), mounted.output());
    }

    void unmount(String target) throws Exception {
        run(List.of("umount", "-l", resolve(target).toString()), 30);
    }

    /** Runs a command in the root as {@code uid}, with a plain environment. */
    Result chroot(int uid, String... command) throws Exception {
        return run(new ProcessBuilder(line(uid, uid, Map.of(), List.of(command))), 120);
    }

    /**
     * The command line that runs {@code command} in the root as {@code uid:gid} with a plain environment
     * ({@link #PATH}, {@code HOME=/tmp}, {@code LANG=C.UTF-8}) and {@code env} added.
     */
    List<String> line(int uid, int gid, Map<String, String> env, List<String> command) {
        List<String> line = new ArrayList<>(List.of("chroot", "--userspec=" + uid + ":" + gid, path.toString(),
                "env", "-i", PATH, "HOME=/tmp", "LANG=C.UTF-8"));
        env.forEach((k, v) -> line.add(k + "=" + v));
        line.addAll(command);
        return line;
    }

    /**
     * Akash's GPU table as the workspace's shared set holds it ({@code shared/data/akash-gpus.json} in a folder
     * above the module): gpu-detect reads it at run time from provider-configs, which these machines cannot
     * reach, so the tests give it as a provider without a network does ({@code --akash-table FILE}).
     */
    static java.util.Optional<Path> sharedAkashTable() {
        for (Path dir = Chart.MODULE; dir != null; dir = dir.getParent()) {
            Path table = dir.resolve("shared/data/akash-gpus.json");
            if (Files.isRegularFile(table)) {
                return java.util.Optional.of(table);
            }
        }
        return java.util.Optional.empty();
    }

    static Result run(List<String> command, int seconds) throws Exception {
        return run(new ProcessBuilder(command), seconds);
    }

    static Result run(ProcessBuilder pb, int seconds) throws Exception {
        Path out = Files.createTempFile("debian11-root", ".out");
        Path err = Files.createTempFile("debian11-root", ".err");
        try {
            Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                throw new AssertionError(pb.command() + " did not finish in " + seconds + " s: " + read(err));
            }
            return new Result(p.exitValue(), read(out), read(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }
}
