package io.gpudetect.daemonset;

import java.util.Arrays;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What {@code daemonset/manifests/} must hold, made fresh from the chart: {@code gpu-detect.yaml} is the
 * CRD followed by a render with default values; {@code admission-policy.yaml} is the policy a render
 * leaves out when it cannot ask a cluster whether the API exists. Regenerate with
 * {@code mvn -q -B test -pl daemonset -Dgpudetect.updateManifests=true}.
 */
final class PlainManifests {

    static final String MAIN_FILE = "gpu-detect.yaml";
    static final String POLICY_FILE = "admission-policy.yaml";
    private static final String POLICY_SOURCE = "# Source: gpu-detect/templates/admissionpolicy.yaml";
    private static final Pattern DOCUMENT_SEPARATOR = Pattern.compile("(?m)^---\\s*$");

    private PlainManifests() {
    }

    static String main() {
        return header("kubectl create namespace " + Chart.NAMESPACE + " && kubectl apply --server-side -f " + MAIN_FILE,
                "the GpuCapacity CRD, then a render of chart/gpu-detect with default values")
                + Chart.crdsText().strip() + "\n" + Chart.renderDefaultText();
    }

    static String admissionPolicy() {
        String rendered = Chart.renderText("admissionPolicy:\n  requireApi: false\n");
        String policies = Arrays.stream(DOCUMENT_SEPARATOR.split(rendered))
                .filter(document -> document.strip().startsWith(POLICY_SOURCE))
                .map(document -> "---\n" + document.strip() + "\n")
                .collect(Collectors.joining());
        return header("kubectl apply -f " + POLICY_FILE + "   # Kubernetes 1.30+, after " + MAIN_FILE,
                "the ValidatingAdmissionPolicy objects of chart/gpu-detect (default values)") + policies;
    }

    private static String header(String apply, String what) {
        return "# Generated from daemonset/chart/gpu-detect by PlainManifestsTest: do not edit; edit the chart and run\n"
                + "#   mvn -q -B test -pl daemonset -Dgpudetect.updateManifests=true\n"
                + "# Holds " + what + " (release and namespace \"" + Chart.NAMESPACE + "\").\n"
                + "# Apply: " + apply + "\n";
    }
}
