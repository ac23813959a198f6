package io.gpudetect.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gpudetect.inventory.Inventories;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.labels.LabelProfiles;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.Profiles;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Random histories of a node: labels and an ownership annotation as others left them (keys under our own
 * prefixes that someone else wrote, GPU Feature Discovery's {@code nvidia.com/*}, garbage annotations),
 * then a sequence of passes (complete passes over every real inventory in {@code test-fixtures/}, passes
 * whose detection failed, timed out or was incomplete) with other writers editing the node in between. After
 * every pass the rules must hold:
 * <ul>
 *   <li>a label someone else wrote is never removed or changed;</li>
 *   <li>a failed or incomplete pass changes nothing at all;</li>
 *   <li>every key and value the agent writes is valid for Kubernetes, and so is the annotation (sorted,
 *       unique, valid keys, each present on the node);</li>
 *   <li>a complete pass converges: deciding again on the result changes nothing, and the agent's labels
 *       are exactly what the pass produced, less the keys others hold.</li>
 * </ul>
 * The seed is printed with a failure; {@code -Dgpudetect.seed=N} replays it.
 */
class LabelSyncPropertyTest {

    private static final List<Inventory> REAL = Fixtures.allBundles().stream().map(Fixtures::detect).toList();
    private static final List<String> PROFILES = List.of("gpu-detect", "nvidia", "amd", "akash");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
    private static final Pattern DNS_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern VALUE = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?");

    /** Keys other writers use: not ours, ours by prefix but written by hand, GFD's and the GPU operator's. */
    private static final List<String> FOREIGN_KEYS = List.of("kubernetes.io/hostname", "example.com/zone",
            "feature.node.kubernetes.io/pci-10de.present", "nvidia.com/gpu.product", "nvidia.com/gpu.count",
            "nvidia.com/gpu.present", "nvidia.com/gpu.memory", "nvidia.com/mig.capable", "amd.com/gpu.vram",
            "amd.com/gpu", "beta.amd.com/gpu.vram.32G", "beta.amd.com/cpu",
            "gpu-detect.io/gpu.count", "gpu-detect.io/gpu.model", "akash.network/gpu", "akash.network",
            "akash.network/capabilities.gpu.vendor.nvidia.model.a100", "gpu-detect.io/gpu.vendor.nvidia.count");
    private static final List<String> FOREIGN_VALUES = List.of("true", "1", "7", "Tesla-T4", "handmade", "16G", "a", "");
    private static final List<String> GARBAGE_ANNOTATIONS = List.of("", ",,,", " , ,", "not a key!!",
            "kubernetes.io/hostname,example.com/zone", "example.com/zone", "gpu-detect.io/", "/,//,a/b/c",
            "x".repeat(400), "nvidia.com/gpu.product, nvidia.com/gpu.count", "\u00e9t\u00e9/\u00e9t\u00e9",
            "amd.com/gpu,beta.amd.com/cpu,beta.amd.com/gpu.vram.32G");

    private static final List<String> OUR_PREFIXES = List.of("gpu-detect.io/", "nvidia.com/", "amd.com/gpu.",
            "beta.amd.com/gpu.", "akash.network/");
    /** The one key a profile writes without a prefix: Akash's mark of a node it manages. */
    private static final String AKASH_MARKER = "akash.network";

    private enum Kind { COMPLETE, FAILED, TIMED_OUT, FOREIGN_EDIT }

    @Test
    void randomHistoriesKeepEveryRule() {
        long seed = Long.getLong("gpudetect.seed", System.nanoTime());
        Random rnd = new Random(seed);
        int histories = 3000;
        int[] counts = new int[Kind.values().length];
        int patches = 0;
        for (int h = 0; h < histories; h++) {
            try {
                patches += history(rnd, counts);
            } catch (AssertionError e) {
                fail("history " + h + " with -Dgpudetect.seed=" + seed + ": " + e.getMessage(), e);
            }
        }
        System.out.println("PROPERTY seed=" + seed + " histories=" + histories + " inventories=" + REAL.size()
                + " complete=" + counts[0] + " failed=" + counts[1] + " timed-out/incomplete=" + counts[2]
                + " foreign-edits=" + counts[3] + " patches=" + patches);
        assertTrue(REAL.size() >= 40, "real inventories: " + REAL.size());
        assertTrue(patches > histories / 2, "the generator must make the agent write: " + patches);
    }

    /** One node's history; returns how many patches the agent made. */
    private static int history(Random rnd, int[] counts) {
        LabelProfiles profiles = randomProfiles(rnd);
        Map<String, String> labels = new HashMap<>();
        Map<String, String> annotations = new HashMap<>();
        Map<String, Boolean> byAgent = new HashMap<>();
        int n = rnd.nextInt(6);
        for (int i = 0; i < n; i++) {
            String k = pick(rnd, FOREIGN_KEYS);
            String v = pick(rnd, FOREIGN_VALUES);
            labels.put(k, v);
            byAgent.put(k, false);
        }
        if (rnd.nextInt(3) > 0) {
            String annotation = pick(rnd, GARBAGE_ANNOTATIONS);
            annotations.put(OwnedLabels.ANNOTATION, annotation);
            // The annotation is the agent's memory: a key it lists under one of our profiles' prefixes counts as
            // written by the agent (a previous run); anything else it lists is garbage and stays someone else's.
            for (String k : annotation.split(",")) {
                if (labels.containsKey(k.strip()) && (OUR_PREFIXES.stream().anyMatch(k.strip()::startsWith)
                        || k.strip().equals(AKASH_MARKER))) {
                    byAgent.put(k.strip(), true);
                }
            }
        }
        annotations.put("node.alpha.kubernetes.io/ttl", "0");
        int patches = 0;
        int steps = 1 + rnd.nextInt(8);
        for (int s = 0; s < steps; s++) {
            Kind kind = Kind.values()[rnd.nextInt(Kind.values().length)];
            counts[kind.ordinal()]++;
            if (kind == Kind.FOREIGN_EDIT) {
                foreignEdit(rnd, labels, annotations, byAgent);
                continue;
            }
            Inventory inventory = pick(rnd, REAL);
            if (kind == Kind.TIMED_OUT) {
                inventory = timedOut(inventory);
            }
            // A failed detection renders nothing: the agent decides with an empty map and "incomplete".
            SortedMap<String, String> desired = kind == Kind.FAILED ? new TreeMap<>() : profiles.render(inventory);
            boolean complete = kind == Kind.COMPLETE && inventory.complete();
            Map<String, String> labelsBefore = new HashMap<>(labels);
            Map<String, String> annotationsBefore = new HashMap<>(annotations);
            String where = kind + " " + inventory.source() + " profiles=" + profiles.names() + " labels=" + labelsBefore
                    + " annotations=" + annotationsBefore + " desired=" + desired;

            LabelChange change = LabelSync.decide(labels, annotations, desired, complete, Profiles.MAY_REMOVE);
            if (change instanceof LabelChange.Patch p) {
                patches++;
                p.set().forEach((k, v) -> {
                    assertValidKey(k, where);
                    assertTrue(v.length() <= 63 && VALUE.matcher(v).matches(), "invalid value " + k + "=" + v + ": " + where);
                    labels.put(k, v);
                    byAgent.put(k, true);
                });
                p.remove().forEach(labels::remove);
                if (p.ownedAnnotation() != null) {
                    annotations.put(OwnedLabels.ANNOTATION, p.ownedAnnotation());
                }
            }
            if (!complete) {
                assertInstanceOf(LabelChange.None.class, change, "an incomplete pass writes nothing: " + where);
            }
            // Someone else's labels: never removed, never changed.
            labelsBefore.forEach((k, v) -> {
                if (!byAgent.getOrDefault(k, false)) {
                    assertEquals(v, labels.get(k), "someone else's " + k + " touched: " + where);
                }
            });
            if (change instanceof LabelChange.Patch p) {
                // Every key the annotation lists is valid, present, and was written by the agent.
                String text = annotations.get(OwnedLabels.ANNOTATION);
                List<String> listed = text.isEmpty() ? List.of() : List.of(text.split(","));
                assertEquals(new ArrayList<>(new TreeSet<>(listed)), listed, "sorted and unique: " + text);
                for (String k : listed) {
                    assertValidKey(k, where);
                    assertTrue(labels.containsKey(k) && byAgent.get(k), "listed " + k + " is ours and there: " + where);
                }
                // Ours now: exactly what the pass produced, less the keys others hold.
                SortedSet<String> expected = new TreeSet<>(desired.keySet());
                expected.removeIf(k -> !byAgent.getOrDefault(k, false));
                assertEquals(expected, new TreeSet<>(listed), where);
                assertInstanceOf(LabelChange.None.class, LabelSync.decide(labels, annotations, desired, true,
                        Profiles.MAY_REMOVE),
                        "converged: " + where);
            }
        }
        return patches;
    }

    /**
     * kubectl label, GFD, or an admin removing one of our labels by hand. Other writers set keys the annotation
     * does not list: a hand edit of a key the agent owns is, by the ownership contract, an edit of the agent's
     * label, which the next complete pass puts back or withdraws.
     */
    private static void foreignEdit(Random rnd, Map<String, String> labels, Map<String, String> annotations,
                                    Map<String, Boolean> byAgent) {
        String k0 = pick(rnd, FOREIGN_KEYS);
        String listed = "," + annotations.getOrDefault(OwnedLabels.ANNOTATION, "").replace(" ", "") + ",";
        if ((rnd.nextBoolean() || labels.isEmpty()) && !listed.contains("," + k0 + ",")) {
            String k = k0;
            labels.put(k, pick(rnd, FOREIGN_VALUES));
            byAgent.put(k, false);
        } else if (!labels.isEmpty()) {
            String k = pick(rnd, new ArrayList<>(labels.keySet()));
            labels.remove(k);
            byAgent.remove(k);
        }
    }

    /** The same inventory as a pass in which nvidia-smi timed out: what the other probes saw, marked incomplete. */
    private static Inventory timedOut(Inventory inventory) {
        List<Inventory.ProbeSummary> probes = new ArrayList<>(inventory.probes());
        probes.add(new Inventory.ProbeSummary("nvidia-smi-xml", ProbeResult.Outcome.FAILED, 0));
        List<Diagnostic> diagnostics = new ArrayList<>(inventory.diagnostics());
        diagnostics.add(Diagnostic.error("nvidia-smi-xml", "nvidia-smi.xml", null, "nvidia-smi timed out after 5s"));
        List<io.gpudetect.model.Gpu> gpus = inventory.gpus().isEmpty() ? List.of()
                : inventory.gpus().subList(0, inventory.gpus().size() / 2);
        return Inventories.of(inventory.source(), gpus, probes, diagnostics);
    }

    private static LabelProfiles randomProfiles(Random rnd) {
        List<String> chosen = new ArrayList<>();
        for (String p : PROFILES) {
            if (rnd.nextBoolean()) {
                chosen.add(p);
            }
        }
        return Profiles.of(chosen.isEmpty() ? "none" : String.join(",", chosen));
    }

    /** {@code prefix/name}: a DNS subdomain of at most 253 characters, a name of at most 63; or Akash's marker. */
    private static void assertValidKey(String key, String where) {
        if (key.equals(AKASH_MARKER)) {
            return;
        }
        int slash = key.indexOf('/');
        assertTrue(slash > 0, "key without prefix " + key + ": " + where);
        String prefix = key.substring(0, slash);
        String name = key.substring(slash + 1);
        assertTrue(prefix.length() <= 253 && DNS_SUBDOMAIN.matcher(prefix).matches(), "bad prefix " + key + ": " + where);
        assertTrue(name.length() <= 63 && NAME.matcher(name).matches(), "bad name " + key + ": " + where);
    }

    private static <T> T pick(Random rnd, List<T> from) {
        return from.get(rnd.nextInt(from.size()));
    }

}
