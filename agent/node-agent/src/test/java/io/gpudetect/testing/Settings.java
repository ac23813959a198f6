package io.gpudetect.testing;

import io.gpudetect.agent.AgentSettings;
import io.gpudetect.agent.HealthOutputs;
import io.gpudetect.agent.LabelOutput;
import io.gpudetect.k8s.AkashCoexistence;
import java.nio.file.Path;

/** Agent settings as the command line would give them, from {@link AgentSettings#defaults} and one change. */
public final class Settings {

    private Settings() {
    }

    /** {@code --dry-run}. */
    public static AgentSettings dryRun(AgentSettings s) {
        return new AgentSettings(s.nodeName(), s.profiles(), s.interval(), s.jitter(), s.heartbeat(), true,
                s.labelOutput(), s.nfdFile(), s.namespace(), s.agentVersion(), s.akashOperator(), s.health());
    }

    /** {@code --nfd-output} and {@code --nfd-file}. */
    public static AgentSettings labelOutput(AgentSettings s, LabelOutput output, Path file) {
        return new AgentSettings(s.nodeName(), s.profiles(), s.interval(), s.jitter(), s.heartbeat(), s.dryRun(),
                output, file, s.namespace(), s.agentVersion(), s.akashOperator(), s.health());
    }

    /** {@code --health-condition}, {@code --health-events}, {@code --health-taint} and {@code --device-taints}. */
    public static AgentSettings health(AgentSettings s, HealthOutputs health) {
        return new AgentSettings(s.nodeName(), s.profiles(), s.interval(), s.jitter(), s.heartbeat(), s.dryRun(),
                s.labelOutput(), s.nfdFile(), s.namespace(), s.agentVersion(), s.akashOperator(), health);
    }

    /** {@code --akash-operator}. */
    public static AgentSettings akashOperator(AgentSettings s, AkashCoexistence.OperatorSetting operator) {
        return new AgentSettings(s.nodeName(), s.profiles(), s.interval(), s.jitter(), s.heartbeat(), s.dryRun(),
                s.labelOutput(), s.nfdFile(), s.namespace(), s.agentVersion(), operator, s.health());
    }
}
