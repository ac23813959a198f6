package io.gpudetect.agent;

import io.gpudetect.k8s.AkashCoexistence;
import io.gpudetect.labels.LabelProfiles;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Everything the node agent is told at start.
 *
 * @param nodeName    the node this pod runs on ({@code NODE_NAME} from the downward API)
 * @param interval    time between passes (default 60 s); each wait gets up to {@code jitter} of it added
 *                    at random so that a DaemonSet's pods do not all detect and write at once
 * @param heartbeat   how often a complete pass refreshes the record's {@code lastGoodPass} (default 5 min)
 * @param dryRun      print what would be written instead of writing
 * @param labelOutput where labels go
 * @param nfdFile     the features.d file for {@link LabelOutput#NFD_FILE}
 * @param namespace   the namespace for the NodeFeature object
 * @param akashOperator whether Akash's inventory operator owns the node's Akash keys (default: decided per
 *                    node from its labels, see {@link AkashCoexistence})
 * @param health      which health outputs are on (condition, Events, taint, device taint rules)
 */
public record AgentSettings(String nodeName, LabelProfiles profiles, Duration interval, double jitter,
                            Duration heartbeat, boolean dryRun, LabelOutput labelOutput, Path nfdFile,
                            String namespace, String agentVersion, AkashCoexistence.OperatorSetting akashOperator,
                            HealthOutputs health) {

    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(60);
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofMinutes(5);
    public static final Path DEFAULT_NFD_FILE = Path.of("/etc/kubernetes/node-feature-discovery/features.d/gpu-detect");

    /**
     * Defaults for a node: every pass 60 s with 10% jitter, heartbeat 5 min, labels on the Node, Akash's operator
     * recognised per node, the health condition and Events on, the taints off.
     */
    public static AgentSettings defaults(String nodeName, LabelProfiles profiles, String agentVersion) {
        return new AgentSettings(nodeName, profiles, DEFAULT_INTERVAL, 0.1, DEFAULT_HEARTBEAT, false, LabelOutput.NODE,
                DEFAULT_NFD_FILE, "gpu-detect", agentVersion, AkashCoexistence.OperatorSetting.AUTO, HealthOutputs.DEFAULT);
    }
}
