package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
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
    void policyManifestHoldsThePoliciesAndBindings() throws IOException {
        RenderedChart parsed = RenderedChart.parse(check(PlainManifests.POLICY_FILE, PlainManifests.admissionPolicy()));
        assertEquals(6, parsed.objects().size(), parsed.kinds().toString());
        assertEquals(3, parsed.all(ValidatingAdmissionPolicy.class).size(), "the node, its status (the health condition), the record");
    }

    @Test
    void kustomizeBaseUsesThePlainManifests() throws IOException {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        JsonNode manifests = yaml.readTree(DIR.resolve("kustomization.yaml").toFile());
        assertEquals(2, manifests.get("resources").size());
        manifests.get("resources").forEach(r -> assertTrue(Files.isRegularFile(DIR.resolve(r.asText())), r.asText()));
        JsonNode base = yaml.readTree(Chart.MODULE.resolve("kustomize/kustomization.yaml").toFile());
        assertEquals("../manifests", base.get("resources").get(1).asText());
        assertEquals("ghcr.io/gpu-detect/gpu-detect", base.get("images").get(0).get("name").asText());
    }

    /**
     * {@code kubectl apply -k daemonset/kustomize} stands alone (issue 35): the base holds the Namespace that every
     * namespaced object of the plain manifests is rendered for, so no {@code kubectl create namespace} must come first.
     */
    @Test
    void kustomizeBaseCreatesTheNamespaceItsObjectsLiveIn() throws Exception {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        Path base = Chart.MODULE.resolve("kustomize");
        JsonNode kustomization = yaml.readTree(base.resolve("kustomization.yaml").toFile());
        List<String> resources = new ArrayList<>();
        kustomization.get("resources").forEach(r -> resources.add(r.asText()));
        assertTrue(resources.contains("namespace.yaml"), resources.toString());
        JsonNode namespace = yaml.readTree(base.resolve("namespace.yaml").toFile());
        assertEquals("Namespace", namespace.get("kind").asText());
        String name = namespace.get("metadata").get("name").asText();
        Set<String> used = new TreeSet<>();
        for (String file : List.of(PlainManifests.MAIN_FILE, PlainManifests.POLICY_FILE)) {
            for (HasMetadata o : RenderedChart.parse(Files.readString(DIR.resolve(file))).objects()) {
                if (o.getMetadata().getNamespace() == null) {
                    continue;
                }
                if (o.getMetadata().getNamespace().equals("default")) {
                    // health.events: Events about a Node go in default, where the kubelet posts its own; the
                    // agent's right to create them there is the one thing it holds in that namespace.
                    assertTrue(Set.of("Role", "RoleBinding").contains(o.getKind())
                            && o.getMetadata().getName().endsWith("-events"), o.getKind() + " " + o.getMetadata().getName()
                            + " lives in default");
                    continue;
                }
                used.add(o.getMetadata().getNamespace());
            }
        }
        assertEquals(Set.of(name), used, "the namespaces the plain manifests' objects live in (besides the Events Role)");
        // What kubectl itself builds from the base, where kubectl is installed (CI installs it).
        Optional<Path> kubectl = Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .map(d -> Path.of(d, "kubectl")).filter(Files::isExecutable).findFirst();
        if (kubectl.isEmpty()) {
            System.out.println("PlainManifestsTest: kubectl is not on PATH; the base was checked file by file only");
            return;
        }
        Process p = new ProcessBuilder(kubectl.get().toString(), "kustomize", base.toString()).redirectErrorStream(true).start();
        String built = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), built);
        List<HasMetadata> objects = RenderedChart.parse(built).objects();
        assertEquals("Namespace", objects.get(0).getKind(), "kubectl applies the namespace first");
        assertEquals(name, objects.get(0).getMetadata().getName());
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
