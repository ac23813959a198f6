package io.gpudetect.inventory;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.source.Source;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Each GPU's memory kind, and a size for a GPU without memory of its own. A GPU is {@code unified} when a probe
 * said it uses the host's memory (an integrated GPU or APU: {@code sharedMemory}) or that it has none to report
 * (NVML answers "Not Supported" for the memory of GB10 and Jetson, and says so in {@code memoryKind}); it is
 * {@code dedicated} when it has a memory size of its own. A unified GPU with no size from any probe (GB10: NVML
 * gives none, nvidia-smi prints N/A) is given the host's memory ({@code MemTotal} of {@code /proc/meminfo}), which
 * is what the platform lets it use: NVIDIA's GPU Feature Discovery drops {@code gpu.memory} on such a GPU and
 * its DRA driver fails (dra-driver-nvidia-gpu #1073); a size of 0 or none would make it unschedulable.
 */
public final class UnifiedMemory {

    public static final String MEMINFO = "/proc/meminfo";
    /** The source named for a size taken from the host's memory. */
    public static final String SOURCE = "host-meminfo";
    private static final Pattern MEM_TOTAL = Pattern.compile("(?m)^MemTotal:\\s+(\\d{1,15}) kB\\s*$");

    private UnifiedMemory() {
    }

    /**
     * The GPUs with their memory kind set, and unified ones without a size sized from the host's memory; the host's
     * memory is read only when such a GPU exists.
     */
    public static List<Gpu> apply(List<Gpu> gpus, Source source, List<Diagnostic> diagnostics) {
        List<Gpu> out = new ArrayList<>(gpus.size());
        Long hostMiB = null;
        boolean hostRead = false;
        for (Gpu g : gpus) {
            boolean unified = Boolean.TRUE.equals(g.sharedMemory()) || Gpu.UNIFIED_MEMORY.equals(g.memoryKind());
            if (!unified) {
                out.add(g.memoryKind() == null && (g.memoryMiB() != null || g.memoryGi() != null)
                        ? g.toBuilder("derived").memoryKind(Gpu.DEDICATED_MEMORY).build() : g);
                continue;
            }
            Gpu.Builder b = g.toBuilder("derived");
            if (g.memoryKind() == null) {
                b.memoryKind(Gpu.UNIFIED_MEMORY);
            }
            if (g.memoryMiB() == null) {
                if (!hostRead) {
                    hostMiB = hostMemoryMiB(source, diagnostics);
                    hostRead = true;
                }
                b.as(SOURCE).memoryMiB(hostMiB);
            }
            out.add(b.build());
        }
        return out;
    }

    /** {@code MemTotal} of {@code /proc/meminfo} in MiB; null, with a note, when the file is missing or unreadable. */
    static Long hostMemoryMiB(Source source, List<Diagnostic> diagnostics) {
        try {
            Optional<String> text = source.readFile(MEMINFO);
            if (text.isEmpty()) {
                // Not the source's words: a bundle's path would make the same recording read differently elsewhere.
                diagnostics.add(Diagnostic.info(SOURCE, MEMINFO, null, "no " + MEMINFO + " (a recording made before"
                        + " it was recorded, or a host root without /proc): a GPU using the host's memory is left without a size"));
                return null;
            }
            Matcher m = MEM_TOTAL.matcher(text.get());
            if (!m.find()) {
                diagnostics.add(Diagnostic.warning(SOURCE, MEMINFO, null, "expected a line 'MemTotal: <n> kB', found none"));
                return null;
            }
            long mib = Long.parseLong(m.group(1)) / 1024;
            return mib > 0 ? mib : null;
        } catch (IOException e) {
            diagnostics.add(Diagnostic.warning(SOURCE, MEMINFO, null, "cannot read: " + e.getMessage()));
            return null;
        }
    }
}
