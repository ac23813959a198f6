package io.gpudetect.probe.nvidia;

import io.gpudetect.model.Diagnostic;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code nvidia-smi nvlink -s}: for each GPU ({@code GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)}) one line per
 * NVLink, {@code Link 0: 26.562 GB/s} for an active link at its speed or {@code Link 3: <inactive>}; a GPU whose links
 * are all inactive gets one line instead ({@code NVML: Unable to retrieve Nvlink information as all links are inActive},
 * spelled NVLink and inactive by other drivers), a GPU without NVLink {@code Device does not have or support Nvlink},
 * and some drivers print nothing under a GPU without NVLink. It names neither the far end of a link nor its version:
 * {@code nvidia-smi topo -m} names the peers ({@link NvidiaTopoLinks} puts the two together).
 *
 * <p>The NVLink generation is known from the speed only for the speeds in {@link #GENERATION_BY_SPEED}: each seen in
 * public {@code nvlink -s} output of a GPU whose generation NVIDIA's datasheets state. Any other speed leaves the
 * version not known.
 */
public final class NvidiaSmiNvlinkParser {

    public static final String PROBE = "nvidia-smi-nvlink";

    /**
     * Speed per link (GB/s, as printed) to NVLink generation. Each speed was seen in public output of the GPU named,
     * and NVIDIA's datasheets give that GPU's generation: 25.781 Tesla V100-SXM2 (NVLink 2, Volta), 25 A100-SXM4-80GB
     * (third-generation NVLink), 14.062 RTX A6000, RTX A5000 and GeForce RTX 3090 (GA102, third-generation NVLink
     * bridge), 26.562 H100 80GB HBM3 (fourth generation), 53.125 GB200 (fifth generation).
     */
    static final Map<BigDecimal, Integer> GENERATION_BY_SPEED = Map.of(
            new BigDecimal("25.781"), 2,
            new BigDecimal("25"), 3,
            new BigDecimal("14.062"), 3,
            new BigDecimal("26.562"), 4,
            new BigDecimal("53.125"), 5);

    private static final Pattern GPU = Pattern.compile("GPU (\\d{1,9}):\\s*(.*?)(?:\\s*\\(UUID:\\s*([^)]*)\\))?\\s*");
    private static final Pattern LINK = Pattern.compile("Link (\\d{1,9}):\\s*(.*?)\\s*");
    private static final Pattern SPEED = Pattern.compile("(\\d{1,9}(?:\\.\\d{1,9})?)\\s*GB/s");

    private NvidiaSmiNvlinkParser() {
    }

    /** What the output says of one GPU's NVLinks. */
    public enum State {
        /** Per-link lines follow: {@link GpuStatus#links()}. */
        LINKS,
        /** "all links are inactive": the GPU has NVLinks (how many is not said), none up. */
        ALL_INACTIVE,
        /** "Device does not have or support Nvlink". */
        NONE,
        /** The GPU's header and nothing under it (some drivers' form for a GPU without NVLink): not known. */
        NOTHING_SAID
    }

    /**
     * One NVLink.
     *
     * @param link  its number on the GPU
     * @param up    active
     * @param speed GB/s as printed for an active link; null when down or not printed
     */
    public record Link(int link, boolean up, BigDecimal speed) {
    }

    /**
     * One GPU's part of the output.
     *
     * @param index nvidia-smi's index
     * @param name  the name printed
     * @param uuid  the UUID printed, or null
     * @param state what was said of its links
     * @param links the links, in the order printed (empty unless {@code state} is {@link State#LINKS})
     */
    public record GpuStatus(int index, String name, String uuid, State state, List<Link> links) {

        public GpuStatus {
            links = List.copyOf(links);
        }

        public int up() {
            int n = 0;
            for (Link l : links) {
                n += l.up() ? 1 : 0;
            }
            return n;
        }

        public int down() {
            return links.size() - up();
        }

        /**
         * The NVLink generation of the GPU's active links, from their speed; null when none is active, a speed is not
         * in the table, or the active links' speeds disagree.
         */
        public Integer generation() {
            Integer generation = null;
            for (Link l : links) {
                if (!l.up()) {
                    continue;
                }
                Integer g = generationOf(l.speed());
                if (g == null || (generation != null && !generation.equals(g))) {
                    return null;
                }
                generation = g;
            }
            return generation;
        }
    }

    /** The generation a speed per link says, by value (25 and 25.000 alike); null for a speed not in the table. */
    static Integer generationOf(BigDecimal speed) {
        if (speed == null) {
            return null;
        }
        for (Map.Entry<BigDecimal, Integer> e : GENERATION_BY_SPEED.entrySet()) {
            if (e.getKey().compareTo(speed) == 0) {
                return e.getValue();
            }
        }
        return null;
    }

    /** The GPUs found, by index in the order printed, and what could not be read. */
    public record Status(Map<Integer, GpuStatus> gpus, List<Diagnostic> diagnostics) {
    }

    public static Status parse(String text, String file) {
        List<Diagnostic> notes = new ArrayList<>();
        Map<Integer, GpuStatus> gpus = new LinkedHashMap<>();
        List<String> lines = text.lines().toList();
        Integer index = null;
        String name = null;
        String uuid = null;
        State state = State.NOTHING_SAID;
        List<Link> links = new ArrayList<>();
        boolean readable = true;
        for (int i = 0; i <= lines.size(); i++) {
            String line = i < lines.size() ? lines.get(i).strip() : null;
            Matcher gpu = line == null ? null : GPU.matcher(line);
            if (line == null || gpu.matches()) {
                if (index != null && readable && gpus.putIfAbsent(index, new GpuStatus(index, name, uuid, state, links)) != null) {
                    notes.add(Diagnostic.warning(PROBE, file, i, "GPU " + index + " is listed twice; the first was kept"));
                }
                if (line == null) {
                    break;
                }
                index = Integer.parseInt(gpu.group(1));
                name = gpu.group(2);
                uuid = gpu.group(3) == null ? null : gpu.group(3).strip();
                state = State.NOTHING_SAID;
                links = new ArrayList<>();
                readable = true;
                continue;
            }
            if (line.isEmpty() || index == null || !readable) {
                continue;
            }
            String lower = line.toLowerCase(Locale.ROOT);
            Matcher link = LINK.matcher(line);
            if (link.matches() && state != State.ALL_INACTIVE && state != State.NONE) {
                String value = link.group(2);
                Matcher speed = SPEED.matcher(value);
                int number = Integer.parseInt(link.group(1));
                if (speed.matches()) {
                    links.add(new Link(number, true, new BigDecimal(speed.group(1))));
                } else if (value.equalsIgnoreCase("<inactive>") || value.equalsIgnoreCase("inactive")) {
                    links.add(new Link(number, false, null));
                } else if (value.equalsIgnoreCase("<active>") || value.equalsIgnoreCase("active")) {
                    links.add(new Link(number, true, null));
                } else {
                    notes.add(Diagnostic.warning(PROBE, file, i + 1, "GPU " + index + " link " + number + " reads '"
                            + value + "', expected a speed such as '26.562 GB/s' or '<inactive>'; the GPU's links "
                            + "were not read"));
                    readable = false;
                    continue;
                }
                state = State.LINKS;
            } else if (lower.contains("all links are inactive") && links.isEmpty()) {
                state = State.ALL_INACTIVE;
            } else if (lower.contains("does not have or support nvlink") && links.isEmpty()) {
                state = State.NONE;
            } else {
                notes.add(Diagnostic.warning(PROBE, file, i + 1, "GPU " + index + ": '" + line + "' is not a line of "
                        + "'nvidia-smi nvlink -s' (expected 'Link <n>: <speed> GB/s', 'Link <n>: <inactive>' or that all "
                        + "links are inactive); the GPU's links were not read"));
                readable = false;
            }
        }
        if (gpus.isEmpty() && notes.isEmpty() && !text.isBlank()) {
            notes.add(Diagnostic.warning(PROBE, file, 1, "no 'GPU <n>: <name>' line found; expected the output of "
                    + "'nvidia-smi nvlink -s'"));
        }
        return new Status(gpus, notes);
    }
}
