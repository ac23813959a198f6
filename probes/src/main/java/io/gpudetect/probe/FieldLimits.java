package io.gpudetect.probe;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuField;
import io.gpudetect.model.Health;
import io.gpudetect.model.Partition;
import io.gpudetect.model.Partitioning;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Bounds what a tool's text can put into the inventory. A parser copies names and versions as printed,
 * so a broken or hostile tool could hand us a 100k-character product name or terminal escape sequences,
 * which would then flow into logs, tables and node labels. Every string field of a GPU is cut to
 * {@link #MAX_VALUE_CHARS} and stripped of control characters here, once for all probes, and each change
 * is reported; diagnostic messages, which quote the bad value, are cut to {@link #MAX_MESSAGE_CHARS}.
 *
 * <p>Without streams, and without a method reference per field, as the rest of the detection core: see
 * {@link io.gpudetect.inventory.Detector}.
 */
public final class FieldLimits {

    /** Longer than any real GPU name, version, serial or part number (the longest seen are ~60). */
    public static final int MAX_VALUE_CHARS = 256;
    /** Enough for a sentence that quotes a value. */
    public static final int MAX_MESSAGE_CHARS = 512;
    /** Problem lines per card: a real card has a handful. */
    public static final int MAX_PROBLEMS = 32;

    private static final char REPLACEMENT = '\uFFFD';

    /** The GPUs with every string bounded, and one warning per GPU that needed it. */
    public record Bounded(List<Gpu> gpus, List<Diagnostic> diagnostics) {
    }

    private FieldLimits() {
    }

    public static Bounded apply(List<Gpu> gpus, String probe, String file) {
        List<Gpu> out = new ArrayList<>(gpus.size());
        List<Diagnostic> notes = new ArrayList<>();
        for (Gpu gpu : gpus) {
            List<String> changed = new ArrayList<>();
            Gpu bounded = bound(gpu, probe, changed);
            if (!changed.isEmpty()) {
                notes.add(Diagnostic.warning(probe, file, null, "GPU " + describe(bounded) + ": "
                        + String.join(", ", changed) + " had control characters or more than " + MAX_VALUE_CHARS
                        + " characters; cut to fit"));
            }
            out.add(bounded);
        }
        return new Bounded(out, notes);
    }

    /**
     * A probe's result with its GPUs and diagnostics bounded. Warnings about cut values name the file of
     * the probe's own diagnostics, or the probe when it gave none.
     */
    public static ProbeResult apply(ProbeResult result) {
        String file = null;
        boolean diagnosticsChanged = false;
        List<Diagnostic> diagnostics = new ArrayList<>();
        for (Diagnostic d : result.diagnostics()) {
            if (file == null) {
                file = d.file();
            }
            Diagnostic bounded = bound(d);
            diagnosticsChanged |= bounded != d;
            diagnostics.add(bounded);
        }
        Bounded bounded = apply(result.gpus(), result.probe(), file == null ? result.probe() : file);
        diagnostics.addAll(bounded.diagnostics());
        if (bounded.diagnostics().isEmpty() && !diagnosticsChanged) {
            return result;
        }
        ProbeResult.Outcome outcome = result.outcome() == ProbeResult.Outcome.OK && !bounded.diagnostics().isEmpty()
                ? ProbeResult.Outcome.PARTIAL : result.outcome();
        return new ProbeResult(result.probe(), outcome, bounded.gpus(), diagnostics);
    }

    /** The diagnostic with its message cut to {@link #MAX_MESSAGE_CHARS} and control characters replaced. */
    public static Diagnostic bound(Diagnostic d) {
        String message = clean(d.message(), MAX_MESSAGE_CHARS);
        String file = d.file() == null ? null : clean(d.file(), MAX_VALUE_CHARS);
        if (message.equals(d.message()) && (file == null || file.equals(d.file()))) {
            return d;
        }
        return new Diagnostic(d.severity(), d.probe(), file, d.line(), message);
    }

    private static Gpu bound(Gpu gpu, String probe, List<String> changed) {
        // Only changed fields are set again: re-setting an unchanged one through the builder would claim it
        // for this probe.
        Gpu.Builder bounded = null;
        for (GpuField<String> field : GpuField.TEXT) {
            String cleaned = cleaned(field.name(), field.of(gpu), changed);
            if (cleaned != null) {
                bounded = (bounded == null ? gpu.toBuilder(probe) : bounded).set(field, cleaned);
            }
        }
        if (gpu.partitioning() != null) {
            Partitioning p = bound(gpu.partitioning());
            if (p != gpu.partitioning()) {
                changed.add(GpuField.PARTITIONING.name());
                bounded = (bounded == null ? gpu.toBuilder(probe) : bounded).partitioning(p);
            }
        }
        if (gpu.health() != null) {
            Health h = bound(gpu.health());
            if (h != gpu.health()) {
                changed.add(GpuField.HEALTH.name());
                bounded = (bounded == null ? gpu.toBuilder(probe) : bounded).health(h);
            }
        }
        return bounded == null ? gpu : bounded.build();
    }

    /** The value cleaned, when that changed it (noted in {@code changed}); else null. */
    private static String cleaned(String field, String value, List<String> changed) {
        if (value == null) {
            return null;
        }
        String bounded = clean(value, MAX_VALUE_CHARS);
        if (bounded.equals(value)) {
            return null;
        }
        changed.add(field);
        return bounded;
    }

    /** The partitioning with its strings cleaned; the same object when nothing needed it. */
    private static Partitioning bound(Partitioning p) {
        boolean same = true;
        List<Partition> instances = new ArrayList<>(p.instances().size());
        for (Partition i : p.instances()) {
            String profile = clean(i.profile(), MAX_VALUE_CHARS);
            String uuid = clean(i.uuid(), MAX_VALUE_CHARS);
            boolean cleaned = !Objects.equals(profile, i.profile()) || !Objects.equals(uuid, i.uuid());
            same &= !cleaned;
            instances.add(cleaned ? new Partition(profile, i.gpuInstanceId(), i.computeInstanceId(), i.memoryMiB(),
                    i.multiprocessors(), uuid) : i);
        }
        String kind = clean(p.kind(), MAX_VALUE_CHARS);
        String memoryMode = clean(p.memoryMode(), MAX_VALUE_CHARS);
        List<String> modes = bound(p.modes());
        List<String> memoryModes = bound(p.memoryModes());
        return same && Objects.equals(kind, p.kind()) && Objects.equals(memoryMode, p.memoryMode())
                && Objects.equals(modes, p.modes()) && Objects.equals(memoryModes, p.memoryModes()) ? p
                : new Partitioning(kind, p.enabled(), p.pendingEnabled(), instances, memoryMode, modes, memoryModes);
    }

    /** A list of mode names, each cleaned; null stays null. */
    private static List<String> bound(List<String> modes) {
        if (modes == null) {
            return null;
        }
        List<String> cleaned = new ArrayList<>(modes.size());
        for (String m : modes) {
            cleaned.add(clean(m, MAX_VALUE_CHARS));
        }
        return cleaned;
    }

    /** The health with at most {@link #MAX_PROBLEMS} problems, each cleaned; the same object when nothing needed it. */
    private static Health bound(Health h) {
        boolean same = h.problems().size() <= MAX_PROBLEMS;
        List<String> problems = new ArrayList<>(Math.min(h.problems().size(), MAX_PROBLEMS));
        for (String problem : h.problems()) {
            if (problems.size() == MAX_PROBLEMS) {
                break;
            }
            String cleaned = clean(problem, MAX_MESSAGE_CHARS);
            same &= Objects.equals(cleaned, problem);
            problems.add(cleaned);
        }
        return same ? h : new Health(h.status(), h.eccUncorrectedErrors(), problems, h.reasons());
    }

    /**
     * Control characters (C0, DEL, C1) become U+FFFD, as invalid UTF-8 already does when the text is
     * decoded; tabs and line breaks become spaces. Longer text is cut, never inside a surrogate pair, and ends in "...".
     */
    static String clean(String s, int max) {
        if (s == null) {
            return null;
        }
        StringBuilder b = null;
        int n = Math.min(s.length(), max + 1);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            char r = c == '\t' || c == '\n' || c == '\r' ? ' ' : isControl(c) ? REPLACEMENT : c;
            if (r != c && b == null) {
                b = new StringBuilder(n).append(s, 0, i);
            }
            if (b != null) {
                b.append(r);
            }
        }
        String cleaned = b == null ? s.substring(0, n) : b.toString();
        if (s.length() <= max) {
            return cleaned;
        }
        int cut = max - 3;
        if (Character.isHighSurrogate(cleaned.charAt(cut - 1))) {
            cut--;
        }
        return cleaned.substring(0, cut) + "...";
    }

    private static boolean isControl(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f);
    }

    private static String describe(Gpu gpu) {
        if (gpu.pciAddress() != null) {
            return gpu.pciAddress().toString();
        }
        if (gpu.uuid() != null) {
            return gpu.uuid();
        }
        return gpu.name() == null ? "(unnamed)" : "'" + gpu.name() + "'";
    }
}
