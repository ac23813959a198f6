package io.gpudetect.cli;

import io.fabric8.kubernetes.client.Config;
import java.util.List;
import java.util.function.Supplier;
import picocli.CommandLine;

/** For tests: the client settings of the subcommands that reach a cluster, instead of a kubeconfig. */
public final class AgentCommands {

    private AgentCommands() {
    }

    public static void useClientSettings(CommandLine commandLine, Supplier<Config> settings) {
        ((AgentCommand) commandLine.getSubcommands().get("agent").getCommand()).clientSettings = settings;
    }

    /** {@code match --cluster}, {@code akash --cluster} and {@code inventory --cluster} read the cluster with these. */
    public static void useClusterSettings(CommandLine commandLine, Supplier<Config> settings) {
        for (ClusterOption option : clusterOptions(commandLine)) {
            option.settings = settings;
        }
    }

    /** The {@code --cluster} options of {@code match}, {@code akash} and {@code inventory}. */
    static List<ClusterOption> clusterOptions(CommandLine commandLine) {
        return List.of(((MatchCommand) commandLine.getSubcommands().get("match").getCommand()).offers.cluster,
                ((AkashCommand) commandLine.getSubcommands().get("akash").getCommand()).cluster,
                ((InventoryCommand) commandLine.getSubcommands().get("inventory").getCommand()).cluster);
    }
}
