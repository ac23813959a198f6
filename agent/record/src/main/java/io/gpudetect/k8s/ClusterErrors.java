package io.gpudetect.k8s;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.source.IoFailure;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.NoSuchFileException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLException;

/**
 * What went wrong talking to the API server, in one line that names the server and the cause.
 *
 * <p>fabric8 reports a failed request as "Operation: [list] for kind: [GpuCapacity] with name: [null] in
 * namespace: [null] failed.", and the cause it wraps says little more: the JDK HTTP client throws a
 * {@link ConnectException} with no message for a refused connection, and one caused by an
 * {@link UnresolvedAddressException} (no host name either) for an unknown host. So the cause chain is read here
 * and turned into words, with the host taken from the server's URL. An HTTP error keeps the message of the
 * {@code Status} the server sent (an RBAC refusal names the user, the verb and the resource).
 */
public final class ClusterErrors {

    /** The manifest that installs the {@code GpuCapacity} CRD, from the repository's root. */
    public static final String CRD_FILE = "daemonset/crds/" + GpuCapacity.CRD_NAME + "-v1.yml";

    /**
     * fabric8's server when no kubeconfig is found and no service account is mounted: the in-cluster name, which
     * resolves only inside a pod.
     */
    static final String IN_CLUSTER_HOST = URI.create(Config.DEFAULT_MASTER_URL).getHost();

    private ClusterErrors() {
    }

    /**
     * One line for a request to the API server at {@code server} (a URL) that failed with {@code e}: fabric8's
     * exception, or what an informer reports (a {@code CompletionException} around the JDK client's own), said
     * the same way, so that {@code inventory --cluster} and the agent's log name a failure alike.
     */
    public static String message(Throwable e, String server) {
        String at = server.endsWith("/") ? server.substring(0, server.length() - 1) : server;
        List<Throwable> chain = chain(e);
        KubernetesClientException answer = find(chain, KubernetesClientException.class);
        if (answer != null && answer.getCode() > 0) {
            return answered(answer, at);
        }
        if (find(chain, UnknownHostException.class) != null || find(chain, UnresolvedAddressException.class) != null) {
            String host = host(server);
            return unreachable(at, "unknown host " + host + (IN_CLUSTER_HOST.equals(host)
                    ? " (the in-cluster default: no kubeconfig was found in KUBECONFIG or ~/.kube/config)" : ""));
        }
        if (find(chain, HttpConnectTimeoutException.class) != null) {
            return unreachable(at, "no connection within the connect timeout");
        }
        if (find(chain, HttpTimeoutException.class) != null) {
            return "no answer from the Kubernetes API at " + at + ": the request timed out";
        }
        SSLException tls = find(chain, SSLException.class);
        if (tls != null) {
            String why = deepestMessage(chain(tls));
            boolean untrusted = find(chain, CertPathBuilderException.class) != null
                    || find(chain, CertPathValidatorException.class) != null;
            return "TLS handshake with the Kubernetes API at " + at + " failed: " + (untrusted
                    ? "its certificate is not signed by an authority the kubeconfig trusts (" + why + ")" : why);
        }
        if (find(chain, NoRouteToHostException.class) != null) {
            return unreachable(at, "no route to host");
        }
        ConnectException connect = find(chain, ConnectException.class);
        if (connect != null) {
            // The JDK client's refused connection carries no message (its cause is a ClosedChannelException).
            String said = connect.getMessage();
            return unreachable(at, said == null || said.toLowerCase(Locale.ROOT).contains("refused")
                    ? "connection refused" : oneLine(said));
        }
        NoSuchFileException noFile = find(chain, NoSuchFileException.class);
        if (noFile != null) {
            return "cannot connect to the Kubernetes API at " + at + ": the kubeconfig names a missing file: "
                    + noFile.getFile();
        }
        FileNotFoundException notFound = find(chain, FileNotFoundException.class);
        if (notFound != null) {
            return "cannot connect to the Kubernetes API at " + at + ": the kubeconfig names a missing file: "
                    + oneLine(notFound.getMessage());
        }
        IOException io = find(chain, IOException.class);
        if (io != null) {
            return unreachable(at, deepestMessage(chain(io)));
        }
        return "request to the Kubernetes API at " + at + " failed: " + deepestMessage(chain);
    }

    private static String unreachable(String at, String why) {
        return "cannot reach the Kubernetes API at " + at + ": " + why;
    }

    /** The server answered with an HTTP error; its {@code Status} message says what, when it sent one. */
    private static String answered(KubernetesClientException e, String at) {
        int code = e.getCode();
        String said = e.getStatus() == null || e.getStatus().getMessage() == null ? null
                : oneLine(e.getStatus().getMessage());
        String answered = "the Kubernetes API at " + at + " answered " + code;
        return switch (code) {
            case 401 -> answered + " Unauthorized: it does not accept the credentials (an expired token or certificate?)"
                    + (said == null || said.equals("Unauthorized") ? "" : ": " + said);
            case 403 -> answered + " Forbidden" + (said == null ? " for " + resource(e) : ": " + said) + " (RBAC)";
            case 404 -> GpuCapacity.GROUP.equals(e.getGroup())
                    ? "the GpuCapacity CRD is not installed in the cluster at " + at + " (no " + GpuCapacity.CRD_NAME
                            + "/" + (e.getVersion() == null ? GpuCapacity.VERSION : e.getVersion()) + "): kubectl apply -f "
                            + CRD_FILE
                    : answered + " Not Found for " + resource(e) + " (is it a Kubernetes API server?)";
            default -> said == null ? answered : answered + ": " + said;
        };
    }

    private static String resource(KubernetesClientException e) {
        String name = e.getFullResourceName();
        return name == null || name.isBlank() ? "the request" : name;
    }

    private static String host(String server) {
        try {
            String host = URI.create(server).getHost();
            return host == null ? server : host;
        } catch (IllegalArgumentException e) {
            return server;
        }
    }

    /** The exception and its causes, outermost first (a cause cycle ends the list). */
    private static List<Throwable> chain(Throwable e) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = e; t != null && !chain.contains(t); t = t.getCause()) {
            chain.add(t);
        }
        return chain;
    }

    private static <T> T find(List<Throwable> chain, Class<T> type) {
        for (Throwable t : chain) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    /**
     * The innermost message: wrappers repeat it with a class name in front, or say nothing; fabric8's own
     * ("Operation: [get] for kind: [Node] ...", "An error has occurred.") name the request, not the cause. With no
     * message at all, the innermost exception's name in words ({@code ClosedChannelException}: "closed channel").
     */
    private static String deepestMessage(List<Throwable> chain) {
        for (int i = chain.size() - 1; i >= 0; i--) {
            String m = chain.get(i).getMessage();
            if (m != null && !m.isBlank() && !(chain.get(i) instanceof KubernetesClientException)) {
                return oneLine(m);
            }
        }
        return IoFailure.inWords(chain.get(chain.size() - 1));
    }

    private static String oneLine(String s) {
        return s.replaceAll("\\s+", " ").strip();
    }
}
