package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.gpudetect.agent.AgentSettings;
import io.gpudetect.agent.HealthOutputs;
import io.gpudetect.agent.LabelOutput;
import io.gpudetect.k8s.AkashCoexistence;
import io.gpudetect.k8s.health.DeviceTaints;
import io.gpudetect.k8s.health.HealthTaint;
import io.gpudetect.testing.Fixtures;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class AgentCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = GpuDetectCommand.newCommandLine();
        // No cluster: nothing listens on port 1 of loopback.
        ((AgentCommand) cli.getSubcommands().get("agent").getCommand()).clientSettings = () -> new ConfigBuilder(
                Config.empty()).withMasterUrl("https://127.0.0.1:1").withConnectionTimeout(1000).build();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    @Test
    void aDryRunOfOneReplayedPassPrintsLabelsAndRecordWithoutACluster(@TempDir Path home) {
        int exit = run("agent", "--node", "n1", "--replay", Fixtures.testCase("mixed-rtx4090-t4-long-name").toString(),
                "--dry-run", "--once", "--port", "-1", "--profiles", "akash");
        assertEquals(0, exit, err.toString());
        assertTrue(out.toString().contains("\"akash.network/capabilities.gpu.vendor.nvidia.model.rtx4090\":\"2\""), out.toString());
        assertTrue(out.toString().contains("would write GpuCapacity n1"), out.toString());
        assertTrue(err.toString().contains("msg=\"pass done\" node=n1 outcome=complete detection=complete gpus=3"), err.toString());
    }

    @Test
    void withoutANodeNameOrWithAnUnknownProfileItStopsWithAUsageError() {
        assertEquals(GpuDetectCommand.EXIT_USAGE, run("agent", "--node", "", "--once", "--dry-run"));
        assertTrue(err.toString().contains("NODE_NAME"), err.toString());
        assertEquals(GpuDetectCommand.EXIT_USAGE, run("agent", "--node", "n1", "--once", "--profiles", "gfd"));
        assertTrue(err.toString().contains("unknown label profile 'gfd'"), err.toString());
        assertEquals(GpuDetectCommand.EXIT_USAGE, run("agent", "--node", "n1", "--once", "--nfd-output", "sometimes"));
        assertEquals(GpuDetectCommand.EXIT_USAGE, run("agent", "--node", "n1", "--once", "--akash-operator", "maybe"));
        assertTrue(err.toString().contains("akash-operator: 'maybe' is not one of auto, present, absent"), err.toString());
    }

    @Test
    void flagsWinOverTheConfigFileWhichWinsOverDefaults(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("agent.properties");
        Files.writeString(config, "profiles=akash,nvidia\ninterval=30s\nheartbeat=10m\nnfd-output=file\nakash-operator=present\n");
        AgentCommand fromFile = parse("--node", "n1", "--config", config.toString());
        Properties p = new Properties();
        p.load(Files.newBufferedReader(config));
        AgentSettings s = fromFile.settings(p);
        if (System.getenv(AgentCommand.ENV_PROFILES) == null) {
            assertEquals(List.of("nvidia", "akash"), s.profiles().names());
        }
        assertEquals(Duration.ofSeconds(30), s.interval());
        assertEquals(Duration.ofMinutes(10), s.heartbeat());
        assertEquals(LabelOutput.NFD_FILE, s.labelOutput());
        if (System.getenv(AgentCommand.ENV_AKASH_OPERATOR) == null) {
            assertEquals(AkashCoexistence.OperatorSetting.PRESENT, s.akashOperator());
            assertEquals(AkashCoexistence.OperatorSetting.AUTO, parse("--node", "n1").settings(new Properties()).akashOperator());
        }

        AgentSettings flags = parse("--node", "n1", "--profiles", "gpu-detect", "--interval", "2m", "--nfd-output", "off")
                .settings(p);
        assertEquals(List.of("gpu-detect"), flags.profiles().names());
        assertEquals(Duration.ofMinutes(2), flags.interval());
        assertEquals(LabelOutput.NODE, flags.labelOutput());
        assertEquals(AkashCoexistence.OperatorSetting.ABSENT,
                parse("--node", "n1", "--akash-operator", "absent").settings(p).akashOperator());
    }

    @Test
    void theStartupJitterComesFromTheFlagElseTheConfigFileElseThirtySecondsAndZeroTurnsItOff() {
        Properties file = new Properties();
        assertEquals(Duration.ofSeconds(30), parse("--node", "n1").startupJitter(file));
        file.setProperty("startup-jitter", "2m");
        assertEquals(Duration.ofMinutes(2), parse("--node", "n1").startupJitter(file));
        assertEquals(Duration.ZERO, parse("--node", "n1", "--startup-jitter", "0").startupJitter(file));
        assertEquals(GpuDetectCommand.EXIT_USAGE, run("agent", "--node", "n1", "--startup-jitter", "soon"));
        assertTrue(err.toString().contains("'soon' is not a duration"), err.toString());
    }

    @Test
    void theMinimumTriggerIntervalComesFromTheFlagElseTheConfigFileElseTenSecondsAndMustBePositive() {
        Properties file = new Properties();
        assertEquals(Duration.ofSeconds(10), parse("--node", "n1").minTriggerInterval(file));
        file.setProperty("min-trigger-interval", "1m");
        assertEquals(Duration.ofMinutes(1), parse("--node", "n1").minTriggerInterval(file));
        assertEquals(Duration.ofMillis(500), parse("--node", "n1", "--min-trigger-interval", "500ms").minTriggerInterval(file));
        assertEquals(GpuDetectCommand.EXIT_USAGE, run("agent", "--node", "n1", "--min-trigger-interval", "0"));
        assertTrue(err.toString().contains("'0' is no time; give more than 0"), err.toString());
        file.setProperty("min-trigger-interval", "often");
        var bad = assertThrows(IllegalArgumentException.class,
                () -> parse("--node", "n1").minTriggerInterval(file));
        assertTrue(bad.getMessage().contains("min-trigger-interval=often is not a duration"), bad.getMessage());
    }

    @Test
    void theDaemonSetsArgumentsAreTheAgentsOptions() throws Exception {
        Path manifests = Path.of(System.getProperty("gpudetect.manifests", "../daemonset/manifests"), "gpu-detect.yaml");
        List<String> args;
        try (var client = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(Config.empty()).build();
             var in = Files.newInputStream(manifests)) {
            var daemonSet = (io.fabric8.kubernetes.api.model.apps.DaemonSet) client.load(in).items().stream()
                    .filter(o -> o.getKind().equals("DaemonSet")).findFirst().orElseThrow();
            args = daemonSet.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
        }
        CommandLine.ParseResult parsed = GpuDetectCommand.newCommandLine().parseArgs(args.toArray(String[]::new));
        AgentCommand agent = (AgentCommand) parsed.subcommand().commandSpec().userObject();
        assertEquals(Duration.ofSeconds(10), agent.minTriggerInterval(new Properties()), args.toString());
        assertEquals(Duration.ofSeconds(60), agent.interval, args.toString());
    }

    @Test
    void eachHealthOutputComesFromItsFlagElseItsVariableElseTheConfigFileElseItsDefault() {
        Properties file = new Properties();
        AgentCommand plain = parse("--node", "n1");
        plain.environment = java.util.Map.of();
        assertEquals(HealthOutputs.DEFAULT, plain.settings(file).health());
        assertEquals(new HealthOutputs(true, true, HealthTaint.Policy.NONE, DeviceTaints.OFF), HealthOutputs.DEFAULT,
                "condition and Events on, the taints off");

        file.setProperty("health-taint", "allFailed");
        file.setProperty("health-events", "off");
        file.setProperty("device-taints", "NoExecute");
        AgentCommand withVariables = parse("--node", "n1", "--device-taints", "None");
        withVariables.environment = java.util.Map.of(AgentCommand.ENV_HEALTH_TAINT, "anyFailed",
                AgentCommand.ENV_HEALTH_CONDITION, "off");
        assertEquals(new HealthOutputs(false, false, HealthTaint.Policy.ANY_FAILED, DeviceTaints.NONE),
                withVariables.settings(file).health(), "flag, then variable, then file");

        assertEquals(GpuDetectCommand.EXIT_USAGE, run("agent", "--node", "n1", "--once", "--health-taint", "always"));
        assertTrue(err.toString().contains("--health-taint: 'always' is not one of none, anyFailed, allFailed"), err.toString());
        assertEquals(GpuDetectCommand.EXIT_USAGE, run("agent", "--node", "n1", "--once", "--health-condition", "maybe"));
        assertTrue(err.toString().contains("--health-condition: 'maybe' is not one of on, off"), err.toString());
        assertEquals(GpuDetectCommand.EXIT_USAGE, run("agent", "--node", "n1", "--once", "--device-taints", "Evict"));
        assertTrue(err.toString().contains("--device-taints: 'Evict' is not one of off, None, NoSchedule, NoExecute"),
                err.toString());
    }

    private static AgentCommand parse(String... args) {
        AgentCommand command = new AgentCommand();
        new CommandLine(command).parseArgs(args);
        return command;
    }
}
