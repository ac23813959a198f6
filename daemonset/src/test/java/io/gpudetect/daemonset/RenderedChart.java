package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The text {@code helm template} produced and every object in it, parsed by fabric8 into its typed
 * model (a {@code DaemonSet}, a {@code ClusterRole}, ...), so a misspelt field fails the parse instead
 * of passing unnoticed.
 */
record RenderedChart(String text, List<HasMetadata> objects) {

    private static final Pattern DOCUMENT_SEPARATOR = Pattern.compile("(?m)^---\\s*$");
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    static RenderedChart parse(String text) {
        List<HasMetadata> objects = new ArrayList<>();
        for (String document : DOCUMENT_SEPARATOR.split(text)) {
            if (isOnlyComments(document)) {
                continue;
            }
            objects.add(SERIALIZATION.unmarshal(document, HasMetadata.class));
        }
        return new RenderedChart(text, List.copyOf(objects));
    }

    private static boolean isOnlyComments(String document) {
        return document.lines().map(String::strip).allMatch(line -> line.isEmpty() || line.startsWith("#"));
    }

    /** The one object of this type and name; fails the test when there is none or more than one. */
    <T extends HasMetadata> T the(Class<T> type, String name) {
        List<T> found = all(type).stream().filter(o -> o.getMetadata().getName().equals(name)).toList();
        assertEquals(1, found.size(), () -> "expected one " + type.getSimpleName() + " named " + name + " in:\n" + kinds());
        return found.get(0);
    }

    <T extends HasMetadata> List<T> all(Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** "Kind/name" of every object, in render order: what a test prints when an object is missing. */
    List<String> kinds() {
        return objects.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList();
    }
}
