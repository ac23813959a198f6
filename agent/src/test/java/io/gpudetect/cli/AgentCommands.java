package io.gpudetect.cli;

import io.fabric8.kubernetes.client.Config;
import java.util.function.Supplier;
import picocli.CommandLine;

/** For tests in other packages: the {@code agent} subcommand's client settings, instead of a kubeconfig. */
public final class AgentCommands {

    private AgentCommands() {
    }

    public static void useClientSettings(CommandLine commandLine, Supplier<Config> settings) {
        ((AgentCommand) commandLine.getSubcommands().get("agent").getCommand()).clientSettings = settings;
    }
}
