package io.gpudetect.k8s;

import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The annotation {@code gpu-detect.io/owned-labels} on the node: the comma-separated, sorted keys the agent
 * wrote. It is the agent's memory of what it may remove, and it lives on the node, so it survives restarts,
 * upgrades and a reinstall under another pod name.
 *
 * <p>Why an annotation and not server-side apply with a field manager: SSA would remove a key as soon as an
 * apply omits it, on any apply, complete pass or not, and it shares ownership silently when someone
 * {@code kubectl label}s the same key; the annotation keeps the removal rule in our own code (only after a
 * complete pass, only keys listed), is visible with {@code kubectl get node -o yaml}, and works the same for
 * the NFD outputs and {@code --dry-run}. Which listed keys the agent may withdraw at all is
 * {@code LabelProfiles.mayRemove}'s rule.
 */
public final class OwnedLabels {

    public static final String ANNOTATION = "gpu-detect.io/owned-labels";

    private OwnedLabels() {
    }

    /** The keys listed on a node's annotations; empty when the annotation is missing. */
    public static SortedSet<String> parse(Map<String, String> annotations) {
        String value = annotations == null ? null : annotations.get(ANNOTATION);
        if (value == null || value.isBlank()) {
            return new TreeSet<>();
        }
        return Arrays.stream(value.split(",")).map(String::strip).filter(s -> !s.isEmpty())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    public static String format(Collection<String> keys) {
        return String.join(",", new TreeSet<>(keys));
    }
}
