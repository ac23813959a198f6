package io.gpudetect.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.crdv2.generator.CRDGenerator;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CRD in {@code daemonset/crds/} is generated from {@link GpuCapacity} by fabric8's CRD generator and
 * must equal a fresh generation. After changing the model, regenerate with
 * {@code mvn -q -B test -pl agent -am -Dtest=CrdGenerationTest -Dgpudetect.updateCrd=true -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class CrdGenerationTest {

    static final String FILE = GpuCapacity.CRD_NAME + "-v1.yml";

    @Test
    void committedCrdEqualsAFreshGeneration(@TempDir Path tmp) throws IOException {
        new CRDGenerator().customResourceClasses(GpuCapacity.class).forCRDVersions("v1")
                .inOutputDir(tmp.toFile()).generate();
        Path fresh = tmp.resolve(FILE);
        assertTrue(Files.isRegularFile(fresh), "generator wrote " + FILE);
        Path committed = Path.of(System.getProperty("gpudetect.crds", "../daemonset/crds")).resolve(FILE);
        if (Boolean.getBoolean("gpudetect.updateCrd")) {
            Files.createDirectories(committed.getParent());
            Files.copy(fresh, committed, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        assertTrue(Files.isRegularFile(committed), committed + " is missing: regenerate it (see this class's doc)");
        assertEquals(Files.readString(fresh), Files.readString(committed),
                "daemonset/crds/" + FILE + " is out of date with GpuCapacity: regenerate it");
    }

    @Test
    void crdIsClusterScopedWithStatusSubresource(@TempDir Path tmp) throws IOException {
        new CRDGenerator().customResourceClasses(GpuCapacity.class).forCRDVersions("v1")
                .inOutputDir(tmp.toFile()).generate();
        CustomResourceDefinition crd = Serialization.unmarshal(Files.readString(tmp.resolve(FILE)),
                CustomResourceDefinition.class);
        assertEquals("Cluster", crd.getSpec().getScope());
        assertEquals("gpucapacities.gpu-detect.io", crd.getMetadata().getName());
        var version = crd.getSpec().getVersions().get(0);
        assertEquals("v1alpha1", version.getName());
        assertTrue(version.getSubresources() != null && version.getSubresources().getStatus() != null,
                "status is a subresource, so spec and status are written separately");
        var spec = version.getSchema().getOpenAPIV3Schema().getProperties().get("spec").getProperties();
        assertTrue(spec.containsKey("gpus") && spec.containsKey("allocatable") && spec.containsKey("requested"),
                "spec schema lists the model's fields: " + spec.keySet());
        assertTrue(spec.get("gpus").getItems().getSchema().getProperties().containsKey("interface"),
                "GPU entries use the JSON name 'interface'");
    }
}
