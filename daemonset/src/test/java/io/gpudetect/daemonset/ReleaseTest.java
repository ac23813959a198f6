package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.marcnuri.helm.Helm;
import io.gpudetect.daemonset.Debian11Root.Result;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release's files as a user gets them ({@code mvn -Prelease verify}: target/release/, {@link ReleaseFiles}):
 * the checksums, the chart, the SBOM, the image index, and the aarch64 archive, which runs here under
 * qemu-aarch64-static where that is installed, and is otherwise checked file by file. Runs in the
 * integration-test phase; skips (one line) when the build made no release.
 */
class ReleaseTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String VERSION = ReleaseFiles.VERSION;
    /** ELF's e_machine for AArch64 and x86-64. */
    private static final int EM_AARCH64 = 183;
    private static final int EM_X86_64 = 62;
    private static final Path H100 = Chart.MODULE
            .resolve("../test-fixtures/live-bundles/h100-sxm5-80gb_580.159.04_vm").normalize();

    @BeforeAll
    static void aReleaseWasBuilt() {
        String why = !"integration-test".equals(System.getProperty("gpudetect.phase"))
                ? "runs in the integration-test phase, after package has built the release"
                : !ReleaseFiles.built() ? "this build made no release (mvn -Prelease verify makes one)" : null;
        if (why != null) {
            System.out.println("ReleaseTest skipped: " + why);
        }
        Assumptions.assumeTrue(why == null, "ReleaseTest skipped: " + why);
    }

    @Test
    void sha256sumsCoversEveryFileAndMatchesIt() throws Exception {
        Map<String, String> sums = new TreeMap<>();
        for (String line : Files.readAllLines(ReleaseFiles.DIR.resolve("SHA256SUMS"))) {
            String[] f = line.split("  ", 2);
            sums.put(f[1], f[0]);
        }
        Set<String> files;
        try (Stream<Path> list = Files.list(ReleaseFiles.DIR)) {
            files = list.map(p -> p.getFileName().toString()).filter(n -> !n.equals("SHA256SUMS"))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        assertEquals(Set.of("gpu-detect-" + VERSION + "-linux-x86_64.tar.gz",
                "gpu-detect-" + VERSION + "-linux-aarch64.tar.gz", "gpu-detect-" + VERSION + "-image.oci.tar",
                "gpu-detect-" + VERSION + ".tgz", "gpu-detect-" + VERSION + ".cdx.json"), files);
        assertEquals(files, sums.keySet());
        for (String file : files) {
            assertEquals(sha256(ReleaseFiles.DIR.resolve(file)), sums.get(file), file);
        }
    }

    @Test
    void theChartCarriesTheReleasesVersionAndImageAndPassesStrictLint(@TempDir Path tmp) throws Exception {
        Path chart = tmp.resolve("gpu-detect");
        Result unpacked = Debian11Root.run(List.of("tar", "-xzf", ReleaseFiles.chart().toString(), "-C", tmp.toString()), 60);
        assertEquals(0, unpacked.exit(), unpacked.output());
        String chartYaml = Files.readString(chart.resolve("Chart.yaml"));
        assertTrue(chartYaml.contains("\nversion: " + VERSION + "\n"), chartYaml);
        assertTrue(chartYaml.contains("\nappVersion: " + VERSION + "\n"), chartYaml);
        assertTrue(Files.isRegularFile(chart.resolve("values.schema.json")));
        assertTrue(Files.isRegularFile(chart.resolve("crds/gpucapacities.gpu-detect.io-v1.yml")), "the CRD is packaged");
        var lint = new Helm(chart).lint().strict().call();
        assertFalse(lint.isFailed(), lint.getMessages().toString());
        String rendered = new Helm(chart).template().withName(Chart.RELEASE).withNamespace(Chart.NAMESPACE)
                .withKubeVersion(Chart.KUBE_VERSION).call();
        assertTrue(rendered.contains("image: ghcr.io/gpu-detect/gpu-detect:" + VERSION + "\n"), "the default image is the release's");
    }

    @Test
    void theSbomListsEveryShippedJarBothRuntimesAndTheImagesDebianPackages() throws Exception {
        JsonNode bom = JSON.readTree(ReleaseFiles.sbom().toFile());
        assertEquals("CycloneDX", bom.path("bomFormat").asText());
        assertEquals(VERSION, bom.path("metadata").path("component").path("version").asText());
        Map<String, JsonNode> byName = new HashMap<>();
        bom.path("components").forEach(c -> byName.put(c.path("name").asText() + "-" + c.path("version").asText()
                + (c.path("purl").asText().contains("arch=") ? "-" + c.path("purl").asText().replaceAll(".*arch=([a-z0-9]+).*", "$1") : ""), c));
        try (Stream<Path> jars = Files.list(Chart.MODULE.resolve("target/dist/gpu-detect/lib"))) {
            for (String jar : jars.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".jar")).toList()) {
                JsonNode c = byName.get(jar.replaceFirst("\\.jar$", ""));
                assertTrue(c != null, jar + " is not in the SBOM");
                if (!jar.startsWith("gpu-detect-")) {
                    assertTrue(c.path("licenses").size() > 0, jar + " has no licence in the SBOM");
                }
            }
        }
        for (String arch : List.of("amd64", "arm64")) {
            assertTrue(byName.keySet().stream().anyMatch(k -> k.startsWith("openjdk-17-jdk-headless-") && k.endsWith("-" + arch)),
                    "no OpenJDK for " + arch + " in " + byName.keySet());
            for (String pkg : List.of("libc6", "libssl3", "libstdc++6", "zlib1g")) {
                assertTrue(byName.keySet().stream().anyMatch(k -> k.startsWith(pkg + "-") && k.endsWith("-" + arch)),
                        "no " + pkg + " for " + arch + " in the SBOM");
            }
        }
    }

    @Test
    void theImageIndexHoldsAnAmd64AndAnArm64Image(@TempDir Path tmp) throws Exception {
        Result unpacked = Debian11Root.run(List.of("tar", "-xf", ReleaseFiles.image().toString(), "-C", tmp.toString()), 120);
        assertEquals(0, unpacked.exit(), unpacked.output());
        JsonNode index = JSON.readTree(tmp.resolve("index.json").toFile());
        Set<String> platforms = new TreeSet<>();
        for (JsonNode m : index.path("manifests")) {
            JsonNode nested = m;
            if (m.path("mediaType").asText().endsWith("image.index.v1+json")) {
                JsonNode list = JSON.readTree(blob(tmp, m.path("digest").asText()).toFile());
                for (JsonNode n : list.path("manifests")) {
                    platforms.add(n.path("platform").path("os").asText() + "/" + n.path("platform").path("architecture").asText());
                    JsonNode manifest = JSON.readTree(blob(tmp, n.path("digest").asText()).toFile());
                    JsonNode config = JSON.readTree(blob(tmp, manifest.path("config").path("digest").asText()).toFile());
                    assertEquals(n.path("platform").path("architecture").asText(), config.path("architecture").asText());
                    assertEquals(DockerfileRecipe.read().user(), config.path("config").path("User").asText());
                    assertEquals(DockerfileRecipe.read().entrypoint(), JSON.convertValue(config.path("config").path("Entrypoint"),
                            List.class));
                }
            } else {
                platforms.add(nested.path("platform").path("os").asText() + "/" + nested.path("platform").path("architecture").asText());
            }
        }
        assertEquals(Set.of("linux/amd64", "linux/arm64"), platforms);
    }

    private static Path blob(Path layout, String digest) {
        return layout.resolve("blobs").resolve(digest.replace(':', '/'));
    }

    /**
     * Without a machine of its own architecture: every native file of the aarch64 archive is an AArch64 ELF, the
     * runtime says it is aarch64's, and everything else is the x86_64 archive's, file for file.
     */
    @Test
    void theAarch64ArchiveIsAarch64sRuntimeAndJnaWithTheSameJarsLauncherAndUnits(@TempDir Path tmp) throws Exception {
        Path arm = unpack(ReleaseFiles.archive("aarch64"), tmp.resolve("arm"));
        Path x86 = unpack(ReleaseFiles.archive("x86_64"), tmp.resolve("x86"));
        Map<String, Integer> armElf = elfMachines(arm);
        assertTrue(armElf.containsKey("runtime/bin/java") && armElf.containsKey("runtime/lib/server/libjvm.so")
                && armElf.containsKey("lib/jna/libjnidispatch.so") && armElf.containsKey("runtime/lib/libzip.so"), armElf.keySet().toString());
        armElf.forEach((file, machine) -> assertEquals(EM_AARCH64, machine, file + " is not an AArch64 ELF"));
        elfMachines(x86).forEach((file, machine) -> assertEquals(EM_X86_64, machine, file + " is not an x86-64 ELF"));
        assertEquals(elfMachines(x86).keySet(), armElf.keySet(), "the same native files");
        String release = Files.readString(arm.resolve("runtime/release"));
        // build-dist.sh has jlink write it (--release-info): Debian's jmods leave it out.
        assertTrue(release.matches("(?s).*\nOS_ARCH=\"?aarch64\"?\n.*"), release);
        assertEquals(Files.readString(x86.resolve("runtime/MODULES")), Files.readString(arm.resolve("runtime/MODULES")));
        // Everything but the runtime and JNA's native part: the same bytes.
        Map<String, String> armFiles = hashes(arm);
        Map<String, String> x86Files = hashes(x86);
        armFiles.keySet().removeIf(f -> f.startsWith("runtime/") || f.startsWith("lib/jna/"));
        x86Files.keySet().removeIf(f -> f.startsWith("runtime/") || f.startsWith("lib/jna/"));
        assertEquals(x86Files, armFiles);
        assertTrue(armFiles.containsKey("lib/gpu-detect-agent.classlist") && armFiles.containsKey("systemd/gpu-detect.service")
                && armFiles.containsKey("licenses/README"), armFiles.keySet().toString());
    }

    /** Where qemu-aarch64-static is installed: the aarch64 archive's launcher and runtime run, and replay the H100. */
    @Test
    void theAarch64ArchiveRunsUnderQemuAndReplaysTheH100(@TempDir Path tmp) throws Exception {
        Path root = Chart.MODULE.resolve("target/qemu-root-aarch64");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/qemu-aarch64-static")) && Files.isDirectory(root),
                "qemu-aarch64-static is not installed (Debian: qemu-user-static): the aarch64 archive is not run here");
        Path arm = unpack(ReleaseFiles.archive("aarch64"), tmp.resolve("arm"));
        // The launcher as shipped; its java the aarch64 one, through qemu (binfmt_misc need not be set up).
        Path java = arm.resolve("runtime/bin/java");
        Files.move(java, arm.resolve("runtime/bin/java.aarch64"));
        Files.writeString(java, "#!/bin/sh\nexec /usr/bin/qemu-aarch64-static -L " + root + " " + arm.resolve("runtime/bin/java.aarch64")
                + " \"$@\"\n");
        java.toFile().setExecutable(true);
        long start = System.nanoTime();
        Result version = Debian11Root.run(List.of(arm.resolve("bin/gpu-detect").toString(), "--version"), 600);
        System.out.printf("ReleaseTest: the aarch64 archive's first --version under qemu took %.1f s%n", (System.nanoTime() - start) / 1e9);
        assertEquals(0, version.exit(), version.output());
        assertTrue(version.out().startsWith("gpu-detect " + VERSION + "\n"), version.output());
        assertTrue(version.out().contains("(aarch64)"), version.output());
        Result replay = Debian11Root.run(List.of(arm.resolve("bin/gpu-detect").toString(), "--replay", H100.toString(),
                "--output", "json", "--akash-table", "none"), 600);
        assertEquals(0, replay.exit(), replay.output());
        JsonNode gpus = JSON.readTree(replay.out()).path("gpus");
        assertEquals(1, gpus.size(), replay.out());
        assertEquals("h100", gpus.get(0).path("model").asText(), replay.out());
    }

    private static Path unpack(Path archive, Path dir) throws Exception {
        Files.createDirectories(dir);
        Result unpacked = Debian11Root.run(List.of("tar", "-xzf", archive.toString(), "--strip-components=1", "-C", dir.toString()), 120);
        assertEquals(0, unpacked.exit(), unpacked.output());
        return dir;
    }

    /** Relative path -> e_machine of every ELF file under {@code dir}. */
    private static Map<String, Integer> elfMachines(Path dir) throws IOException {
        Map<String, Integer> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                byte[] head = new byte[20];
                int n;
                try (InputStream in = Files.newInputStream(p)) {
                    n = in.readNBytes(head, 0, head.length);
                }
                if (n == 20 && head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F') {
                    out.put(dir.relativize(p).toString(), (head[18] & 0xff) | (head[19] & 0xff) << 8);
                }
            }
        }
        return out;
    }

    private static Map<String, String> hashes(Path dir) throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                out.put(dir.relativize(p).toString(), sha256(p));
            }
        }
        return out;
    }

    private static String sha256(Path file) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
