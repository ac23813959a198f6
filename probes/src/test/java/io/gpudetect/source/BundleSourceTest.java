package io.gpudetect.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BundleSourceTest {

    @TempDir
    Path tmp;

    @Test
    void aMissingFolderIsAOneLineError() {
        BundleException e = assertThrows(BundleException.class, () -> BundleSource.open(tmp.resolve("nope")));
        assertTrue(e.getMessage().contains("is not a folder"), e.getMessage());
    }

    @Test
    void aBrokenManifestNamesItsFileAndLine() throws IOException {
        Files.writeString(tmp.resolve("bundle.json"), "{\n  \"host\": \"a\",\n  \"commands\": [\n");
        BundleException e = assertThrows(BundleException.class, () -> BundleSource.open(tmp));
        assertTrue(e.getMessage().contains("bundle.json:"), e.getMessage());
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
}
