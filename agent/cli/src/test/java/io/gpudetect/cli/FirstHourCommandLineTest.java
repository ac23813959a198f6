package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 35's items 3 and 11 as a user meets them in the first hour, each driven through the command line as typed.
 */
class FirstHourCommandLineTest {

    @TempDir
    Path tmp;

    private Path bundle;
    private StringWriter out;
    private StringWriter err;

    private static final String AKASH_TABLE = """
            {"10de": {"name": "nvidia", "devices": {"2330": {"name": "h100", "interface": "SXM5", "memory_size": "80Gi"}}}}
            """;

    @BeforeEach
    void bundle() throws Exception {
        bundle = Files.createDirectories(tmp.resolve("bundle"));
        OneH100.bundle(bundle);
    }

    private int run(String... args) {
        out = new StringWriter();
        err = new StringWriter();
        return GpuDetectCommand.run(args, new PrintWriter(out), new PrintWriter(err), Map.of());
    }

    // Item 3: help offers only what a command accepts.

    @Test
    void recordNeitherShowsNorTakesReplayWhileTheCommandsThatReplayDo() {
        assertEquals(0, run("record", "--help"));
        assertFalse(out.toString().contains("--replay="), out.toString());
        assertTrue(out.toString().contains("--timeout=DURATION"), out.toString());
        assertEquals(2, run("record", "--replay", bundle.toString(), tmp.resolve("new").toString()));
        assertTrue(err.toString().startsWith("gpu-detect record: Unknown option"), err.toString());
        assertTrue(err.toString().contains("'--replay'"), err.toString());
        assertFalse(err.toString().contains("makes no sense"), err.toString());
        assertFalse(Files.exists(tmp.resolve("new")));
        for (String command : new String[] {"agent", "match", "akash"}) {
            assertEquals(0, run(command, "--help"));
            assertTrue(out.toString().contains("--replay=DIR"), command + ":\n" + out);
        }
        assertEquals(0, run("--help"));
        assertTrue(out.toString().contains("--replay=DIR"), out.toString());
    }

    // Item 11: small things that add up.

    @Test
    void aMistypedCommandGetsPicocliSuggestion() {
        assertEquals(2, run("recrod", "x"));
        assertEquals("gpu-detect: 'recrod' is not a command; did you mean 'record'?\n"
                + "Try 'gpu-detect --help' for more information.\n", err.toString());
        assertEquals(2, run("invetnory"));
        assertTrue(err.toString().startsWith("gpu-detect: 'invetnory' is not a command; did you mean 'inventory'"), err.toString());
        assertEquals(2, run("zzz"));
        assertTrue(err.toString().startsWith("gpu-detect: 'zzz' is not a command (commands: record, agent, match, "
                + "inventory, akash, nfd-dir)"), err.toString());
    }

    /**
     * One rule for zero: where the help says what 0 does (--refresh, --startup-jitter), any zero does it; elsewhere
     * zero is refused, in the same words, on every command and however written.
     */
    @Test
    void zeroTurnsOffWhatTheHelpSaysItTurnsOffAndIsRefusedElsewhere() {
        for (String zero : new String[] {"0", "0s", "PT0S"}) {
            CommandLine cli = GpuDetectCommand.newCommandLine();
            CommandLine.ParseResult parsed = cli.parseArgs("agent", "--node", "n1", "--refresh", zero, "--startup-jitter", zero);
            AgentCommand agent = parsed.subcommand().commandSpec().commandLine().getCommand();
            assertEquals(Duration.ZERO, agent.refresh(new java.util.Properties()), zero);
            assertEquals(Duration.ZERO, agent.startupJitter(new java.util.Properties()), zero);

            assertEquals(2, run("--timeout", zero, "--replay", bundle.toString()));
            assertTrue(err.toString().startsWith("gpu-detect: Invalid value for option '--timeout': '" + zero
                    + "' is no time; give more than 0"), err.toString());
            assertEquals(2, run("agent", "--node", "n1", "--interval", zero));
            assertTrue(err.toString().contains("'" + zero + "' is no time; give more than 0"), err.toString());
            assertEquals(2, run("inventory", "--stale-after", zero, "--records", "x"));
            assertTrue(err.toString().contains("'" + zero + "' is no time; give more than 0"), err.toString());
        }
    }

    @Test
    void plainDetectionsOptionsBeforeACommandAreRefusedNotIgnored() {
        Path target = tmp.resolve("rec");
        assertEquals(2, run("-o", "json", "record", target.toString()));
        assertEquals("gpu-detect: --output before 'record' is an option of plain gpu-detect, not of 'record'\n"
                + "Try 'gpu-detect record --help' for more information.\n", err.toString());
        assertFalse(Files.exists(target), "nothing recorded");
        assertEquals(2, run("-o", "json", "match", "--gpu", "vendor=nvidia", "--replay", bundle.toString()));
        assertTrue(err.toString().startsWith("gpu-detect: --output before 'match' is an option of plain gpu-detect, not "
                + "of 'match'; give it after the command: gpu-detect match --output ..."), err.toString());
        assertEquals("", out.toString());
        // After the command, it is the command's own and honoured.
        assertEquals(0, run("match", "--gpu", "vendor=nvidia", "--replay", bundle.toString(), "-o", "json"));
        assertTrue(out.toString().startsWith("{"), out.toString());
    }

    @Test
    void durationsArePrintedAsTheFlagsTakeThem() throws Exception {
        Path records = Path.of(System.getProperty("gpudetect.fixtures", "../test-fixtures"), "records", "mixed-cluster.yaml");
        assertEquals(1, run("inventory", "--records", records.toString(), "--stale-after", "90m", "-o", "json"));
        assertTrue(out.toString().contains("\"staleAfter\" : \"90m\""), out.toString());
        assertFalse(out.toString().contains("PT"), out.toString());
        assertEquals(1, run("inventory", "--records", records.toString(), "--stale-after", "90m"));
        assertTrue(out.toString().contains("more than 90m)"), out.toString());
    }

    @Test
    void twoInputsAreAskedForAsOnlyOne() throws Exception {
        Path records = Path.of(System.getProperty("gpudetect.fixtures", "../test-fixtures"), "records", "mixed-cluster.yaml");
        assertEquals(2, run("match", "--gpu", "vendor=nvidia", "--records", records.toString(), "--replay", bundle.toString()));
        assertTrue(err.toString().contains("give only one of --records, --cluster and --replay"), err.toString());
        Path table = Files.writeString(tmp.resolve("gpus.json"), AKASH_TABLE);
        assertEquals(2, run("akash", "--records", records.toString(), "--replay", bundle.toString(), "--akash-table", table.toString()));
        assertTrue(err.toString().contains("give only one of --records, --cluster and --replay"), err.toString());
    }

    @Test
    void akashsHeaderNamesTheTableInEnglish() throws Exception {
        Path table = Files.writeString(tmp.resolve("gpus.json"), AKASH_TABLE);
        run("akash", "--replay", bundle.toString(), "--akash-table", table.toString());
        assertTrue(out.toString().startsWith("What Akash's inventory operator sees, from bundle " + bundle
                + ", with Akash's GPU table from " + table + "\n"), out.toString());
    }
}
