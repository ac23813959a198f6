package io.gpudetect.k8s;

import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The one rule for changing node labels, as a pure function so it can be tested case by case:
 * <ul>
 *   <li>an incomplete pass (a probe failed or timed out) changes nothing: a partial view must neither
 *       withdraw a label (GFD 796, NFD 1802) nor overwrite a good value with a partial one (a count of 0
 *       because {@code nvidia-smi} hung);</li>
 *   <li>a complete pass sets every desired label that is missing, or that the owned-labels annotation lists
 *       and whose value differs; it removes only keys the annotation lists, under one of our profiles'
 *       prefixes, that the pass no longer produces;</li>
 *   <li>a label someone else wrote is never changed or removed, even when a profile produces the same key
 *       (GPU Feature Discovery's {@code nvidia.com/gpu.*}, the GPU operator's {@code nvidia.com/gpu.present},
 *       a hand-set {@code gpu-detect.io/...}): it is left as they set it and not claimed, so the agent
 *       neither fights another writer nor removes its key later;</li>
 *   <li>nothing at all is written when nothing differs.</li>
 * </ul>
 */
public final class LabelSync {

    private LabelSync() {
    }

    /**
     * @param mayRemove whether a key the annotation lists is under a prefix the agent writes (with
     *                  {@code --prefix}, the configured one: {@code LabelProfiles.mayRemove}); keys outside are never
     *                  removed
     */
    public static LabelChange decide(Map<String, String> currentLabels, Map<String, String> currentAnnotations,
                                     SortedMap<String, String> desired, boolean passComplete,
                                     Predicate<String> mayRemove) {
        if (!passComplete) {
            return new LabelChange.None("pass incomplete: labels kept as they are");
        }
        Map<String, String> labels = currentLabels == null ? Map.of() : currentLabels;
        SortedSet<String> owned = OwnedLabels.parse(currentAnnotations);
        SortedMap<String, String> set = new TreeMap<>();
        SortedSet<String> ownedAfter = new TreeSet<>();
        desired.forEach((k, v) -> {
            String current = labels.get(k);
            if (current == null) {
                set.put(k, v);
                ownedAfter.add(k);
            } else if (owned.contains(k)) {
                if (!v.equals(current)) {
                    set.put(k, v);
                }
                ownedAfter.add(k);
            }
            // else: someone else's label under a key we would write; theirs stays, unclaimed.
        });
        SortedSet<String> remove = new TreeSet<>();
        for (String k : owned) {
            if (!desired.containsKey(k) && labels.containsKey(k) && mayRemove.test(k)) {
                remove.add(k);
            }
        }
        String ownedText = OwnedLabels.format(ownedAfter);
        String currentAnnotation = currentAnnotations == null ? null : currentAnnotations.get(OwnedLabels.ANNOTATION);
        boolean annotationChanges = !ownedText.equals(currentAnnotation == null ? "" : currentAnnotation)
                && !(ownedText.isEmpty() && currentAnnotation == null);
        if (set.isEmpty() && remove.isEmpty() && !annotationChanges) {
            return new LabelChange.None("node labels up to date");
        }
        return new LabelChange.Patch(set, remove, annotationChanges ? ownedText : null);
    }
}
