package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.gpudetect.testing.FaultyApiServer;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.MockApiServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * What a user reads when something fails (issue 35, items 2, 4, 8 and 9), each run through the command line as
 * typed: the cause in words and the thing it concerns, once, never a Java class or the Kubernetes client's
 * internals. {@link #noFailureShowsTheClientsInternals} runs every failure path these and the cluster tests know.
 */
class FailureMessagesTest {

    /** The Kubernetes client's classes, any Java exception's name, and fabric8's "Operation: [get] for kind: ...". */
    static final Pattern INTERNALS = Pattern.compile("io\\.fabric8|KubernetesClient\\w*|\\w*Exception|Operation: \\[");

    static final String BUNDLE = "mixed-rtx4090-t4-long-name";

    @TempDir
    Path dir;

    record Run(int exit, String out, String err) {
        String both() {
            return out + err;
        }
    }

    /**
     * The command line {@code args} as the launcher hands it over ({@link GpuDetectCommand#run}, plain detection
     * included), with {@code cluster} as every command's client settings and {@code env} as the agent's
     * environment.
     */
    static Run run(Supplier<Config> cluster, Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit;
        if (args.length > 0 && !args[0].startsWith("-")) {
            CommandLine cli = GpuDetectCommand.newCommandLine();
            ((InventoryCommand) cli.getSubcommands().get("inventory").getCommand()).cluster.settings = cluster;
            ((MatchCommand) cli.getSubcommands().get("match").getCommand()).offers.cluster.settings = cluster;
            ((AkashCommand) cli.getSubcommands().get("akash").getCommand()).cluster.settings = cluster;
            AgentCommand agent = (AgentCommand) cli.getSubcommands().get("agent").getCommand();
            agent.clientSettings = cluster;
            agent.environment = env;
            cli.setOut(new PrintWriter(out));
            cli.setErr(new PrintWriter(err));
            exit = cli.execute(args);
        } else {
            exit = GpuDetectCommand.run(args, new PrintWriter(out), new PrintWriter(err), env);
        }
        return new Run(exit, out.toString(), err.toString());
    }

    static Run run(Supplier<Config> cluster, String... args) {
        return run(cluster, Map.of(), args);
    }

    Run run(String... args) {
        return run(Config::empty, Map.of(), args);
    }

    /** The settings a kubeconfig file gives whose only context talks to {@code server}. */
    Supplier<Config> kubeconfig(String server) throws IOException {
        Path file = Files.createTempFile(dir, "kubeconfig", "");
        MockApiServer.writeKubeconfig(file, server);
        return () -> Config.fromKubeconfig(file.toFile());
    }

    /** A loopback port nothing listens on. */
    static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static String bundle() {
        return Fixtures.testCase(BUNDLE).toString();
    }

    // Item 2 -------------------------------------------------------------------------------------------------------

    @Test
    void theAgentNamesTheApiServerAndTheCauseAsInventoryClusterDoes() throws IOException {
        String server = "https://127.0.0.1:" + closedPort();
        Supplier<Config> closed = kubeconfig(server);
        String said = "cannot reach the Kubernetes API at " + server + ": connection refused";

        Run inventory = run(closed, "inventory", "--cluster");
        assertEquals("gpu-detect inventory: " + said, inventory.err().strip());

        Run agent = run(closed, "agent", "--node", "n1", "--once", "--port", "-1", "--replay", bundle());
        assertEquals(1, agent.exit(), agent.err());
        String passLine = agent.err().lines().filter(l -> l.contains("msg=\"pass done\"")).findFirst().orElseThrow();
        // The pass failed; what was complete is the detection, and the error is inventory --cluster's sentence.
        assertTrue(passLine.contains(" outcome=error detection=complete gpus=3 "), passLine);
        assertTrue(passLine.contains(" error=\"api-unavailable: " + said + "\""), passLine);
        agent.err().lines().filter(l -> l.contains("watch failed")).forEach(l ->
                assertTrue(l.endsWith(" error=\"" + said + "\""), l));
        assertNoInternals("agent --once", agent);

        Run dryRun = run(closed, "agent", "--node", "n1", "--once", "--dry-run", "--port", "-1", "--replay", bundle());
        assertEquals(0, dryRun.exit(), dryRun.err());
        assertEquals("# " + said + "; showing every label as new", dryRun.out().lines().findFirst().orElseThrow());
        assertNoInternals("agent --once --dry-run", dryRun);
    }

    // Item 4 -------------------------------------------------------------------------------------------------------

    @Test
    void aFileTheUserNamesSaysWhyItCannotBeRead() throws IOException {
        String missing = dir.resolve("nonexistent.yaml").toString();
        String folder = Files.createDirectories(dir.resolve("a-folder")).toString();
        assertFails(2, "gpu-detect match: " + missing + ": no such file", run("match", missing));
        assertFails(2, "gpu-detect match: " + folder + ": is a folder", run("match", folder));
        assertFails(2, "gpu-detect inventory: " + missing + ": no such file", run("inventory", "--records", missing));
        assertFails(2, "gpu-detect inventory: " + folder + ": is a folder", run("inventory", "--records", folder));
        assertFails(1, "gpu-detect: cannot read the Akash GPU table " + missing + ": no such file",
                run("--replay", bundle(), "--akash-table", missing));
        assertFails(2, "gpu-detect agent: cannot read config file " + missing + ": no such file",
                run("agent", "--node", "n1", "--once", "--dry-run", "--config", missing));
        assertFails(2, "gpu-detect agent: cannot read config file " + folder + ": is a folder",
                run("agent", "--node", "n1", "--once", "--dry-run", "--config", folder));
    }

    @Test
    void aDamagedJsonDumpSaysWhereAndWhatInJsonsTerms() throws IOException {
        String dump = """
                {
                    "apiVersion": "v1",
                    "items": [
                        {
                            "apiVersion": "v1",
                            "kind": "Node",
                            "metadata": {
                                "name": "n1"
                            },
                            "status": {
                                "images": [{"names": ["registry.k8s.io/pause:3.9"], "sizeBytes": 321520}]
                            }
                        }
                    ],
                    "kind": "List"
                }
                """;
        Path file = dir.resolve("dump.json");
        Files.writeString(file, dump.replace("\"kind\": \"Node\",", "\"kind\": \"Node\""));
        for (String command : List.of("inventory", "match", "akash")) {
            List<String> args = command.equals("match") ? List.of("match", "--records", file.toString(), "--gpu",
                    "vendor=nvidia") : List.of(command, "--records", file.toString());
            assertFails(2, "gpu-detect " + command + ": " + file + ":7:13: not valid JSON: expected ',' or '}' after a "
                    + "value in an object, found '\"'", run(args.toArray(String[]::new)));
        }
        // Cut short inside an image's name, as a truncated dump is.
        Files.writeString(file, dump.substring(0, dump.indexOf("pause:3.9")));
        assertFails(2, "gpu-detect inventory: " + file + ":11:56: not valid JSON: the file ends early, inside a "
                + "string, before the list opened on line 11 is closed (cut short? a truncated copy or dump ends so)",
                run("inventory", "--records", file.toString()));
        // A line break inside an image's name.
        Files.writeString(file, dump.replace("pause:3.9", "pause:\n3.9"));
        assertFails(2, "gpu-detect inventory: " + file + ":11:62: not valid JSON: a line break (write it as \\n) "
                + "inside a string; JSON allows it only escaped", run("inventory", "--records", file.toString()));
    }

    /** Root reads a file of mode 000: as root this says nothing (HostArchiveTest runs commands as nobody). */
    @Test
    void anUnreadableFileSaysPermissionDenied() throws IOException {
        assumeFalse("root".equals(System.getProperty("user.name")), "root reads a file of mode 000");
        Path sdl = Files.writeString(dir.resolve("deploy.yaml"), "version: \"2.0\"\n");
        Path bundle = Files.createDirectories(dir.resolve("bundle"));
        Files.writeString(bundle.resolve("nvml.json"), "{}");
        for (Path p : List.of(sdl, bundle.resolve("nvml.json"))) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("---------"));
        }
        assertFails(2, "gpu-detect match: " + sdl + ": permission denied", run("match", sdl.toString()));
        Run replay = run("--replay", bundle.toString());
        assertTrue(replay.err().contains("nvml.json: cannot read " + bundle.toRealPath().resolve("nvml.json")
                + ": permission denied"), replay.err());
    }

    // Item 8 -------------------------------------------------------------------------------------------------------

    @Test
    void aConfigKeyOrEnvironmentVariableWithATypoIsAUsageError() throws IOException {
        Path config = Files.writeString(dir.resolve("agent.properties"), "# the agent's settings\nprofiles=nvidia\nintervl=5s\n");
        Run typo = run("agent", "--node", "n1", "--once", "--dry-run", "--port", "-1", "--replay", bundle(),
                "--config", config.toString());
        assertEquals(GpuDetectCommand.EXIT_USAGE, typo.exit(), typo.err());
        assertTrue(typo.err().startsWith("gpu-detect agent: " + config + ":3: unknown key 'intervl' (did you mean "
                + "interval?)"), typo.err());
        assertEquals("", typo.out(), "no pass runs");

        Files.writeString(config, "profiles = nvidia\ninterval: 30s\n  heartbeat 10m\nnvidia-sharing=time-\\\n  slicing\n");
        Run fine = run("agent", "--node", "n1", "--once", "--dry-run", "--port", "-1", "--replay", bundle(),
                "--config", config.toString());
        assertEquals(0, fine.exit(), "every separator properties allow, and a continued line: " + fine.err());

        Run env = run(Config::empty, Map.of("GPU_DETECT_PROFILE", "nvidia"), "agent", "--node", "n1", "--once",
                "--dry-run", "--port", "-1", "--replay", bundle());
        assertEquals(GpuDetectCommand.EXIT_USAGE, env.exit(), env.err());
        assertTrue(env.err().startsWith("gpu-detect agent: environment variable GPU_DETECT_PROFILE: unknown (did you "
                + "mean GPU_DETECT_PROFILES?)"), env.err());
    }

    // Item 9 -------------------------------------------------------------------------------------------------------

    @Test
    void aHostRootThatIsNoFolderIsSaidOnceCauseFirst() throws IOException {
        Path missing = dir.resolve("nonexistent");
        assertFails(1, "gpu-detect: --host-root " + missing + ": no such folder", run("--host-root", missing.toString()));
        Path file = Files.writeString(dir.resolve("a-file"), "");
        assertFails(1, "gpu-detect: --host-root " + file + ": not a folder", run("--host-root", file.toString()));

        // A folder without /sys under it: its one line goes to stderr alone, not also as a table on stdout.
        Path empty = Files.createDirectories(dir.resolve("empty-root"));
        Run blind = run("--host-root", empty.toString());
        assertEquals(1, blind.exit(), blind.err());
        assertEquals("", blind.out());
        assertTrue(blind.err().strip().startsWith("gpu-detect: cannot see the PCI bus"), blind.err());
    }

    // Every failure path -------------------------------------------------------------------------------------------

    /** One failure as a user meets it: the cluster its commands talk to and the command line. */
    record Case(String name, Supplier<Config> cluster, Map<String, String> env, String... args) {
        Case(String name, Supplier<Config> cluster, String... args) {
            this(name, cluster, Map.of(), args);
        }
    }

    @Test
    void noFailureShowsTheClientsInternals() throws IOException {
        Supplier<Config> none = Config::empty;
        Supplier<Config> closed = kubeconfig("https://127.0.0.1:" + closedPort());
        Path garbageKubeconfig = Files.writeString(dir.resolve("bad-kubeconfig"), "apiVersion: v1\nclusters: [ {");
        Supplier<Config> unreadable = () -> Config.fromKubeconfig(garbageKubeconfig.toFile());
        String missing = dir.resolve("nonexistent.yaml").toString();
        String folder = Files.createDirectories(dir.resolve("a-folder")).toString();
        Path garbage = Files.writeString(dir.resolve("garbage.yaml"), "a: [1, 2\nb: }\n");
        Path typo = Files.writeString(dir.resolve("agent.properties"), "intervl=5s\n");
        Path garbageBundle = Files.createDirectories(dir.resolve("garbage-bundle"));
        Files.writeString(garbageBundle.resolve("nvidia-smi.xml"), "<nvidia_smi_log><gpu");
        Path aFile = Files.writeString(dir.resolve("a-file"), "");
        String records = Fixtures.root().resolve("records/mixed-cluster.yaml").toString();
        String node = "--node";

        KubernetesMockServer empty = new KubernetesMockServer(false);   // 404 to everything: no Node, no CRD
        empty.init();
        try (FaultyApiServer forbidding = new FaultyApiServer()) {
            forbidding.failWhen(r -> true, new MockResponse().setResponseCode(403)
                    .setHeader("Content-Type", "application/json").setBody(Serialization.asJson(new StatusBuilder()
                            .withStatus("Failure").withCode(403).withReason("Forbidden")
                            .withMessage("nodes \"n1\" is forbidden: User \"x\" cannot get resource \"nodes\"").build())));
            Supplier<Config> forbidden = kubeconfig("http://localhost:" + forbidding.port());
            Supplier<Config> notFound = kubeconfig("http://localhost:" + empty.getPort());
            List<Case> cases = List.of(
                    new Case("agent, API server down", closed, "agent", node, "n1", "--once", "--port", "-1",
                            "--replay", bundle()),
                    new Case("agent --dry-run, API server down", closed, "agent", node, "n1", "--once", "--dry-run",
                            "--port", "-1", "--replay", bundle()),
                    new Case("agent, RBAC refuses", forbidden, "agent", node, "n1", "--once", "--port", "-1",
                            "--replay", bundle()),
                    new Case("agent, no such Node", notFound, "agent", node, "n1", "--once", "--port", "-1",
                            "--replay", bundle()),
                    new Case("agent, unreadable kubeconfig", unreadable, "agent", node, "n1", "--once", "--port", "-1",
                            "--replay", bundle()),
                    new Case("agent, no node name", none, "agent", node, "", "--once"),
                    new Case("agent, missing config", none, "agent", node, "n1", "--once", "--config", missing),
                    new Case("agent, config a folder", none, "agent", node, "n1", "--once", "--config", folder),
                    new Case("agent, config key typo", none, "agent", node, "n1", "--once", "--config", typo.toString()),
                    new Case("agent, variable typo", none, Map.of("GPU_DETECT_AKASH_OPERATR", "auto"), "agent", node,
                            "n1", "--once"),
                    new Case("agent, unknown profile", none, "agent", node, "n1", "--once", "--profiles", "gfd"),
                    new Case("agent, missing bundle", none, "agent", node, "n1", "--once", "--replay", missing),
                    new Case("inventory, API server down", closed, "inventory", "--cluster"),
                    new Case("inventory, RBAC refuses", forbidden, "inventory", "--cluster"),
                    new Case("inventory, no CRD", notFound, "inventory", "--cluster"),
                    new Case("inventory, unreadable kubeconfig", unreadable, "inventory", "--cluster"),
                    new Case("inventory, missing records", none, "inventory", "--records", missing),
                    new Case("inventory, records a folder", none, "inventory", "--records", folder),
                    new Case("inventory, records not YAML", none, "inventory", "--records", garbage.toString()),
                    new Case("match, API server down", closed, "match", "--cluster", "--gpu", "vendor=nvidia"),
                    new Case("match, RBAC refuses", forbidden, "match", "--cluster", "--gpu", "vendor=nvidia"),
                    new Case("match, missing SDL", none, "match", missing),
                    new Case("match, SDL a folder", none, "match", folder),
                    new Case("match, SDL not YAML", none, "match", garbage.toString()),
                    new Case("match, bad request", none, "match", "--records", records, "--gpu", "vendor=nvidia,ram>=lots"),
                    new Case("akash, API server down", closed, "akash", "--cluster", "--akash-table", "none"),
                    new Case("akash, missing records", none, "akash", "--records", missing, "--akash-table", "none"),
                    new Case("akash, missing inventory config", none, "akash", "--records", records, "--akash-table",
                            "none", "--akash-inventory-config", missing),
                    new Case("akash, missing table", none, "akash", "--records", records, "--akash-table", missing),
                    new Case("plain, missing table", none, "--replay", bundle(), "--akash-table", missing),
                    new Case("plain, missing bundle", none, "--replay", missing),
                    new Case("plain, empty bundle", none, "--replay", folder),
                    new Case("plain, garbage bundle", none, "--replay", garbageBundle.toString()),
                    new Case("plain, missing host root", none, "--host-root", missing),
                    new Case("plain, host root a file", none, "--host-root", aFile.toString()),
                    new Case("plain, host root without /sys", none, "--host-root", folder),
                    new Case("record into a file", none, "record", "--host-root", folder, aFile.resolve("b").toString()),
                    new Case("unknown subcommand", none, "recrod", "x"),
                    new Case("unknown option", none, "--no-such-option"));
            List<String> leaks = new ArrayList<>();
            for (Case c : cases) {
                Run r = run(c.cluster(), c.env(), c.args());
                Matcher m = INTERNALS.matcher(r.both());
                if (m.find()) {
                    leaks.add(c.name() + ": '" + m.group() + "' in: " + r.both().strip());
                }
            }
            assertEquals(List.of(), leaks);
        } finally {
            empty.destroy();
        }
    }

    private static void assertNoInternals(String what, Run r) {
        Matcher m = INTERNALS.matcher(r.both());
        assertFalse(m.find(), () -> what + " shows '" + m.group() + "': " + r.both());
    }

    private static void assertFails(int exit, String line, Run r) {
        assertEquals(line, r.err().strip(), "one line on stderr");
        assertEquals(exit, r.exit(), r.err());
        assertEquals("", r.out());
    }
}
