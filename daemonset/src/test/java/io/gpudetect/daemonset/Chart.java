package io.gpudetect.daemonset;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The chart in {@code daemonset/chart/gpu-detect}, rendered and linted by Helm's own Go code (helm-java
 * loads it as a native library; no helm binary, no cluster). Renders use the release name and namespace
 * the plain manifests are made with.
 */
final class Chart {

    static final String RELEASE = "gpu-detect";
    static final String NAMESPACE = "gpu-detect";
    /** Surefire runs in the module folder, {@code daemonset/}. */
    static final Path MODULE = Path.of("").toAbsolutePath();
    static final Path DIR = MODULE.resolve("chart/gpu-detect");
    /** Helm's offline default is v1.20, below the chart's kubeVersion; 1.30 is the oldest release the policy runs on. */
    static final String KUBE_VERSION = "1.30.0";

    private Chart() {
    }

    /** {@code helm template} with the chart's default values, CRDs included. */
    static RenderedChart render() {
        return RenderedChart.parse(template(null).call());
    }

    /** {@code helm template -f VALUES}: {@code valuesYaml} overrides the defaults as a user's values file would. */
    static RenderedChart render(String valuesYaml) {
        return RenderedChart.parse(renderText(valuesYaml));
    }

    static String renderText(String valuesYaml) {
        try {
            Path values = Files.createTempFile("gpu-detect-values", ".yaml");
            try {
                Files.writeString(values, valuesYaml);
                return template(values).call();
            } finally {
                Files.deleteIfExists(values);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String renderDefaultText() {
        return template(null).call();
    }

    /** {@code helm show crds}: the CRDs Helm installs from the chart's {@code crds/} folder before any template. */
    static String crdsText() {
        return new Helm(DIR).show().crds().call();
    }

    static LintResult lint(boolean strict) {
        var lint = new Helm(DIR).lint();
        return strict ? lint.strict().call() : lint.call();
    }

    private static TemplateCommand template(Path values) {
        TemplateCommand template = new Helm(DIR).template().withName(RELEASE).withNamespace(NAMESPACE)
                .withKubeVersion(KUBE_VERSION);
        return values == null ? template : template.withValuesFile(values);
    }
}
