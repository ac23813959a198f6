package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import io.gpudetect.probe.Probes;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class GpuDetectCommandTest {

    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    /** As {@code main} runs it: plain detection without picocli where it can, picocli for the rest. */
    private int run(String... args) {
        return GpuDetectCommand.run(args, new PrintWriter(out), new PrintWriter(err), System.getenv());
    }

    @Test
    void aTableWithASummaryLine() throws Exception {
        OneH100.bundle(tmp);
        assertEquals(0, run("--replay", tmp.toString()));
        assertTrue(out.toString().contains("0000:01:00.0  nvidia  h100"), out.toString());
        assertTrue(out.toString().contains("81559 MiB (80Gi)"), out.toString());
        assertTrue(out.toString().contains("1 GPU: 1 x nvidia h100 (from nvidia-smi-xml)"), out.toString());
    }

    @Test
    void withoutAkashsTableTheModelFollowsOurOwnRulesAndOneInfoLineSaysSo() throws Exception {
        OneH100.bundle(tmp);
        assertEquals(0, run("--replay", tmp.toString(), "--akash-table", "none", "-v"));
        assertTrue(out.toString().contains("0000:01:00.0  nvidia  h100"), out.toString());
        assertEquals(1, err.toString().lines().filter(l -> l.contains("no Akash GPU table (--akash-table none): models are "
                + "named by gpu-detect's own rules")).count(), err.toString());
    }

    @Test
    void anAkashTableFileThatCannotBeReadIsOneLine() throws Exception {
        OneH100.bundle(tmp);
        Path missing = tmp.resolve("gpus.json");
        assertEquals(GpuDetectCommand.EXIT_UNUSABLE_INPUT, run("--replay", tmp.toString(), "--akash-table", missing.toString()));
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().startsWith("gpu-detect: cannot read the Akash GPU table " + missing + ": "), err.toString());
        assertEquals("", out.toString());
    }

    @Test
    void jsonHasATopLevelGpusArray() throws Exception {
        OneH100.bundle(tmp);
        assertEquals(0, run("--replay", tmp.toString(), "--output", "JSON"));
        var doc = new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.toString());
        assertEquals("h100", doc.path("gpus").path(0).path("model").asText());
        assertEquals(80, doc.path("gpus").path(0).path("memoryGi").asInt());
        assertTrue(doc.path("complete").asBoolean());
    }

    @Test
    void noGpusIsSuccessAndSaidPlainly() throws Exception {
        Files.createDirectories(tmp.resolve("sys/bus/pci/devices"));
        assertEquals(0, run("--replay", tmp.toString()));
        assertTrue(out.toString().startsWith("No GPUs found on bundle "), out.toString());
        assertEquals("", err.toString());
    }

    /** Plain detection, the agent and match read --replay the same way: each answers 1 with one line. */
    @Test
    void aFolderWithoutBundleFilesIsExitOneWithOneLine() throws Exception {
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        Path parent = Files.createDirectories(tmp.resolve("bundles"));
        OneH100.bundle(parent.resolve("h100-host"));
        for (Path dir : List.of(empty, parent)) {
            for (List<String> command : List.of(List.of("--replay"), List.of("--output", "json", "--replay"),
                    List.of("agent", "--node", "n1", "--once", "--dry-run", "--port", "-1", "--replay"))) {
                err.getBuffer().setLength(0);
                List<String> args = new java.util.ArrayList<>(command);
                args.add(dir.toString());
                assertEquals(1, run(args.toArray(String[]::new)), args + ": " + err);
                assertEquals(1, err.toString().strip().lines().count(), args + ": " + err);
            }
        }
        run("--replay", parent.toString());
        assertTrue(err.toString().contains("replay one of them: --replay " + parent.resolve("h100-host")), err.toString());
        assertEquals("", out.toString());
    }

    /**
     * Any one unusable file is a failed probe; when it is the bundle's only file nothing answered, and that is no
     * verdict (exit 1, the file named), never "no GPUs", whichever file it is.
     */
    @Test
    void aBundleWhoseOnlyFileIsGarbageIsUnusable() throws Exception {
        for (String file : Probes.bundleFiles(Probes.defaults())) {
            Path bundle = Files.createDirectories(tmp.resolve("garbage-" + file));
            Files.writeString(bundle.resolve(file), "Hello,\nthis is a note, not tool output: 42 %\n");
            out.getBuffer().setLength(0);
            err.getBuffer().setLength(0);
            assertEquals(1, run("--output", "json", "--replay", bundle.toString()), file + ": " + err);
            var doc = new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.toString());
            assertFalse(doc.path("complete").asBoolean(true), file + ": " + out);
            assertEquals(0, doc.path("gpus").size(), file);
            assertTrue(doc.path("failure").asText().startsWith("no source in the bundle answered ("), file + ": " + out);
            assertTrue(doc.path("failure").asText().contains(file), file + ": " + out);
        }
    }

    @Test
    void anUnreadableBundleIsExitOneWithOneLine() {
        assertEquals(1, run("--replay", tmp.resolve("missing").toString()));
        assertEquals(1, err.toString().strip().lines().count(), err.toString());
        assertTrue(err.toString().startsWith("gpu-detect: "), err.toString());
    }

    @Test
    void nfdDirPreparesTheFolderOrSaysInOneLineWhyNot() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("features.d"));
        Files.setAttribute(dir, "unix:mode", 0755);
        int gid = (Integer) Files.getAttribute(dir, "unix:gid");
        assertEquals(0, run("nfd-dir", "--group=" + gid, dir.toString()));
        assertEquals("gpu-detect nfd-dir: " + dir + ": group " + gid + ", mode 0775 (was 0755)\n", out.toString());
        assertEquals(1, run("nfd-dir", "--group=" + gid, tmp.resolve("missing").toString()));
        assertEquals("gpu-detect nfd-dir: " + tmp.resolve("missing")
                + ": no such folder (the chart's hostPath volume creates it)\n", err.toString());
        assertEquals(2, run("nfd-dir", dir.toString()), "--group is required");
    }

    @Test
    void aUsageErrorIsExitTwoWithAReasonNotTheWholeHelp() {
        assertEquals(2, run("--output", "xml"));
        assertTrue(err.toString().contains("expected one of [table, json, yaml]"), err.toString());
        assertTrue(err.toString().lines().count() <= 2, err.toString());
        assertEquals(2, run("--timeout", "soon"));
    }

    @Test
    void versionAndHelp() {
        assertEquals(0, run("--version"));
        assertTrue(out.toString().startsWith("gpu-detect "), out.toString());
        assertTrue(out.toString().contains("\npci.ids 20"), out.toString());
        // The build's resource (src/build/build-info.sh): this checkout's commit and the commit's date.
        assertTrue(out.toString().matches("(?s)gpu-detect \\S+\ncommit [0-9a-f]{40}(-dirty)?, built \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ .*"),
                out.toString());
        assertTrue(out.toString().matches("(?s).*\namdgpu\\.ids: (Debian libdrm-common \\S+ \\(shipped\\)|none: .*); .*"), out.toString());
        assertEquals(0, run("--help"));
        assertTrue(out.toString().contains("--replay"));
    }

    /** picocli formats help texts with String.format: a bare % makes it warn on stderr and print the raw text. */
    @Test
    void everyHelpPrintsWithoutPicocliWarnings() {
        PrintStream stderr = System.err;
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
        try {
            for (String command : List.of("record", "agent", "match", "inventory")) {
                assertEquals(0, run(command, "--help"), command);
            }
            assertEquals(0, run("--help"));
        } finally {
            System.setErr(stderr);
        }
        assertEquals("", warnings.toString(StandardCharsets.UTF_8));
        assertTrue(out.toString().contains("plus up to 10% jitter"), out.toString());
    }

    @Test
    void recordWritesABundleThatReplaysAndRefusesAFolderInUse() throws Exception {
        Path hostRoot = Files.createDirectories(tmp.resolve("host"));
        // A host bridge: a PCI bus that can be read and holds no GPU.
        Path bridge = Files.createDirectories(hostRoot.resolve("sys/bus/pci/devices/0000:00:00.0"));
        Files.writeString(bridge.resolve("class"), "0x060000\n");
        Path bundle = tmp.resolve("bundle");
        assertEquals(0, run("record", "--host-root", hostRoot.toString(), bundle.toString()));
        assertTrue(Files.isRegularFile(bundle.resolve("bundle.json")));
        assertTrue(Files.isRegularFile(bundle.resolve("detected.json")));
        assertTrue(out.toString().contains("replay with: gpu-detect --replay " + bundle), out.toString());

        assertEquals(2, run("record", bundle.toString()));
        assertTrue(err.toString().contains("not an empty folder"), err.toString());
        assertEquals(0, run("--replay", bundle.toString()));
        assertFalse(out.toString().isEmpty());
    }

    @Test
    void recordOnAHostWhosePciBusCannotBeReadKeepsTheBundleAndExitsOne() throws Exception {
        Path bundle = tmp.resolve("bundle");
        assertEquals(1, run("record", "--host-root", tmp.resolve("not-mounted").toString(), bundle.toString()));
        assertTrue(Files.isRegularFile(bundle.resolve("detected.json")), "the bundle shows what was seen");
        assertTrue(err.toString().strip().startsWith("gpu-detect record: cannot see the PCI bus ("), err.toString());
    }

    @Test
    void recordIntoAPathItCannotWriteSaysWhy() throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "");
        assertEquals(1, run("record", "--host-root", tmp.toString(), file.resolve("bundle").toString()));
        assertEquals("gpu-detect record: cannot write " + file.resolve("bundle") + ": not a folder",
                err.toString().strip());
    }

    /** Root writes into any folder whatever its mode: HostArchiveTest checks this as an unprivileged user. */
    @Test
    void recordIntoAFolderWithoutWritePermissionSaysPermissionDenied() throws Exception {
        Assumptions.assumeFalse("root".equals(System.getProperty("user.name")), "root writes into a folder of mode 555");
        Path locked = Files.createDirectories(tmp.resolve("locked"));
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("r-xr-xr-x"));
        try {
            assertEquals(1, run("record", "--host-root", tmp.toString(), locked.toString()));
            assertEquals("gpu-detect record: cannot write " + locked + ": permission denied", err.toString().strip());
            assertEquals(1, run("record", "--host-root", tmp.toString(), locked.resolve("sub").toString()));
        } finally {
            Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwx------"));
        }
    }

    /** As the launchers start it on the detection class path, without the Kubernetes client's jars. */
    private int runOnDetectionClassPath(String... args) {
        return GpuDetectCommand.run(args, new PrintWriter(out), new PrintWriter(err), System.getenv(), true);
    }

    /** The launchers run --version on the detection class path: it is answered there, as picocli would answer it. */
    @Test
    void versionAloneIsAnsweredOnTheDetectionClassPathInPicocliWords() {
        StringWriter picocli = new StringWriter();
        GpuDetectCommand.newCommandLine().printVersionHelp(new PrintWriter(picocli, true));
        for (String flag : List.of("--version", "-V")) {
            out.getBuffer().setLength(0);
            assertEquals(0, runOnDetectionClassPath(flag));
            assertEquals(picocli.toString(), out.toString());
        }
        // With anything else beside it, picocli reads the line on every jar, as before.
        assertEquals(GpuDetectCommand.EXIT_NEEDS_EVERY_JAR, runOnDetectionClassPath("--version", "--verbose"));
    }

    @Test
    void onTheDetectionClassPathPlainDetectionRuns() throws Exception {
        OneH100.bundle(tmp);
        assertEquals(0, runOnDetectionClassPath("--replay", tmp.toString(), "-o", "json"));
        assertTrue(out.toString().contains("\"model\" : \"h100\""), out.toString());
    }

    @Test
    void onTheDetectionClassPathArgumentsForPicocliAskForEveryJarAndPrintNothing() throws Exception {
        OneH100.bundle(tmp);
        // An upper-case format and a clustered short option: valid, but only picocli reads them.
        for (List<String> args : List.of(List.of("--help"), List.of("--bogus"), List.of("agent", "--help"),
                List.of("--replay", tmp.toString(), "--output", "JSON"), List.of("--replay", tmp.toString(), "-ojson"))) {
            assertEquals(GpuDetectCommand.EXIT_NEEDS_EVERY_JAR, runOnDetectionClassPath(args.toArray(String[]::new)),
                    args.toString());
        }
        assertEquals("", out.toString());
        assertEquals("", err.toString());
        assertEquals(0, run("--replay", tmp.toString(), "-ojson"), "picocli reads it with every jar");
    }
}
