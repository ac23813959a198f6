package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Shortcuts into the rendered DaemonSet's pod: its one container, env by name, volumes and mounts. */
final class Pods {

    private Pods() {
    }

    static DaemonSet daemonSet(RenderedChart chart) {
        return chart.the(DaemonSet.class, Chart.RELEASE);
    }

    static PodSpec pod(RenderedChart chart) {
        return daemonSet(chart).getSpec().getTemplate().getSpec();
    }

    static Container agent(RenderedChart chart) {
        PodSpec pod = pod(chart);
        assertEquals(1, pod.getContainers().size(), "one container: the agent");
        return pod.getContainers().get(0);
    }

    static Map<String, EnvVar> env(RenderedChart chart) {
        return agent(chart).getEnv().stream().collect(Collectors.toMap(EnvVar::getName, Function.identity()));
    }

    static Map<String, VolumeMount> mountsByPath(RenderedChart chart) {
        return agent(chart).getVolumeMounts().stream()
                .collect(Collectors.toMap(VolumeMount::getMountPath, Function.identity()));
    }

    static Volume volume(RenderedChart chart, String name) {
        return pod(chart).getVolumes().stream().filter(v -> v.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no volume " + name));
    }

    /** The value of {@code --name=value} in the agent's arguments. */
    static Optional<String> arg(RenderedChart chart, String name) {
        String prefix = "--" + name + "=";
        return agent(chart).getArgs().stream().filter(a -> a.startsWith(prefix)).map(a -> a.substring(prefix.length()))
                .findFirst();
    }
}
