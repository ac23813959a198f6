package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code daemonset/manifests/} never drifts from the chart: each file equals a fresh render, byte for byte.
 * Run with {@code -Dgpudetect.updateManifests=true} to rewrite them after changing the chart.
 */
class PlainManifestsTest {

    private static final Path DIR = Chart.MODULE.resolve("manifests");
    private static final boolean UPDATE = Boolean.getBoolean("gpudetect.updateManifests");

    @Test
    void mainManifestIsTheCrdPlusADefaultRender() throws IOException {
        String fresh = check(PlainManifests.MAIN_FILE, PlainManifests.main());
        RenderedChart parsed = RenderedChart.parse(fresh);
        assertEquals(1, parsed.all(CustomResourceDefinition.class).size());
        assertEquals(1, parsed.all(DaemonSet.class).size());
    }

    @Test
    void policyManifestHoldsBothPoliciesAndBindings() throws IOException {
        RenderedChart parsed = RenderedChart.parse(check(PlainManifests.POLICY_FILE, PlainManifests.admissionPolicy()));
        assertEquals(4, parsed.objects().size(), parsed.kinds().toString());
        assertEquals(2, parsed.all(ValidatingAdmissionPolicy.class).size());
    }

    @Test
    void kustomizeBaseUsesThePlainManifests() throws IOException {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        JsonNode manifests = yaml.readTree(DIR.resolve("kustomization.yaml").toFile());
        assertEquals(2, manifests.get("resources").size());
        manifests.get("resources").forEach(r -> assertTrue(Files.isRegularFile(DIR.resolve(r.asText())), r.asText()));
        JsonNode base = yaml.readTree(Chart.MODULE.resolve("kustomize/kustomization.yaml").toFile());
        assertEquals("../manifests", base.get("resources").get(0).asText());
        assertEquals("ghcr.io/gpu-detect/gpu-detect", base.get("images").get(0).get("name").asText());
    }

    private static String check(String file, String fresh) throws IOException {
        Path path = DIR.resolve(file);
        if (UPDATE) {
            Files.writeString(path, fresh);
        }
        assertEquals(fresh, Files.readString(path),
                file + " differs from the chart: run mvn -q -B test -pl daemonset -Dgpudetect.updateManifests=true");
        return fresh;
    }
}
