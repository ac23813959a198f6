package io.gpudetect.k8s;

import io.gpudetect.labels.AkashProfile;
import io.gpudetect.labels.AmdProfile;
import io.gpudetect.labels.GpuDetectProfile;
import io.gpudetect.labels.NvidiaProfile;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
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
 * the NFD outputs and {@code --dry-run}.
 */
public final class OwnedLabels {

    public static final String ANNOTATION = "gpu-detect.io/owned-labels";

    /**
     * The prefixes our profiles write under. A key the annotation lists outside them (a hand-edited or
     * garbled annotation naming {@code kubernetes.io/hostname}, or {@code amd.com/gpu}, which AMD's users set by
     * hand) is never removed: the agent cannot have written it.
     */
    static final List<String> PREFIXES = prefixes();

    private static List<String> prefixes() {
        List<String> prefixes = new java.util.ArrayList<>(List.of(GpuDetectProfile.PREFIX + "/", NvidiaProfile.PREFIX + "/"));
        prefixes.addAll(AmdProfile.KEY_PREFIXES);
        prefixes.add(AkashProfile.PREFIX + "/");
        return List.copyOf(prefixes);
    }

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

    /**
     * Whether a listed key is one the agent could have written, and so may withdraw: under one of
     * {@link #PREFIXES}, or the {@code akash} profile's key without a prefix, {@code akash.network}.
     */
    public static boolean mayRemove(String key) {
        return PREFIXES.stream().anyMatch(key::startsWith) || key.equals(AkashProfile.PREFIX);
    }

    public static String format(Collection<String> keys) {
        return String.join(",", new TreeSet<>(keys));
    }
}
