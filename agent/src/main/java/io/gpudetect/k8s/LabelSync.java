package io.gpudetect.k8s;

import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The one rule for changing node labels, as a pure function so it can be tested case by case:
 * <ul>
 *   <li>an incomplete pass (a probe failed or timed out) changes nothing: a partial view must neither
 *       withdraw a label (GFD 796, NFD 1802) nor overwrite a good value with a partial one (a count of 0
 *       because {@code nvidia-smi} hung);</li>
 *   <li>a complete pass sets every desired label whose value differs, and removes only keys the owned-labels
 *       annotation lists that the pass no longer produces; keys anyone else wrote are never touched;</li>
 *   <li>nothing at all is written when nothing differs.</li>
 * </ul>
 */
public final class LabelSync {

    private LabelSync() {
    }

    public static LabelChange decide(Map<String, String> currentLabels, Map<String, String> currentAnnotations,
                                     SortedMap<String, String> desired, boolean passComplete) {
        if (!passComplete) {
            return new LabelChange.None("pass incomplete: labels kept as they are");
        }
        Map<String, String> labels = currentLabels == null ? Map.of() : currentLabels;
        SortedSet<String> owned = OwnedLabels.parse(currentAnnotations);
        SortedMap<String, String> set = new TreeMap<>();
        desired.forEach((k, v) -> {
            if (!v.equals(labels.get(k))) {
                set.put(k, v);
            }
        });
        SortedSet<String> remove = new TreeSet<>();
        for (String k : owned) {
            if (!desired.containsKey(k) && labels.containsKey(k)) {
                remove.add(k);
            }
        }
        String ownedAfter = OwnedLabels.format(desired.keySet());
        String currentAnnotation = currentAnnotations == null ? null : currentAnnotations.get(OwnedLabels.ANNOTATION);
        boolean annotationChanges = !ownedAfter.equals(currentAnnotation == null ? "" : currentAnnotation)
                && !(ownedAfter.isEmpty() && currentAnnotation == null);
        if (set.isEmpty() && remove.isEmpty() && !annotationChanges) {
            return new LabelChange.None("node labels up to date");
        }
        return new LabelChange.Patch(set, remove, annotationChanges ? ownedAfter : null);
    }
}
