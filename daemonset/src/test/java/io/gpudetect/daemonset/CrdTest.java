package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The GpuCapacity CRD: {@code daemonset/crds/} holds the file generated from the agent's Java model; the
 * chart must install exactly that (Helm reads it through {@code chart/gpu-detect/crds -> ../../crds}),
 * and the RBAC rules must name its group and plural.
 */
class CrdTest {

    static List<Path> crdFiles() throws IOException {
        try (Stream<Path> files = Files.list(Chart.MODULE.resolve("crds"))) {
            return files.filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml")).sorted().toList();
        }
    }

    static CustomResourceDefinition committedCrd() throws IOException {
        List<Path> files = crdFiles();
        assertEquals(1, files.size(), "one CRD file in daemonset/crds: " + files);
        return RenderedChart.parse(Files.readString(files.get(0))).the(CustomResourceDefinition.class, "gpucapacities.gpu-detect.io");
    }

    @Test
    void chartInstallsTheCrdGeneratedFromTheModel() throws IOException {
        RenderedChart shown = RenderedChart.parse(Chart.crdsText());
        assertEquals(List.of("CustomResourceDefinition/gpucapacities.gpu-detect.io"), shown.kinds());
        assertEquals(committedCrd(), shown.the(CustomResourceDefinition.class, "gpucapacities.gpu-detect.io"));
    }

    @Test
    void crdIsTheClusterScopedKindTheRoleNames() throws IOException {
        CustomResourceDefinition crd = committedCrd();
        assertEquals("gpu-detect.io", crd.getSpec().getGroup());
        assertEquals("GpuCapacity", crd.getSpec().getNames().getKind());
        assertEquals("Cluster", crd.getSpec().getScope());
        String plural = crd.getSpec().getNames().getPlural();
        List<String> granted = Chart.render().the(ClusterRole.class, Chart.RELEASE).getRules().stream()
                .filter(r -> r.getApiGroups().contains(crd.getSpec().getGroup()))
                .flatMap(r -> r.getResources().stream()).sorted().toList();
        assertEquals(List.of(plural, plural + "/status"), granted);
    }
}
