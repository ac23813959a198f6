package io.gpudetect.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BundleSourceTest {

    @TempDir
    Path tmp;

    private static final List<String> TOOL_FILES = List.of("nvidia-smi.xml", "lspci.txt");

    @Test
    void aMissingFolderOrAFileIsAOneLineError() throws IOException {
        BundleException e = assertThrows(BundleException.class, () -> BundleSource.open(tmp.resolve("nope")));
        assertEquals(tmp.resolve("nope") + " does not exist (expected a bundle folder written by 'gpu-detect record')",
                e.getMessage());
        Path file = Files.writeString(tmp.resolve("lspci.txt"), "");
        e = assertThrows(BundleException.class, () -> BundleSource.open(file, TOOL_FILES));
        assertTrue(e.getMessage().startsWith(file + " is not a folder"), e.getMessage());
    }

    @Test
    void anEmptyFolderIsNoBundle() {
        BundleException e = assertThrows(BundleException.class, () -> BundleSource.open(tmp, TOOL_FILES));
        assertEquals(tmp + " is empty (expected one of nvidia-smi.xml, lspci.txt, sys/, bundle.json); "
                + "replay the folder 'gpu-detect record' wrote", e.getMessage());
    }

    @Test
    void aFolderOfOtherFilesIsNoBundle() throws IOException {
        Files.writeString(tmp.resolve("notes.txt"), "lspci.txt is in the other folder");
        Files.createDirectories(tmp.resolve("empty"));
        BundleException e = assertThrows(BundleException.class, () -> BundleSource.open(tmp, TOOL_FILES));
        assertTrue(e.getMessage().startsWith(tmp + " holds none of the files a bundle has (expected one of "),
                e.getMessage());
    }

    @Test
    void theParentOfBundleFoldersNamesThem() throws IOException {
        for (String host : List.of("host-b", "host-a", "host-c", "host-d")) {
            Files.writeString(Files.createDirectories(tmp.resolve(host)).resolve("lspci.txt"), "");
        }
        Files.createDirectories(tmp.resolve("host-e/sys"));
        Files.createDirectories(tmp.resolve("not-a-bundle"));
        BundleException e = assertThrows(BundleException.class, () -> BundleSource.open(tmp, TOOL_FILES));
        assertEquals(tmp + " holds no bundle file but 5 bundle folders (host-a, host-b, host-c, ...); "
                + "replay one of them: --replay " + tmp.resolve("host-a"), e.getMessage());
    }

    @Test
    void aFolderWithOneBundleFileOrSysTreeOpens() throws Exception {
        Files.writeString(Files.createDirectories(tmp.resolve("a")).resolve("nvidia-smi.xml"), "garbage");
        Files.createDirectories(tmp.resolve("b/sys"));
        Files.writeString(Files.createDirectories(tmp.resolve("c")).resolve("bundle.json"), "{}");
        for (String name : List.of("a", "b", "c")) {
            assertEquals(tmp.resolve(name), BundleSource.open(tmp.resolve(name), TOOL_FILES).dir());
        }
    }

    /** Root reads every folder whatever its mode: HostArchiveTest checks this as an unprivileged user instead. */
    @Test
    void anUnreadableFolderSaysPermissionDenied() throws IOException {
        Assumptions.assumeFalse("root".equals(System.getProperty("user.name")), "root reads a folder of mode 000");
        Path locked = Files.createDirectories(tmp.resolve("locked"));
        Files.writeString(locked.resolve("lspci.txt"), "");
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("--x------"));
        try {
            BundleException e = assertThrows(BundleException.class, () -> BundleSource.open(locked, TOOL_FILES));
            assertEquals("cannot read bundle folder " + locked + ": permission denied", e.getMessage());
        } finally {
            Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwx------"));
        }
    }

    @Test
    void aBrokenManifestNamesItsFileAndLine() throws IOException {
        Files.writeString(tmp.resolve("bundle.json"), "{\n  \"host\": \"a\",\n  \"commands\": [\n");
        BundleException e = assertThrows(BundleException.class, () -> BundleSource.open(tmp));
        assertEquals(tmp.resolve("bundle.json") + ":3:15: not a valid bundle manifest: 'commands': expected an object, found an array",
                e.getMessage());
    }

    @Test
    void aManifestCutShortNamesWhereItEndsAndTheObjectLeftOpen() throws IOException {
        // Line 4 opens clinfo.txt's entry at column 19; the file ends at the start of line 5.
        Files.writeString(tmp.resolve("bundle.json"),
                "{\n  \"host\": \"a\",\n  \"commands\": {\n    \"clinfo.txt\": {\"status\": \"completed\"\n");
        BundleException e = assertThrows(BundleException.class, () -> BundleSource.open(tmp));
        assertEquals(tmp.resolve("bundle.json") + ":5:1: not a valid bundle manifest: the document ends before the object"
                + " opened at line 4, column 19 is closed", e.getMessage());

        Files.writeString(tmp.resolve("bundle.json"), "{\"host\": \"a\", \"commands\": {\"clinfo.txt\": {\"status\": \"compl");
        e = assertThrows(BundleException.class, () -> BundleSource.open(tmp));
        // Cut inside a string: the innermost open object, clinfo.txt's entry, starts at column 42.
        assertTrue(e.getMessage().startsWith(tmp.resolve("bundle.json") + ":1:"), e.getMessage());
        assertTrue(e.getMessage().endsWith(": not a valid bundle manifest: the document ends before the object opened at line 1,"
                + " column 42 is closed"), e.getMessage());
    }

    @Test
    void aManifestMemberOfTheWrongKindNamesTheMemberTheLineAndWhatWasExpected() throws IOException {
        Files.writeString(tmp.resolve("bundle.json"), """
                {"host": "h",
                 "commands": {
                   "rocminfo.txt": {"command": "rocminfo",
                                    "exitCode": "zero"}}}
                """);
        BundleException e = assertThrows(BundleException.class, () -> BundleSource.open(tmp));
        // Line 4: "exitCode": "zero" with its value at column 33 (20 spaces of indent, 12 characters of name and colon).
        assertEquals(tmp.resolve("bundle.json") + ":4:33: not a valid bundle manifest: 'commands.rocminfo.txt.exitCode': "
                + "expected a whole number, found the string \"zero\"", e.getMessage());

        Files.writeString(tmp.resolve("bundle.json"), "null\n");
        e = assertThrows(BundleException.class, () -> BundleSource.open(tmp));
        assertEquals(tmp.resolve("bundle.json") + ":1:1: not a valid bundle manifest: expected a JSON object, found null",
                e.getMessage());

        Files.writeString(tmp.resolve("bundle.json"), "{\"host\": \"h\"}\n{}\n");
        e = assertThrows(BundleException.class, () -> BundleSource.open(tmp));
        assertTrue(e.getMessage().startsWith(tmp.resolve("bundle.json") + ":2:1: not a valid bundle manifest: expected the end"),
                e.getMessage());
    }

    @Test
    void aManifestKeepsWhatItKnowsAndSkipsWhatANewerWriterAdded() throws Exception {
        Files.writeString(tmp.resolve("bundle.json"), """
                {"host": "h", "recordedAt": "2026-11-26T12:49:35Z", "gpuDetectVersion": "9.9", "future": {"a": [1, {}]},
                 "commands": {"clinfo.txt": {"command": "clinfo", "status": "completed", "exitCode": 0, "stderr": "",
                                             "durationMs": 2523, "truncated": true, "future": [null]}}}
                """);
        BundleManifest m = BundleSource.open(tmp).manifest();
        assertEquals(new BundleManifest("h", "2026-11-26T12:49:35Z", "9.9", java.util.Map.of("clinfo.txt",
                new BundleManifest.Run("clinfo", "completed", 0, "", null, 2523L, true))), m);
    }

    @Test
    void toolOutputComesFromItsBundleFileAndAMissingOneIsAbsent() throws Exception {
        Files.writeString(tmp.resolve("nvidia-smi.xml"), "<nvidia_smi_log/>");
        BundleSource bundle = BundleSource.open(tmp);
        ToolResult xml = bundle.run(ToolCommand.of("nvidia-smi.xml", "nvidia-smi", "-q", "-x"));
        assertEquals("<nvidia_smi_log/>", assertInstanceOf(ToolResult.Completed.class, xml).stdout());
        assertInstanceOf(ToolResult.Absent.class, bundle.run(ToolCommand.of("rocminfo.txt", "rocminfo")));
    }

    @Test
    void theManifestReplaysATimeoutAndAnExitStatus() throws Exception {
        Files.writeString(tmp.resolve("bundle.json"), """
                {"host": "h", "commands": {
                  "rocminfo.txt": {"command": "rocminfo", "status": "timed-out", "durationMs": 5000},
                  "nvidia-smi.xml": {"command": "nvidia-smi -q -x", "status": "completed", "exitCode": 9,
                                     "stderr": "NVIDIA-SMI has failed"}}}
                """);
        Files.writeString(tmp.resolve("nvidia-smi.xml"), "");
        BundleSource bundle = BundleSource.open(tmp);
        assertInstanceOf(ToolResult.TimedOut.class, bundle.run(ToolCommand.of("rocminfo.txt", "rocminfo")));
        ToolResult.Completed smi = assertInstanceOf(ToolResult.Completed.class,
                bundle.run(ToolCommand.of("nvidia-smi.xml", "nvidia-smi")));
        assertEquals(9, smi.exitCode());
        assertEquals("NVIDIA-SMI has failed", smi.stderr());
    }

    @Test
    void aLinkOutOfTheBundleIsRefused() throws Exception {
        Path secret = Files.writeString(tmp.resolve("secret.txt"), "password");
        Path bundleDir = Files.createDirectories(tmp.resolve("bundle"));
        Files.createDirectories(bundleDir.resolve("sys/bus/pci/devices/0000:01:00.0"));
        Files.createSymbolicLink(bundleDir.resolve("sys/bus/pci/devices/0000:01:00.0/vendor"), secret);
        Files.createSymbolicLink(bundleDir.resolve("nvidia-smi.xml"), secret);
        BundleSource bundle = BundleSource.open(bundleDir);

        IOException e = assertThrows(IOException.class,
                () -> bundle.readFile("/sys/bus/pci/devices/0000:01:00.0/vendor"));
        assertTrue(e.getMessage().contains("outside the bundle"), e.getMessage());
        ToolResult.Failed failed = assertInstanceOf(ToolResult.Failed.class,
                bundle.run(ToolCommand.of("nvidia-smi.xml", "nvidia-smi")));
        assertTrue(failed.reason().contains("outside the bundle"), failed.reason());
        assertTrue(bundle.readFile("/../secret.txt").isEmpty(), "dot-dot paths stay inside");
    }

    @Test
    void aSysFolderLinkedOutOfTheBundleIsRefusedForReadsAndListings() throws Exception {
        Path host = Files.createDirectories(tmp.resolve("host-sys/bus/pci/devices/0000:01:00.0"));
        Files.writeString(host.resolve("vendor"), "0x10de\n");
        Path bundleDir = Files.createDirectories(tmp.resolve("bundle"));
        Files.createSymbolicLink(bundleDir.resolve("sys"), tmp.resolve("host-sys"));
        BundleSource bundle = BundleSource.open(bundleDir);

        IOException read = assertThrows(IOException.class, () -> bundle.readFile("/sys/bus/pci/devices/0000:01:00.0/vendor"));
        assertTrue(read.getMessage().contains("outside the bundle"), read.getMessage());
        IOException list = assertThrows(IOException.class, () -> bundle.list("/sys/bus/pci/devices"));
        assertTrue(list.getMessage().contains("outside the bundle"), list.getMessage());
    }

    @Test
    void aListedFolderLinkedOutOfTheBundleIsRefused() throws Exception {
        Files.createDirectories(tmp.resolve("elsewhere/0000:01:00.0"));
        Path bundleDir = Files.createDirectories(tmp.resolve("bundle/sys/bus/pci"));
        Files.createSymbolicLink(bundleDir.resolve("devices"), tmp.resolve("elsewhere"));
        BundleSource bundle = BundleSource.open(tmp.resolve("bundle"));
        assertThrows(IOException.class, () -> bundle.list("/sys/bus/pci/devices"));
    }

    @Test
    void aLinkLoopIsAnErrorNotAHang() throws Exception {
        Path devices = Files.createDirectories(tmp.resolve("sys/bus/pci/devices"));
        Files.createSymbolicLink(devices.resolve("a"), devices.resolve("b"));
        Files.createSymbolicLink(devices.resolve("b"), devices.resolve("a"));
        Files.createSymbolicLink(tmp.resolve("nvidia-smi.xml"), tmp.resolve("nvidia-smi.xml"));
        BundleSource bundle = BundleSource.open(tmp);
        assertTrue(assertTimeoutPreemptively(Duration.ofSeconds(5), () -> bundle.readFile("/sys/bus/pci/devices/a")).isEmpty());
        assertInstanceOf(ToolResult.Failed.class, bundle.run(ToolCommand.of("nvidia-smi.xml", "nvidia-smi")));
    }

    @Test
    void aNamedPipeInTheBundleNeverBlocksTheReplay() throws Exception {
        Assumptions.assumeTrue(mkfifo(tmp.resolve("nvidia-smi.xml")), "mkfifo is not available");
        Files.createDirectories(tmp.resolve("sys/bus/pci/devices/0000:01:00.0"));
        assertTrue(mkfifo(tmp.resolve("sys/bus/pci/devices/0000:01:00.0/vendor")));
        BundleSource bundle = BundleSource.open(tmp);
        ToolResult r = assertTimeoutPreemptively(Duration.ofSeconds(5),
                () -> bundle.run(ToolCommand.of("nvidia-smi.xml", "nvidia-smi")));
        assertTrue(assertInstanceOf(ToolResult.Failed.class, r).reason().contains("not a regular file"), r.toString());
        assertTrue(assertTimeoutPreemptively(Duration.ofSeconds(5),
                () -> bundle.readFile("/sys/bus/pci/devices/0000:01:00.0/vendor")).isEmpty());
    }

    static boolean mkfifo(Path p) throws Exception {
        try {
            return new ProcessBuilder("mkfifo", p.toString()).start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        }
    }
}
