package io.gpudetect.cli;

import io.gpudetect.source.IoFailure;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpudetect.k8s.ClusterErrors;
import io.gpudetect.match.InvalidInputException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/**
 * {@code --cluster}: read from the cluster of the current kubeconfig context, as kubectl would; shared by
 * {@code inventory}, {@code match} and {@code akash}.
 *
 * <p>These commands list records and Nodes (500 a request) and end, so their client fails fast instead of riding
 * out an outage as the agent must: no retries (fabric8's default retries a failed request ten times with a
 * doubling backoff, some 20 s before a refused connection is reported), short timeouts, and a bound on a list that
 * stands still after its answer has begun ({@link ListingWatch}). The error is one line that names the server and the
 * cause ({@link ClusterErrors}).
 */
public final class ClusterOption {

    /** Time to open a connection; an API server that is up accepts in milliseconds. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** Time for the server to start answering a list: a page of 500 records or Nodes fits. */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /**
     * Time a list may stand still once its answer has begun ({@link ListingWatch}): the request timeout ends only
     * the wait for an answer's headers. Three times that, so that a client slowed by its own work is not cut off.
     */
    static final Duration STALL_LIMIT = Duration.ofSeconds(30);

    private static final Pattern LINE_COLUMN = Pattern.compile("line \\d+, column \\d+");

    @Option(names = "--cluster",
            description = "Read GpuCapacity records and Nodes from the cluster of the current kubeconfig context "
                    + "(KUBECONFIG, ~/.kube/config) or, in a pod, of the service account.")
    boolean cluster;

    /** Where the client's settings come from: kubectl's search, as fabric8 does it; tests name a kubeconfig. */
    Supplier<Config> settings = () -> Config.autoConfigure(null);

    /** How long a list may stand still ({@link #STALL_LIMIT}); tests shorten it. */
    Duration stallLimit = STALL_LIMIT;

    /** For picocli, which sets the fields. */
    public ClusterOption() {
    }

    boolean chosen() {
        return cluster;
    }

    /**
     * A client for the cluster, which the caller closes, with {@code watch} told of each request and each piece of
     * an answer; a kubeconfig that cannot be used is invalid input.
     */
    KubernetesClient connect(ListingWatch watch) throws InvalidInputException {
        Config config;
        try {
            config = settings.get();
        } catch (RuntimeException e) {
            throw new InvalidInputException(null, null, null, "cannot read the kubeconfig: " + kubeconfigProblem(e));
        }
        config.setRequestRetryBackoffLimit(0);
        // HTTP/1.1: a one-shot read gains nothing from HTTP/2, and the JDK client's cleartext upgrade to it (h2c,
        // what an http:// server such as the tests' mock gets) now and then left a list waiting forever for its body.
        config.setHttp2Disable(true);
        config.setConnectionTimeout((int) CONNECT_TIMEOUT.toMillis());
        config.setRequestTimeout((int) REQUEST_TIMEOUT.toMillis());
        try {
            return new KubernetesClientBuilder().withConfig(config)
                    .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor(ListingWatch.NAME, watch)).build();
        } catch (KubernetesClientException e) {
            // A client certificate or CA file the kubeconfig names, read while the client is built.
            throw new InvalidInputException(null, null, null, ClusterErrors.message(e, config.getMasterUrl()));
        }
    }

    /**
     * The YAML parser's message in one line: it spans several, quoting the source with a caret under the fault;
     * its unindented lines say what was wrong, and the first "line N, column M" where.
     */
    static String kubeconfigProblem(RuntimeException e) {
        if (e.getMessage() == null) {
            return IoFailure.inWords(e);
        }
        List<String> said = new ArrayList<>();
        String where = null;
        for (String line : e.getMessage().split("\n")) {
            Matcher m = LINE_COLUMN.matcher(line);
            if (where == null && m.find()) {
                where = m.group();
            }
            if (!line.isBlank() && !Character.isWhitespace(line.charAt(0))) {
                said.add(line.strip());
            }
        }
        return String.join(": ", said) + (where == null ? "" : " (" + where + ")");
    }
}
