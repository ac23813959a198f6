package io.gpudetect.probe;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.Partition;
import io.gpudetect.model.Partitioning;
import java.util.ArrayList;
import java.util.List;

/**
 * Bounds what a tool's text can put into the inventory. A parser copies names and versions as printed,
 * so a broken or hostile tool could hand us a 100k-character product name or terminal escape sequences,
 * which would then flow into logs, tables and node labels. Every string field of a GPU is cut to
 * {@link #MAX_VALUE_CHARS} and stripped of control characters here, once for all probes, and each change
 * is reported; diagnostic messages, which quote the bad value, are cut to {@link #MAX_MESSAGE_CHARS}.
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
        String file = result.diagnostics().stream().map(Diagnostic::file).filter(f -> f != null)
                .findFirst().orElse(result.probe());
        Bounded bounded = apply(result.gpus(), result.probe(), file);
        List<Diagnostic> diagnostics = new ArrayList<>();
        result.diagnostics().stream().map(FieldLimits::bound).forEach(diagnostics::add);
        diagnostics.addAll(bounded.diagnostics());
        if (bounded.diagnostics().isEmpty() && diagnostics.equals(result.diagnostics())) {
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
        Gpu.Builder b = gpu.toBuilder(probe);
        // Re-setting a field through the builder would claim it for this probe; only changed ones are set.
        field("name", gpu.name(), changed, b::name);
        field("model", gpu.model(), changed, b::model);
        field("driverVersion", gpu.driverVersion(), changed, b::driverVersion);
        field("runtimeVersion", gpu.runtimeVersion(), changed, b::runtimeVersion);
        field("pciVendorId", gpu.pciVendorId(), changed, b::pciVendorId);
        field("pciDeviceId", gpu.pciDeviceId(), changed, b::pciDeviceId);
        field("pciSubsystemVendorId", gpu.pciSubsystemVendorId(), changed, b::pciSubsystemVendorId);
        field("pciSubsystemDeviceId", gpu.pciSubsystemDeviceId(), changed, b::pciSubsystemDeviceId);
        field("pciRevision", gpu.pciRevision(), changed, b::pciRevision);
        field("uuid", gpu.uuid(), changed, b::uuid);
        field("serial", gpu.serial(), changed, b::serial);
        field("boardPartNumber", gpu.boardPartNumber(), changed, b::boardPartNumber);
        field("interface", gpu.interfaceType(), changed, b::interfaceType);
        field("architecture", gpu.architecture(), changed, b::architecture);
        field("computeCapability", gpu.computeCapability(), changed, b::computeCapability);
        field("kernelDriver", gpu.kernelDriver(), changed, b::kernelDriver);
        if (gpu.partitioning() != null) {
            Partitioning p = bound(gpu.partitioning());
            if (!p.equals(gpu.partitioning())) {
                changed.add("partitioning");
                b.partitioning(p);
            }
        }
        if (gpu.health() != null) {
            Health h = bound(gpu.health());
            if (!h.equals(gpu.health())) {
                changed.add("health");
                b.health(h);
            }
        }
        return changed.isEmpty() ? gpu : b.build();
    }

    private static void field(String name, String value, List<String> changed, Setter setter) {
        if (value == null) {
            return;
        }
        String bounded = clean(value, MAX_VALUE_CHARS);
        if (!bounded.equals(value)) {
            changed.add(name);
            setter.set(bounded);
        }
    }

    @FunctionalInterface
    private interface Setter {
        Gpu.Builder set(String value);
    }

    private static Partitioning bound(Partitioning p) {
        List<Partition> instances = p.instances().stream()
                .map(i -> new Partition(clean(i.profile(), MAX_VALUE_CHARS), i.gpuInstanceId(), i.computeInstanceId(),
                        i.memoryMiB(), i.multiprocessors(), clean(i.uuid(), MAX_VALUE_CHARS)))
                .toList();
        return new Partitioning(clean(p.kind(), MAX_VALUE_CHARS), p.enabled(), p.pendingEnabled(), instances);
    }

    private static Health bound(Health h) {
        List<String> problems = h.problems().stream().limit(MAX_PROBLEMS)
                .map(s -> clean(s, MAX_MESSAGE_CHARS)).toList();
        return new Health(h.status(), h.eccUncorrectedErrors(), problems);
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
