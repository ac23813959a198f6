package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a one-shot replay loads, as the repository's launcher starts it after {@code package} (its class paths and
 * its class-data-sharing archive): checked by class, never by time. Issue 37: an AMD replay went from 905 classes,
 * every one from the archive, to 1,214, because the archive's training had silently lost the rocminfo parser (its
 * case's rocminfo.txt moved to ../shared) and the probes jar was opened for it at every start, and because records
 * used as map keys bootstrapped their equals and hashCode through {@code ObjectMethods}, spinning ~30 method-handle
 * classes no archive keeps. Runs in the {@code integration-test} phase (agent/cli/pom.xml).
 */
class LauncherStartupTest {

    /** The repository's launcher, two folders above this module. */
    private static final Path LAUNCHER = Path.of("../../gpu-detect").toAbsolutePath().normalize();

    @TempDir
    Path tmp;

    /**
     * Eight AMD cards named by rocminfo, Akash's table read as by default (the day's copy in the cache folder): every
     * class comes from the JDK's image or the archive, and no record's generated methods are bootstrapped. Fails
     * with the archive trained only on the RX 6700 XT case (RocminfoParser from the probes jar) and with records as
     * the normaliser's keys.
     */
    @Test
    void anAmdReplayLoadsEveryClassFromTheArchiveAndBootstrapsNoRecordMethods() throws Exception {
        List<String> entries = replay(Fixtures.host("rocminfo_8x-vega20-gfx906_4-numa-epyc-7551p"),
                "{\"1002\": {\"name\": \"amd\", \"devices\": {\"66a1\": {\"name\": \"mi50\", \"memory_size\": \"32Gi\"}}}}",
                "8 x amd mi50");
        List<String> fromJars = new ArrayList<>();
        List<String> recordBootstraps = new ArrayList<>();
        int fromArchive = 0;
        for (String entry : entries) {
            if (entry.contains(" source: file:")) {
                fromJars.add(entry);
            }
            if (entry.startsWith("java.lang.runtime.ObjectMethods ")) {
                recordBootstraps.add(entry);
            }
            if (entry.endsWith(" source: shared objects file")) {
                fromArchive++;
            }
        }
        assertTrue(fromArchive > 0, "no class came from the archive (was it mapped?)");
        assertEquals(List.of(), fromJars, "classes read from the jars at every start: train the archive on a replay"
                + " that loads them (agent/cli/src/build/cds-archive.sh)");
        assertEquals(List.of(), recordBootstraps, "a record's generated equals, hashCode or toString was called: its"
                + " bootstrap spins ~30 method-handle classes at every start; write the method (the naming rules' keys do)");
    }

    /**
     * Our H100 bundle (NVML, sysfs, nvidia-smi's XML): nothing of the AMD GPUs' link fallback is loaded. Its forms
     * and both topology parsers were made at the first detection of every kind (a list of seven method references
     * in a static field) and loaded at every start, NVIDIA's and CSV replays too: 11 classes, ~4 million
     * instructions in the interpreter (docs/performance.md, row "AMD topology forms as enum constants").
     */
    @Test
    void anNvidiaReplayLoadsNothingOfTheAmdTopologyFallback() throws Exception {
        List<String> entries = replay(Fixtures.liveBundles().stream()
                        .filter(b -> b.getFileName().toString().startsWith("h100-sxm5-80gb")).findFirst().orElseThrow(),
                "{\"10de\": {\"name\": \"nvidia\", \"devices\": {\"2330\": {\"name\": \"h100\", \"memory_size\": \"80Gi\"}}}}",
                "1 x nvidia h100");
        List<String> amdTopology = new ArrayList<>();
        for (String entry : entries) {
            String name = entry.substring(0, entry.indexOf(' '));
            if (name.startsWith("io.gpudetect.probe.amd.AmdTopoLinks$") || name.startsWith("io.gpudetect.probe.amd.AmdTopology")
                    || name.startsWith("io.gpudetect.probe.amd.AmdSmiTopologyParser")
                    || name.startsWith("io.gpudetect.probe.amd.RocmSmiTopoParser")) {
                amdTopology.add(name);
            }
        }
        assertEquals(List.of(), amdTopology, "an NVIDIA replay loaded the AMD link fallback's classes: only a node"
                + " with two AMD GPUs without links needs them");
    }

    /**
     * The launcher's replay of {@code bundle} with Akash's table as a day's cached copy (the shared gpus.json, else
     * {@code fallbackTable}), its output checked for {@code expected}: the classes loaded, as NAME source: SOURCE.
     */
    private List<String> replay(Path bundle, String fallbackTable, String expected) throws Exception {
        Assumptions.assumeTrue("integration-test".equals(System.getProperty("gpudetect.phase")),
                "runs after package, which builds the launcher's archive (the integration-test phase)");
        Path archive = LAUNCHER.resolveSibling("agent/cli/target/gpu-detect.jsa");
        assertTrue(Files.isRegularFile(archive), "no class-data-sharing archive " + archive
                + " (see agent/cli/target/gpu-detect-cds.log): every start loads its classes from the jars");
        Path cache = Files.createDirectories(tmp.resolve("cache/gpu-detect"));
        Path table = SharedData.akashTableFile().orElse(null);
        Files.writeString(cache.resolve("akash-gpus.json"), table != null ? Files.readString(table) : fallbackTable);
        Path log = tmp.resolve("classes.log");

        ProcessBuilder pb = new ProcessBuilder(LAUNCHER.toString(), "--replay", bundle.toString())
                .redirectOutput(tmp.resolve("out.txt").toFile()).redirectError(tmp.resolve("err.txt").toFile());
        Map<String, String> env = pb.environment();
        env.remove("GPU_DETECT_AKASH_TABLE");
        env.put("XDG_CACHE_HOME", tmp.resolve("cache").toString());
        env.put("GPU_DETECT_JAVA_OPTS", "-Xlog:class+load=info:file=" + log);
        Process p = pb.start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the replay did not end in 120 s");
        assertEquals(0, p.exitValue(), Files.readString(tmp.resolve("err.txt")));
        assertTrue(Files.readString(tmp.resolve("out.txt")).contains(expected), Files.readString(tmp.resolve("out.txt")));
        List<String> entries = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            entries.add(classAndSource(line));
        }
        return entries;
    }

    /** {@code [0.123s][info][class,load] NAME source: SOURCE} as {@code NAME source: SOURCE}. */
    private static String classAndSource(String line) {
        int at = line.indexOf("[class,load] ");
        return at < 0 ? line : line.substring(at + "[class,load] ".length());
    }
}
