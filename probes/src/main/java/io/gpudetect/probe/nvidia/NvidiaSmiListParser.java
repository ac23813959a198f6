package io.gpudetect.probe.nvidia;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.model.Partition;
import io.gpudetect.model.Partitioning;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.ParsedOutput;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code nvidia-smi -L}: one line per GPU ({@code GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-...)}) and,
 * when MIG is on, one indented line per instance ({@code   MIG 1g.5gb Device 0: (UUID: MIG-...)}).
 * It names no PCI address, so its cards join the others by UUID, or in order.
 */
public final class NvidiaSmiListParser {

    public static final String PROBE = "nvidia-smi-list";
    private static final Pattern GPU_LINE = Pattern.compile("^GPU\\s+(\\d+):\\s*(.*?)\\s*(?:\\((?:UUID|S/N):\\s*([^)]*)\\))?\\s*$");
    private static final Pattern MIG_LINE = Pattern.compile("^\\s+MIG\\s+(\\S+)\\s+Device\\s+(\\d+):\\s*\\(UUID:\\s*([^)]*)\\)\\s*$");

    private NvidiaSmiListParser() {
    }

    public static ParsedOutput parse(String text, String file) {
        List<Diagnostic> notes = new ArrayList<>();
        List<Gpu> gpus = new ArrayList<>();
        Gpu.Builder current = null;
        List<Partition> migs = new ArrayList<>();
        List<String> lines = text.lines().toList();
        // GPU indexes are unique in one run: an index seen again is the next sample of a capture that ran -L
        // several times (or, if it names another card, a file holding several hosts, which is refused).
        java.util.Map<String, String> firstSample = new java.util.HashMap<>();
        boolean repeating = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            Matcher index = GPU_LINE.matcher(line);
            if (index.matches()) {
                String seenName = firstSample.putIfAbsent(index.group(1), index.group(2));
                if (seenName != null && !seenName.equals(index.group(2))) {
                    return new ParsedOutput(List.of(), List.of(Diagnostic.error(PROBE, file, i + 1, "GPU " + index.group(1)
                            + " is '" + seenName + "' earlier in the file and '" + index.group(2) + "' here: the file holds "
                            + "the output of more than one host; bundle one host's output")));
                }
                repeating |= seenName != null;
            }
            if (repeating) {
                continue;
            }
            Optional<Gpu> lost = LostGpuLine.read(line, PROBE);
            Matcher gpu = GPU_LINE.matcher(line);
            Matcher mig = MIG_LINE.matcher(line);
            if (lost.isPresent() || gpu.matches()) {
                finish(current, migs, gpus);
                current = null;
                migs = new ArrayList<>();
                if (lost.isPresent()) {
                    gpus.add(lost.get());
                    continue;
                }
                current = Gpu.builder(PROBE).vendor(Vendor.NVIDIA);
                String name = gpu.group(2);
                if (NvidiaValues.signalsLostGpu(name)) {
                    current.health(Health.of(List.of(HealthReason.GPU_LOST), null,
                            List.of("the name reads '" + name + "'")));
                } else {
                    current.name(NvidiaValues.value(name));
                }
                String id = gpu.group(3);
                if (id != null && line.contains("UUID:")) {
                    current.uuid(readUuid(id, i + 1, file, notes));
                } else if (id != null) {
                    current.serial(NvidiaValues.identifier(id));
                }
            } else if (mig.matches() && current != null) {
                migs.add(new Partition(mig.group(1), null, null, null, null, readUuid(mig.group(3), i + 1, file, notes)));
            } else if (line.strip().equals("No devices were found")) {
                notes.add(Diagnostic.warning(PROBE, file, i + 1, "nvidia-smi found no devices"));
            } else {
                notes.add(Diagnostic.warning(PROBE, file, i + 1, "expected 'GPU <n>: <name> (UUID: GPU-...)' or an indented "
                        + "'MIG <profile> Device <n>: (UUID: MIG-...)' line, found '" + shorten(line.strip()) + "'"));
            }
        }
        finish(current, migs, gpus);
        if (repeating) {
            notes.add(Diagnostic.info(PROBE, file, null, "the GPU list is printed more than once (several samples in one "
                    + "capture): each GPU is counted once, from the first"));
        }
        if (gpus.isEmpty() && notes.stream().noneMatch(n -> n.message().contains("no devices"))) {
            notes.add(Diagnostic.error(PROBE, file, 1, "no 'GPU <n>: <name> (UUID: GPU-...)' line found; expected the output of 'nvidia-smi -L'"));
        }
        return new ParsedOutput(gpus, notes);
    }

    private static void finish(Gpu.Builder current, List<Partition> migs, List<Gpu> gpus) {
        if (current == null) {
            return;
        }
        if (!migs.isEmpty()) {
            // -L lists MIG devices only when MIG is on: their presence says the current mode.
            current.partitioning(new Partitioning("mig", true, null, migs));
        }
        gpus.add(current.build());
    }

    private static String readUuid(String v, int line, String file, List<Diagnostic> notes) {
        try {
            return NvidiaValues.uuid(v);
        } catch (IllegalArgumentException e) {
            notes.add(Diagnostic.warning(PROBE, file, line, e.getMessage()));
            return null;
        }
    }

    private static String shorten(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }
}
