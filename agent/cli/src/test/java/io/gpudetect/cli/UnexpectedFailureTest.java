package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.gpudetect.testing.CommandRun;
import io.gpudetect.testing.Fixtures;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A failure nothing expected, an Error included, is one line that names it and exit status 2, never a stack
 * trace and status 0: what an installation missing a jar does (its agent died at the informer's first list
 * with the JVM's stack trace and exited 0, and pods would not even crash-loop). The failure is the one the
 * archive with 16 fabric8 model jars left out gave, thrown where the client asks for its token at its first
 * request, or where a cluster command reads its settings.
 */
class UnexpectedFailureTest {

    private static final String MISSING = "io/fabric8/kubernetes/api/model/autoscaling/v1/Scale";

    /** Settings whose first request fails as a client missing a model class does (nothing listens on port 1). */
    private static Config failingAtTheFirstRequest() {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("https://127.0.0.1:1").build();
        config.setOauthTokenProvider(() -> {
            throw new NoClassDefFoundError(MISSING);
        });
        return config;
    }

    /** The H100 host gpu-detect recorded itself: ours, in the project, so this runs without the shared set. */
    private static final String BUNDLE = Fixtures.root().resolve("live-bundles/h100-sxm5-80gb_580.159.04_vm-raw").toString();

    @Test
    void theLongRunningAgentEndsWithStatusTwoAndOneLineWhenItsLoopDies() {
        CommandRun run = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> CommandRun.of(
                cli -> AgentCommands.useClientSettings(cli, UnexpectedFailureTest::failingAtTheFirstRequest),
                "agent", "--node", "n1", "--replay", BUNDLE, "--startup-jitter", "0", "--port", "0"));
        assertFailedInOneLine(run, "gpu-detect agent");
        // The agent's own log came before it; not the shutdown hook's "labels and record stay": no signal came.
        assertFalse(run.err().contains("stopping;"), run.err());
    }

    @Test
    void agentOnceEndsWithStatusTwoAndOneLine() {
        CommandRun run = CommandRun.of(
                cli -> AgentCommands.useClientSettings(cli, UnexpectedFailureTest::failingAtTheFirstRequest),
                "agent", "--node", "n1", "--replay", BUNDLE, "--once", "--port", "-1");
        assertFailedInOneLine(run, "gpu-detect agent");
    }

    @Test
    void theClusterCommandsAnswerAnErrorInOneLineWithStatusTwo() {
        for (List<String> command : List.of(List.of("inventory", "--cluster"),
                List.of("match", "--cluster", "--gpu", "vendor=nvidia,model=h100,count=1"),
                List.of("akash", "--cluster"))) {
            CommandRun run = CommandRun.of(cli -> AgentCommands.useClusterSettings(cli, () -> {
                throw new NoClassDefFoundError(MISSING);
            }), command.toArray(String[]::new));
            assertFailedInOneLine(run, "gpu-detect " + command.get(0));
        }
    }

    @Test
    void anyOtherErrorIsTheSameOneLine() {
        CommandRun run = CommandRun.of(cli -> AgentCommands.useClusterSettings(cli, () -> {
            throw new OutOfMemoryError("Metaspace");
        }), "inventory", "--cluster");
        assertEquals(2, run.exit(), run.err());
        assertEquals("gpu-detect inventory: failed: OutOfMemoryError Metaspace", lastLine(run.err()));
    }

    @Test
    void theLineNamesTheFailureByItsClassAndFirstLine() {
        assertEquals("gpu-detect record: failed: IllegalStateException two", GpuDetectCommand.failureLine(
                "gpu-detect record", new IllegalStateException("two\nlines")));
        assertEquals("gpu-detect: failed: NullPointerException",
                GpuDetectCommand.failureLine("gpu-detect", new NullPointerException()));
    }

    private static void assertFailedInOneLine(CommandRun run, String command) {
        assertEquals(2, run.exit(), run.err());
        assertFalse(run.err().contains("\tat "), run.err());
        assertFalse(run.err().contains("Exception in thread"), run.err());
        assertEquals(command + ": failed: NoClassDefFoundError " + MISSING, lastLine(run.err()), run.err());
        // One line of its own; the agent's structured log lines (level=...) may come before it.
        assertEquals(1, run.err().lines().filter(l -> l.startsWith("gpu-detect")).count(), run.err());
    }

    private static String lastLine(String text) {
        List<String> lines = text.strip().lines().toList();
        return lines.get(lines.size() - 1);
    }
}
