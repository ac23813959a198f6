package io.gpudetect.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.testing.Profiles;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@link LabelSync#decide} over every combination, for three keys, of: what the node carries (absent, the
 * desired value, another value), whether our annotation lists the key, whether the pass produces it, and
 * whether the pass was complete; plus whether the annotation exists at all. 3^3 x 2^3 x 2^3 x 2 x 2 cases.
 * {@link LabelSyncPropertyTest} runs long random sequences of passes over real inventories.
 */
class LabelSyncTest {

    private static final List<String> KEYS = List.of("gpu-detect.io/a", "gpu-detect.io/b", "nvidia.com/gpu.product");

    private record Case(Map<String, String> labels, Map<String, String> annotations, SortedMap<String, String> desired,
                        boolean complete) {
    }

    private static List<Case> allCases() {
        List<Case> cases = new ArrayList<>();
        int n = KEYS.size();
        for (int nodeState = 0; nodeState < 27; nodeState++) {
            for (int ownedMask = 0; ownedMask < 8; ownedMask++) {
                for (int desiredMask = 0; desiredMask < 8; desiredMask++) {
                    for (int annotationPresent = 0; annotationPresent < 2; annotationPresent++) {
                        if (annotationPresent == 0 && ownedMask != 0) {
                            continue;
                        }
                        for (boolean complete : new boolean[] {true, false}) {
                            Map<String, String> labels = new HashMap<>();
                            labels.put("example.com/zone", "a"); // someone else's, always there
                            int s = nodeState;
                            SortedMap<String, String> desired = new TreeMap<>();
                            TreeSet<String> owned = new TreeSet<>();
                            for (int i = 0; i < n; i++) {
                                String k = KEYS.get(i);
                                int state = s % 3;
                                s /= 3;
                                if (state == 1) {
                                    labels.put(k, "want");
                                } else if (state == 2) {
                                    labels.put(k, "other");
                                }
                                if ((desiredMask & (1 << i)) != 0) {
                                    desired.put(k, "want");
                                }
                                if ((ownedMask & (1 << i)) != 0) {
                                    owned.add(k);
                                }
                            }
                            Map<String, String> annotations = new HashMap<>();
                            annotations.put("example.com/note", "x");
                            if (annotationPresent == 1) {
                                annotations.put(OwnedLabels.ANNOTATION, OwnedLabels.format(owned));
                            }
                            cases.add(new Case(labels, annotations, desired, complete));
                        }
                    }
                }
            }
        }
        return cases;
    }

    @Test
    void everyCaseFollowsTheRules() {
        List<Case> cases = allCases();
        assertEquals(27 * (8 * 8 + 8) * 2, cases.size());
        int patches = 0;
        for (Case c : cases) {
            LabelChange change = LabelSync.decide(c.labels, c.annotations, c.desired, c.complete, Profiles.MAY_REMOVE);
            String where = c.toString();
            if (!c.complete) {
                assertInstanceOf(LabelChange.None.class, change, "incomplete pass writes nothing: " + where);
                continue;
            }
            var owned = OwnedLabels.parse(c.annotations);
            Map<String, String> after = apply(c.labels, change);
            // Every desired label ends up with its value, unless someone else holds the key: theirs stays.
            c.desired.forEach((k, v) -> assertEquals(c.labels.containsKey(k) && !owned.contains(k) ? c.labels.get(k) : v,
                    after.get(k), "desired " + k + ": " + where));
            // A label we do not own is never changed.
            c.labels.forEach((k, v) -> {
                if (!owned.contains(k) && after.containsKey(k)) {
                    assertEquals(v, after.get(k), "someone else's " + k + " changed: " + where);
                }
            });
            // A key is removed only if we own it and no longer produce it.
            for (String k : c.labels.keySet()) {
                if (!after.containsKey(k)) {
                    assertTrue(owned.contains(k) && !c.desired.containsKey(k), "removed " + k + " wrongly: " + where);
                }
            }
            // Every owned key the pass no longer produces is gone; everything else stays.
            for (String k : owned) {
                if (!c.desired.containsKey(k)) {
                    assertFalse(after.containsKey(k), "stale owned " + k + " kept: " + where);
                }
            }
            assertEquals("a", after.get("example.com/zone"), "others' labels survive: " + where);
            if (change instanceof LabelChange.Patch p) {
                patches++;
                // Exactly the difference: nothing set that already had its value, nothing removed that was absent.
                p.set().forEach((k, v) -> assertFalse(v.equals(c.labels.get(k)), "no-op set of " + k + ": " + where));
                p.remove().forEach(k -> assertTrue(c.labels.containsKey(k), "removal of absent " + k + ": " + where));
                Map<String, String> annotationsAfter = new HashMap<>(c.annotations);
                if (p.ownedAnnotation() != null) {
                    annotationsAfter.put(OwnedLabels.ANNOTATION, p.ownedAnnotation());
                }
                TreeSet<String> ours = new TreeSet<>(c.desired.keySet());
                ours.removeIf(k -> c.labels.containsKey(k) && !owned.contains(k));
                assertEquals(ours, OwnedLabels.parse(annotationsAfter),
                        "afterwards we own exactly what we produce, less what others hold: " + where);
                // Applying the patch converges: deciding again on the result changes nothing.
                assertInstanceOf(LabelChange.None.class, LabelSync.decide(after, annotationsAfter, c.desired, true, Profiles.MAY_REMOVE),
                        "second decision after the patch: " + where);
            } else {
                assertEquals(c.labels, after);
            }
        }
        assertTrue(patches > 0);
    }

    @Test
    void ownedKeysUnderAConfiguredPrefixAreWithdrawnAndGarbageKeysNever() {
        var profiles = Profiles.of("gpu-detect", "gpus.example.com");
        Map<String, String> labels = Map.of("gpus.example.com/gpu.model", "t4", "kubernetes.io/hostname", "n1",
                "gpu-detect.io/gpu.model", "t4");
        Map<String, String> annotations = Map.of(OwnedLabels.ANNOTATION,
                "gpu-detect.io/gpu.model,gpus.example.com/gpu.model,kubernetes.io/hostname");
        SortedMap<String, String> desired = new TreeMap<>(Map.of("gpus.example.com/gpu.count", "0"));
        LabelChange.Patch p = assertInstanceOf(LabelChange.Patch.class,
                LabelSync.decide(labels, annotations, desired, true, profiles::mayRemove));
        assertEquals(new TreeSet<>(List.of("gpu-detect.io/gpu.model", "gpus.example.com/gpu.model")), p.remove(),
                "the configured and the default prefix are ours; kubernetes.io/hostname, though listed, is not");
        assertEquals("gpus.example.com/gpu.count", p.ownedAnnotation());
        LabelChange.Patch defaults = assertInstanceOf(LabelChange.Patch.class,
                LabelSync.decide(labels, annotations, desired, true, Profiles.MAY_REMOVE));
        assertEquals(new TreeSet<>(List.of("gpu-detect.io/gpu.model")), defaults.remove());
    }

    @Test
    void nothingChangedMeansNoPatch() {
        SortedMap<String, String> desired = new TreeMap<>(Map.of("gpu-detect.io/gpu.count", "2"));
        Map<String, String> annotations = Map.of(OwnedLabels.ANNOTATION, "gpu-detect.io/gpu.count");
        assertInstanceOf(LabelChange.None.class,
                LabelSync.decide(Map.of("gpu-detect.io/gpu.count", "2"), annotations, desired, true, Profiles.MAY_REMOVE));
    }

    @Test
    void aGpuLessFirstPassWritesTheCountAndTheAnnotation() {
        SortedMap<String, String> desired = new TreeMap<>(Map.of("gpu-detect.io/gpu.count", "0"));
        LabelChange.Patch p = assertInstanceOf(LabelChange.Patch.class, LabelSync.decide(Map.of(), null, desired, true, Profiles.MAY_REMOVE));
        assertEquals(desired, p.set());
        assertEquals("gpu-detect.io/gpu.count", p.ownedAnnotation());
    }

    @Test
    void jsonPatchGuardsTheResourceVersionAndEscapesSlashes() {
        LabelChange.Patch p = new LabelChange.Patch(new TreeMap<>(Map.of("a/x", "1")), new TreeSet<>(List.of("a/y")),
                "a/x");
        assertEquals("[{\"op\":\"replace\",\"path\":\"/metadata/resourceVersion\",\"value\":\"42\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/labels/a~1x\",\"value\":\"1\"},"
                + "{\"op\":\"remove\",\"path\":\"/metadata/labels/a~1y\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/gpu-detect.io~1owned-labels\",\"value\":\"a/x\"}]",
                NodeLabelSink.jsonPatch(p, "42", true, true));
        assertEquals("[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"a/x\":\"1\"}},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":{\"gpu-detect.io/owned-labels\":\"a/x\"}}]",
                NodeLabelSink.jsonPatch(new LabelChange.Patch(p.set(), new TreeSet<>(), "a/x"), null, false, false));
    }

    @Test
    void mergePatchCarriesTheResourceVersionAndNullsForRemovals() {
        LabelChange.Patch p = new LabelChange.Patch(new TreeMap<>(Map.of("a/x", "1")), new TreeSet<>(List.of("a/y")), null);
        assertEquals("{\"metadata\":{\"resourceVersion\":\"42\",\"labels\":{\"a/x\":\"1\",\"a/y\":null}}}",
                NodeLabelSink.mergePatch(p, "42"));
        assertNull(p.ownedAnnotation());
    }

    private static Map<String, String> apply(Map<String, String> labels, LabelChange change) {
        Map<String, String> out = new HashMap<>(labels);
        if (change instanceof LabelChange.Patch p) {
            out.putAll(p.set());
            p.remove().forEach(out::remove);
        }
        return out;
    }
}
