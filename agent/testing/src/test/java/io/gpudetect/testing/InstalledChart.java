package io.gpudetect.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What a provider applies from {@code daemonset/manifests/gpu-detect.yaml} (rendered from the chart with its
 * defaults), less the DaemonSet itself: the GpuCapacity CRD, the namespace, the service account and its
 * ClusterRole and binding, and the Role and binding that let it post Events in the namespace default (the health
 * Events, on by default). Tests then act as that service account, so RBAC is the chart's, exactly.
 */
public final class InstalledChart {

    public static final String NAMESPACE = "gpu-detect";
    public static final String SERVICE_ACCOUNT = "gpu-detect";
    private static final Set<String> KINDS = Set.of("CustomResourceDefinition", "ServiceAccount", "ClusterRole",
            "ClusterRoleBinding", "Role", "RoleBinding");

    private InstalledChart() {
    }

    /** Applies the chart's objects (again: server-side apply is idempotent) and waits for the CRD. */
    public static void install(RealApiServer server) {
        Path manifests = Path.of(System.getProperty("gpudetect.manifests", "../daemonset/manifests"), "gpu-detect.yaml");
        try (KubernetesClient admin = server.adminClient(); InputStream in = Files.newInputStream(manifests)) {
            if (admin.namespaces().withName(NAMESPACE).get() == null) {
                admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata()
                        .build()).create();
            }
            List<HasMetadata> objects = admin.load(in).items().stream().filter(o -> KINDS.contains(o.getKind())).toList();
            if (objects.size() != KINDS.size()) {
                throw new IllegalStateException(manifests + ": expected one each of " + KINDS + ", found "
                        + objects.stream().map(HasMetadata::getKind).toList());
            }
            for (HasMetadata o : objects) {
                admin.resource(o).forceConflicts().serverSideApply();
            }
            admin.apiextensions().v1().customResourceDefinitions().withName("gpucapacities.gpu-detect.io")
                    .waitUntilCondition(InstalledChart::established, 30, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The agent's configuration: the chart's service account, with a token from the TokenRequest API. */
    public static Config agentConfig(RealApiServer server) {
        return server.serviceAccountConfig(NAMESPACE, SERVICE_ACCOUNT);
    }

    /** The user name the API server (and its audit log) knows the agent by. */
    public static String agentUser() {
        return "system:serviceaccount:" + NAMESPACE + ":" + SERVICE_ACCOUNT;
    }

    private static boolean established(CustomResourceDefinition crd) {
        return crd != null && crd.getStatus() != null && crd.getStatus().getConditions().stream()
                .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
