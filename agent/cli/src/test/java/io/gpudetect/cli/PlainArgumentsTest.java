package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gpudetect.render.OutputFormat;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/** Whatever {@link PlainArguments} reads without picocli, picocli reads to the same values. */
class PlainArgumentsTest {

    private static final Map<String, String> NO_ENV = Map.of();

    private static Optional<PlainArguments> plain(String... args) {
        return PlainArguments.parse(args, NO_ENV);
    }

    @Test
    void theCommonFormsAreReadWithoutPicocli() {
        PlainArguments a = plain("--replay", "bundle", "--output", "json").orElseThrow();
        assertEquals(Path.of("bundle"), a.replay());
        assertEquals(OutputFormat.json, a.format());
        assertEquals(Duration.ofSeconds(5), a.timeout());
        assertEquals(Path.of("/"), a.hostRoot());
        assertEquals(null, a.driverRoot());
        assertFalse(a.verbose());

        a = plain("-o", "yaml", "--timeout=500ms", "--host-root=/host", "--driver-root", "/run/nvidia/driver", "-v")
                .orElseThrow();
        assertEquals(OutputFormat.yaml, a.format());
        assertEquals(Duration.ofMillis(500), a.timeout());
        assertEquals(Path.of("/host"), a.hostRoot());
        assertEquals(Path.of("/run/nvidia/driver"), a.driverRoot());
        assertTrue(a.verbose());

        assertEquals(OutputFormat.table, plain().orElseThrow().format());
    }

    @Test
    void theDriverRootDefaultsToTheEnvironmentAsInPicocli() {
        Map<String, String> env = Map.of("GPU_DETECT_DRIVER_ROOT", "/host/driver-root");
        assertEquals(Path.of("/host/driver-root"), PlainArguments.parse(new String[0], env).orElseThrow().driverRoot());
        assertEquals(Path.of("/x"), PlainArguments.parse(new String[] {"--driver-root", "/x"}, env).orElseThrow().driverRoot());
    }

    @Test
    void everythingElseIsLeftToPicocli() {
        List<String[]> declined = List.of(
                new String[] {"--help"}, new String[] {"-h"}, new String[] {"--version"}, new String[] {"-V"},
                new String[] {"record", "--out", "x"}, new String[] {"agent"}, new String[] {"match", "--gpu", "a100"},
                new String[] {"inventory"}, new String[] {"--replay"}, new String[] {"--replay", "a", "--replay", "b"},
                new String[] {"--output", "JSON"}, new String[] {"--output", "xml"}, new String[] {"-ojson"},
                new String[] {"--timeout", "0s"}, new String[] {"--timeout", "soon"}, new String[] {"--timeout", "-5s"},
                new String[] {"--timeout", "99999999999999999999h"}, new String[] {"--replay="},
                new String[] {"--replay", "--output"}, new String[] {"-v", "-v"}, new String[] {"--verbose=true"},
                new String[] {"--unknown", "x"}, new String[] {"bundle"}, new String[] {"--", "--replay", "x"},
                new String[] {"--replay", "a\0b"});
        for (String[] args : declined) {
            assertEquals(Optional.empty(), plain(args), String.join(" ", args));
        }
    }

    @Test
    void itKnowsEverySubcommandName() {
        assertEquals(GpuDetectCommand.newCommandLine().getSubcommands().keySet(), PlainArguments.SUBCOMMANDS);
    }

    /**
     * Random command lines over the options' names and values, good and bad: each one the plain reader
     * accepts must parse in picocli without an error and give the same values. A reader that declines
     * everything would pass this, so the share accepted is checked too.
     */
    @Test
    void randomCommandLinesReadTheSameAsPicocli() {
        String[] tokens = {"--replay", "--replay=b", "--timeout", "--timeout=2m", "--host-root", "--host-root=/h",
                "--driver-root", "--driver-root=/d", "--akash-table", "--akash-table=/t.json", "none", "-o", "--output", "--output=yaml", "--output=Json", "-v",
                "--verbose", "bundle", "json", "table", "yaml", "YAML", "5s", "1h", "PT3S", "0s", "/", "/host", "-x",
                "--", "record", "agent", "match", "inventory", "--help", "-V", "soon", "a b", "dir=x"};
        Random random = new Random(20261122);
        int accepted = 0;
        for (int round = 0; round < 5000; round++) {
            List<String> args = new ArrayList<>();
            int n = random.nextInt(7);
            for (int i = 0; i < n; i++) {
                args.add(tokens[random.nextInt(tokens.length)]);
            }
            String[] argv = args.toArray(String[]::new);
            Optional<PlainArguments> read = PlainArguments.parse(argv, System.getenv());
            if (read.isPresent()) {
                accepted++;
                assertSameAsPicocli(argv, read.get());
            }
        }
        assertTrue(accepted > 500, "only " + accepted + " of 5000 random command lines were read without picocli");
    }

    private static void assertSameAsPicocli(String[] argv, PlainArguments read) {
        String line = String.join(" ", argv);
        CommandLine cli = GpuDetectCommand.newCommandLine();
        ParseResult parsed;
        try {
            parsed = cli.parseArgs(argv);
        } catch (CommandLine.ParameterException e) {
            fail("read without picocli, but picocli refuses '" + line + "': " + e.getMessage());
            return;
        }
        assertFalse(parsed.hasSubcommand() || parsed.isUsageHelpRequested() || parsed.isVersionHelpRequested(), line);
        GpuDetectCommand command = cli.getCommand();
        assertEquals(command.detection.replay, read.replay(), line);
        assertEquals(command.detection.host.timeout, read.timeout(), line);
        assertEquals(command.detection.host.hostRoot, read.hostRoot(), line);
        assertEquals(command.detection.host.driverRoot, read.driverRoot(), line);
        assertEquals(command.detection.akashTable(), read.detectionOptions().akashTable(), line);
        assertEquals(command.output.format(), read.format(), line);
        assertEquals(command.verbose, read.verbose(), line);
    }
}
