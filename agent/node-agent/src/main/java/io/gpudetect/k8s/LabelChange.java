package io.gpudetect.k8s;

import java.util.Collections;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the agent will do to the node's labels after a pass, decided before anything is sent: nothing,
 * or one patch with exactly the difference.
 */
public sealed interface LabelChange {

    /** Nothing to write: the node already carries what the pass produced, or the pass was incomplete. */
    record None(String reason) implements LabelChange {
    }

    /**
     * Set {@code set} (new or changed values), remove {@code remove} (keys we own that the pass no longer
     * produces) and, when {@code ownedAnnotation} is not null, record that list as the keys we own.
     */
    record Patch(SortedMap<String, String> set, SortedSet<String> remove, String ownedAnnotation) implements LabelChange {
        public Patch {
            set = Collections.unmodifiableSortedMap(new TreeMap<>(set));
            remove = Collections.unmodifiableSortedSet(new TreeSet<>(remove));
        }
    }
}
