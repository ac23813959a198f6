package io.gpudetect.k8s;

import io.gpudetect.record.GpuCapacity;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.gpudetect.match.CapacityRecordOffers;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each message from an exception that a real request raised: a closed port, a name that does not resolve, a
 * server whose certificate is not trusted, a mock API server answering with an error. fabric8's own text for all
 * of these is "Operation: [list] for kind: [...] with name: [null] in namespace: [null] failed."
 */
class ClusterErrorsTest {

    private KubernetesMockServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.destroy();
        }
    }

    /** What listing the records raises, with a client that does not retry. */
    static KubernetesClientException listRecords(Config config) {
        return failure(config, client -> client.genericKubernetesResources(ResourceDefinitionContext.fromResourceType(GpuCapacity.class)).list());
    }

    static KubernetesClientException failure(Config config, Consumer<KubernetesClient> request) {
        config.setRequestRetryBackoffLimit(0);
        return assertThrows(KubernetesClientException.class, () -> {
            try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
                request.accept(client);
            }
        });
    }

    static Config at(String url) {
        return new ConfigBuilder(Config.empty()).withMasterUrl(url).withRequestTimeout(2000).build();
    }

    /** A loopback port that nothing listens on. */
    static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private String mockServer(boolean https) {
        server = new KubernetesMockServer(https);
        server.init();
        return (https ? "https" : "http") + "://localhost:" + server.getPort();
    }

    @Test
    void refusedConnection() throws IOException {
        String url = "https://127.0.0.1:" + closedPort();
        assertEquals("cannot reach the Kubernetes API at " + url + ": connection refused",
                ClusterErrors.message(listRecords(at(url)), url + "/"));
    }

    @Test
    void unknownHostIsNamedFromTheUrl() {
        String url = "https://nonexistent.invalid:6443";
        assertEquals("cannot reach the Kubernetes API at " + url + ": unknown host nonexistent.invalid",
                ClusterErrors.message(listRecords(at(url)), url + "/"));
    }

    /** No kubeconfig and no service account: fabric8 goes to the in-cluster name, which resolves only in a pod. */
    @Test
    void noKubeconfigIsSaidWhenTheInClusterDefaultDoesNotResolve() {
        assumeFalse(resolves(ClusterErrors.IN_CLUSTER_HOST), "this runs in a pod: the in-cluster name resolves");
        Config fallback = Config.empty();
        assertEquals("https://kubernetes.default.svc/", fallback.getMasterUrl(), "fabric8's default server");
        assertEquals("cannot reach the Kubernetes API at https://kubernetes.default.svc: unknown host "
                        + "kubernetes.default.svc (the in-cluster default: no kubeconfig was found in KUBECONFIG or "
                        + "~/.kube/config)",
                ClusterErrors.message(listRecords(fallback), fallback.getMasterUrl()));
    }

    @Test
    void untrustedCertificate() {
        String url = mockServer(true);
        assertEquals("TLS handshake with the Kubernetes API at " + url + " failed: its certificate is not signed by "
                        + "an authority the kubeconfig trusts (unable to find valid certification path to requested target)",
                ClusterErrors.message(listRecords(at(url)), url));
    }

    @Test
    void tlsToAPlainHttpServer() {
        String http = mockServer(false);
        String url = http.replace("http:", "https:");
        String message = ClusterErrors.message(listRecords(at(url)), url);
        assertTrue(message.startsWith("TLS handshake with the Kubernetes API at " + url + " failed: "), message);
        assertTrue(message.contains("SSL message"), "the JDK's reason is kept: " + message);
    }

    @Test
    void noAnswerInTime() throws IOException {
        // Accepted by the kernel (the backlog), never read or answered.
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String url = "http://127.0.0.1:" + silent.getLocalPort();
            Config config = new ConfigBuilder(Config.empty()).withMasterUrl(url).withRequestTimeout(300).build();
            assertEquals("no answer from the Kubernetes API at " + url + ": the request timed out",
                    ClusterErrors.message(listRecords(config), url));
        }
    }

    @Test
    void missingClientCertificate(@TempDir Path dir) {
        Path cert = dir.resolve("absent.crt");
        Config config = new ConfigBuilder(at("https://127.0.0.1:6443")).withClientCertFile(cert.toString())
                .withClientKeyFile(dir.resolve("absent.key").toString()).build();
        assertEquals("cannot connect to the Kubernetes API at https://127.0.0.1:6443: the kubeconfig names a missing "
                + "file: " + cert, ClusterErrors.message(listRecords(config), "https://127.0.0.1:6443/"));
    }

    @Test
    void unauthorized() {
        String url = mockServer(false);
        server.expect().get().withPath("/apis/gpu-detect.io/v1alpha1/gpucapacities")
                .andReturn(401, status(401, "Unauthorized", "Unauthorized")).once();
        assertEquals("the Kubernetes API at " + url + " answered 401 Unauthorized: it does not accept the credentials "
                + "(an expired token or certificate?)", ClusterErrors.message(listRecords(at(url)), url));
    }

    @Test
    void forbiddenKeepsTheServersWords() {
        String url = mockServer(false);
        String rbac = "gpucapacities.gpu-detect.io is forbidden: User \"system:serviceaccount:x:y\" cannot list "
                + "resource \"gpucapacities\" in API group \"gpu-detect.io\" at the cluster scope";
        server.expect().get().withPath("/apis/gpu-detect.io/v1alpha1/gpucapacities")
                .andReturn(403, status(403, "Forbidden", rbac)).once();
        assertEquals("the Kubernetes API at " + url + " answered 403 Forbidden: " + rbac + " (RBAC)",
                ClusterErrors.message(listRecords(at(url)), url));
    }

    /** What the API server answers for a group it does not serve: a plain-text 404. */
    @Test
    void crdNotInstalled() {
        String url = mockServer(false);
        server.expect().get().withPath("/apis/gpu-detect.io/v1alpha1/gpucapacities")
                .andReturn(404, "404 page not found\n").once();
        assertEquals("the GpuCapacity CRD is not installed in the cluster at " + url
                        + " (no gpucapacities.gpu-detect.io/v1alpha1): kubectl apply -f "
                        + "daemonset/crds/gpucapacities.gpu-detect.io-v1.yml",
                ClusterErrors.message(listRecords(at(url)), url));
        Path repository = Path.of(System.getProperty("gpudetect.crds", "../daemonset/crds")).getParent().getParent();
        assertTrue(Files.isRegularFile(repository.resolve(ClusterErrors.CRD_FILE)),
                "the message names the repository's CRD file: " + ClusterErrors.CRD_FILE);
    }

    @Test
    void notFoundElsewhereAsksWhetherItIsAnApiServer() {
        String url = mockServer(false);
        KubernetesClientException e = failure(at(url), client -> client.nodes().list());
        assertEquals("the Kubernetes API at " + url + " answered 404 Not Found for nodes (is it a Kubernetes API "
                + "server?)", ClusterErrors.message(e, url));
    }

    @Test
    void otherAnswersKeepTheStatusMessageOnOneLine() {
        String url = mockServer(false);
        server.expect().get().withPath("/apis/gpu-detect.io/v1alpha1/gpucapacities")
                .andReturn(500, status(500, "InternalError", "etcdserver:\n  request timed out")).once();
        assertEquals("the Kubernetes API at " + url + " answered 500: etcdserver: request timed out",
                ClusterErrors.message(listRecords(at(url)), url));
    }

    @Test
    void aClientSideFailureKeepsItsInnermostMessage() {
        String message = ClusterErrors.message(new KubernetesClientException("Operation: [list] failed.",
                new IllegalStateException("exec plugin aws: exit status 255")), "https://h:6443/");
        assertEquals("request to the Kubernetes API at https://h:6443 failed: exec plugin aws: exit status 255", message);
        assertFalse(message.contains("Operation"), message);
    }

    private static Status status(int code, String reason, String message) {
        return new StatusBuilder().withKind("Status").withApiVersion("v1").withStatus("Failure").withCode(code)
                .withReason(reason).withMessage(message).build();
    }

    private static boolean resolves(String host) {
        try {
            InetAddress.getByName(host);
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
