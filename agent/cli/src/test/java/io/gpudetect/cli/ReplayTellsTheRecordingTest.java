package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpudetect.testing.Fixtures;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replay tells what the recording shows and what could not be read of it, as a user runs it (issue 35, items
 * 5 to 7): {@code gpu-detect --replay DIR [-v] [-o json]}, through {@link GpuDetectCommand#run} as {@code main}.
 */
class ReplayTellsTheRecordingTest {

    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    /** The bundle 'gpu-detect record' wrote on a lent H100 VM: its manifest records amd-smi, rocm-smi, rocminfo absent. */
    private static Path recorded() {
        return Fixtures.root().resolve("live-bundles/h100-sxm5-80gb_580.159.04_vm");
    }

    private int run(String... args) {
        return GpuDetectCommand.run(args, new PrintWriter(out), new PrintWriter(err), Map.of());
    }

    private JsonNode json() throws IOException {
        return new ObjectMapper().readTree(out.toString());
    }

    private static List<String> texts(JsonNode array) {
        List<String> all = new ArrayList<>();
        if (array != null) {
            array.forEach(n -> all.add(n.isTextual() ? n.asText() : n.path("message").asText()));
        }
        return all;
    }

    private Path copyOfRecorded() throws IOException {
        Path copy = tmp.resolve("bundle");
        try (Stream<Path> files = Files.walk(recorded())) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path to = copy.resolve(recorded().relativize(f).toString());
                if (Files.isSymbolicLink(f)) {
                    Files.createSymbolicLink(to, Files.readSymbolicLink(f));
                } else if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        return copy;
    }

    private static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    // Item 5: the recorded host, not this machine nor the bundle mechanism.

    @Test
    void aReplaySpeaksOfTheRecordedHostNotOfThisMachine() throws IOException {
        assertEquals(0, run("--replay", recorded().toString(), "--akash-table", "none", "-v"));
        String info = err.toString();
        assertFalse(info.contains("is only read from a recorded bundle"), info);
        assertFalse(info.contains("is not installed or not on PATH"), info);
        assertTrue(info.contains("info amd-smi amd-smi.json: host vm had no amd-smi when it was recorded (not installed "
                + "or not on PATH)\n"), info);
        assertTrue(info.contains("info rocminfo rocminfo.txt: host vm had no rocminfo when it was recorded"), info);

        out.getBuffer().setLength(0);
        assertEquals(0, run("--replay", recorded().toString(), "--akash-table", "none", "-o", "json"));
        List<String> diagnostics = texts(json().get("diagnostics"));
        assertTrue(diagnostics.stream().noneMatch(d -> d.contains("only read from a recorded bundle")
                || d.contains("not installed or not on PATH") && !d.startsWith("host vm had no ")), diagnostics.toString());
        assertEquals(3, diagnostics.stream().filter(d -> d.startsWith("host vm had no ")).count(), diagnostics.toString());
    }

    @Test
    void aBundleWithoutSysIsSaidToHaveNoneNotThatThisMachineLacksSysfs() throws IOException {
        OneH100.bundle(tmp);
        assertEquals(0, run("--replay", tmp.toString(), "--akash-table", "none", "-v"));
        assertTrue(err.toString().contains("info sysfs-pci /sys/bus/pci/devices: the bundle has no sys/bus/pci/devices\n"),
                err.toString());
        assertFalse(err.toString().contains("sysfs not mounted"), err.toString());
    }

    // Item 6: nothing readable is not "no GPUs".

    @Test
    void aBundleNothingOfWhichCanBeReadIsUnusableInputWithEachReason() {
        Path garb = tmp.resolve("garb");
        write(garb.resolve("nvidia-smi.xml"), "garbage <<<\n");
        assertEquals(GpuDetectCommand.EXIT_UNUSABLE_INPUT, run("--replay", garb.toString()));
        assertFalse(out.toString().contains("No GPUs found"), out.toString());
        assertTrue(err.toString().contains("gpu-detect: no source in the bundle answered (nvidia-smi-xml: "
                + "nvidia-smi.xml:1: Content is not allowed in prolog.)"), err.toString());
    }

    @Test
    void aSysThatIsNoFolderIsNamed() throws IOException {
        Path garb = tmp.resolve("garb");
        write(garb.resolve("nvidia-smi.xml"), "garbage <<<\n");
        write(garb.resolve("sys"), "not a folder\n");
        assertEquals(GpuDetectCommand.EXIT_UNUSABLE_INPUT, run("--replay", garb.toString()));
        assertTrue(err.toString().contains("sysfs-pci: sys/bus/pci/devices: cannot list: sys in the bundle is not a folder"),
                err.toString());

        // Beside a readable source: the pass stands, incomplete, and says which folder could not be read.
        Path fine = tmp.resolve("fine");
        OneH100.bundle(fine);
        write(fine.resolve("sys"), "not a folder\n");
        out.getBuffer().setLength(0);
        assertEquals(0, run("--replay", fine.toString(), "--akash-table", "none", "-o", "json"));
        JsonNode doc = json();
        assertFalse(doc.get("complete").asBoolean(), out.toString());
        assertEquals(List.of("sys in the bundle is not a folder (sysfs-pci could not read it)"), texts(doc.get("gaps")));
    }

    @Test
    void aSysFolderThatCannotBeEnteredIsNamed() throws IOException {
        Assumptions.assumeFalse(root(), "skipped as root: a folder of mode 000 is still read (aSysThatIsNoFolderIsNamed "
                + "covers the same path)");
        Path bundle = copyOfRecorded();
        Files.setPosixFilePermissions(bundle.resolve("sys"), PosixFilePermissions.fromString("---------"));
        try {
            assertEquals(0, run("--replay", bundle.toString(), "--akash-table", "none", "-o", "json"));
            assertEquals(List.of("sys in the bundle cannot be read: permission denied (sysfs-pci could not read it)"),
                    texts(json().get("gaps")));
        } finally {
            Files.setPosixFilePermissions(bundle.resolve("sys"), PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    // Item 7: a source that failed to read is a gap.

    @Test
    void aBundleFileThatCannotBeReadMakesThePassIncompleteWhateverTheOthersSaw() throws IOException {
        Path bundle = copyOfRecorded();
        // A folder where nvml.json belongs: unreadable as a file for every user, root included.
        Files.delete(bundle.resolve("nvml.json"));
        Files.createDirectory(bundle.resolve("nvml.json"));
        assertEquals(0, run("--replay", bundle.toString(), "--akash-table", "none", "-o", "json"));
        JsonNode doc = json();
        assertEquals(1, doc.get("gpus").size(), out.toString());
        assertFalse(doc.get("complete").asBoolean(), "nvidia-smi.xml described the H100, but nvml.json was not read");
        assertEquals(List.of("nvml.json in the bundle is a folder, not a file (nvml could not read it)"),
                texts(doc.get("gaps")));

        out.getBuffer().setLength(0);
        assertEquals(0, run("--replay", bundle.toString(), "--akash-table", "none"));
        assertTrue(out.toString().contains("; incomplete: nvml.json in the bundle is a folder, not a file (nvml could not "
                + "read it)\n"), out.toString());
    }

    @Test
    void aBundleFileOfMode000MakesThePassIncomplete() throws IOException {
        Assumptions.assumeFalse(root(), "skipped as root: a file of mode 000 is still read (the folder in place of "
                + "nvml.json covers the same rule)");
        Path bundle = copyOfRecorded();
        Files.setPosixFilePermissions(bundle.resolve("nvml.json"), PosixFilePermissions.fromString("---------"));
        assertEquals(0, run("--replay", bundle.toString(), "--akash-table", "none", "-o", "json"));
        assertEquals(List.of("nvml.json in the bundle cannot be read: permission denied (nvml could not read it)"),
                texts(json().get("gaps")));
    }

    @Test
    void theSameBundleWhole() throws IOException {
        assertEquals(0, run("--replay", copyOfRecorded().toString(), "--akash-table", "none", "-o", "json"));
        assertTrue(json().get("complete").asBoolean(), out.toString());
    }

    private static void write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
