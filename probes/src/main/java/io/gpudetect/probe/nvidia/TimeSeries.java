package io.gpudetect.probe.nvidia;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Rows of a {@code --query-gpu} CSV as GPUs when the rows may repeat the same GPUs ({@code -l 1}, {@code -lms},
 * a log appended to): one GPU per PCI bus id, UUID or index, never one per row. The most recent row of each GPU
 * describes it. Where the rows carry none of these, a loop's samples are told apart by their timestamps (the
 * rows of one sample are milliseconds apart, samples a period apart) and a GPU is its place in the sample; where
 * that fails too, the count is unknown and one GPU per distinct card is the honest lower bound, with a warning.
 */
final class TimeSeries {

    /**
     * nvidia-smi's timestamp, made when a sample's timestamps are first read, not with this class: the CSV of one
     * plain run has them too, and building a formatter sets up java.time's (~5 ms of a replay's start; issue 37).
     */
    private static final class Stamp {
        static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm:ss[.SSS][.SS][.S]");
    }
    /** The longest gap between two rows of one sample: nvidia-smi queries the GPUs one after another. */
    private static final long SAME_SAMPLE_MS = 100;

    private TimeSeries() {
    }

    static List<Gpu> oneGpuEach(List<CsvRow> rows, List<String> header, boolean loops, String file, List<Diagnostic> notes) {
        List<Gpu> all = rows.stream().map(CsvRow::gpu).toList();
        if (rows.size() < 2) {
            return all;
        }
        int index = column(header, "index");
        List<String> keys = new ArrayList<>();
        boolean everyRowKeyed = true;
        for (CsvRow r : rows) {
            String key = key(r, index);
            keys.add(key);
            everyRowKeyed &= key != null;
        }
        if (everyRowKeyed) {
            List<Gpu> gpus = latestPerKey(rows, keys);
            if (gpus.size() < rows.size()) {
                notes.add(Diagnostic.info(NvidiaSmiCsvParser.PROBE, file, rows.get(0).line(), rows.size() + " rows describe "
                        + gpus.size() + " GPU" + (gpus.size() == 1 ? "" : "s") + " (a time series: the same bus id, UUID or "
                        + "index again); the last row of each describes it"));
            }
            return gpus;
        }
        if (!loops) {
            // One run lists each GPU once: identical rows are identical cards.
            return all;
        }
        int stamp = column(header, "timestamp");
        int perSample = stamp < 0 ? -1 : sampleSize(rows, stamp);
        long differentCards = rows.stream().map(r -> Objects.toString(r.gpu().name())).distinct().count();
        if (perSample > 0 && perSample < differentCards) {
            perSample = -1; // fewer places than different cards: the timestamps misled, so no count from them
        }
        if (perSample > 0) {
            List<String> places = new ArrayList<>();
            for (int i = 0; i < rows.size(); i++) {
                places.add("#" + (i % perSample));
            }
            List<Gpu> gpus = latestPerKey(rows, places);
            notes.add(Diagnostic.info(NvidiaSmiCsvParser.PROBE, file, rows.get(0).line(), rows.size() + " rows are samples of "
                    + perSample + " GPU" + (perSample == 1 ? "" : "s") + " (told by their timestamps; no bus id, UUID or index "
                    + "column): one GPU per place in the sample"));
            return gpus;
        }
        List<String> cards = new ArrayList<>();
        for (CsvRow r : rows) {
            Gpu g = r.gpu();
            cards.add(Objects.toString(g.name()) + "|" + g.memoryMiB() + "|" + g.driverVersion());
        }
        List<Gpu> gpus = latestPerKey(rows, cards);
        notes.add(Diagnostic.warning(NvidiaSmiCsvParser.PROBE, file, rows.get(0).line(), rows.size() + " rows of a time "
                + "series with no bus id, UUID or index column and no timestamps that separate the samples: identical "
                + "cards cannot be told apart, so the host has at least " + gpus.size() + " GPU" + (gpus.size() == 1 ? "" : "s")
                + " (one per different card); add pci.bus_id or index to the query for a count"));
        return gpus;
    }

    private static String key(CsvRow r, int indexColumn) {
        Gpu g = r.gpu();
        if (g.pciAddress() != null) {
            return "bus " + g.pciAddress();
        }
        if (g.uuid() != null) {
            return "uuid " + g.uuid();
        }
        if (indexColumn >= 0 && indexColumn < r.values().size() && r.values().get(indexColumn).strip().matches("\\d{1,3}")) {
            return "index " + r.values().get(indexColumn).strip();
        }
        return null;
    }

    /** One GPU per key, in the order first seen, each as its last row describes it. */
    private static List<Gpu> latestPerKey(List<CsvRow> rows, List<String> keys) {
        Map<String, Gpu> latest = new LinkedHashMap<>();
        for (int i = 0; i < rows.size(); i++) {
            latest.put(keys.get(i), rows.get(i).gpu());
        }
        return new ArrayList<>(latest.values());
    }

    /**
     * How many rows each sample has, from the gaps between consecutive timestamps: gaps within a sample are
     * short (at most {@value #SAME_SAMPLE_MS} ms), gaps between samples a loop period. -1 where a timestamp does
     * not parse, where the gaps do not fall in two clear groups, or where the samples differ in size (but for the
     * last, cut off).
     */
    static int sampleSize(List<CsvRow> rows, int stampColumn) {
        long[] ms = new long[rows.size()];
        for (int i = 0; i < rows.size(); i++) {
            List<String> v = rows.get(i).values();
            if (stampColumn >= v.size()) {
                return -1;
            }
            try {
                ms[i] = LocalDateTime.parse(v.get(stampColumn).strip(), Stamp.FORMAT).toInstant(ZoneOffset.UTC).toEpochMilli();
            } catch (DateTimeParseException e) {
                return -1;
            }
        }
        long[] gaps = new long[ms.length - 1];
        for (int i = 1; i < ms.length; i++) {
            gaps[i - 1] = ms[i] - ms[i - 1];
            if (gaps[i - 1] < 0) {
                return -1;
            }
        }
        long[] sorted = gaps.clone();
        Arrays.sort(sorted);
        long longestShort = -1;
        for (long g : sorted) {
            if (g <= SAME_SAMPLE_MS) {
                longestShort = g;
            }
        }
        long max = sorted[sorted.length - 1];
        if (max <= SAME_SAMPLE_MS) {
            return rows.size(); // every row within one query pass: one sample, each row a GPU
        }
        if (longestShort < 0) {
            return 1; // every row a period after the one before: one GPU per sample
        }
        if (max < 4 * Math.max(longestShort, 1)) {
            return -1;
        }
        int run = 1;
        List<Integer> runs = new ArrayList<>();
        for (long g : gaps) {
            if (g > SAME_SAMPLE_MS) {
                runs.add(run);
                run = 1;
            } else {
                run++;
            }
        }
        runs.add(run);
        int size = runs.get(0);
        for (int i = 0; i < runs.size(); i++) {
            int r = runs.get(i);
            if (r != size && !(i == runs.size() - 1 && r < size)) {
                return -1;
            }
        }
        return size;
    }

    private static int column(List<String> header, String field) {
        if (header == null) {
            return -1;
        }
        for (int i = 0; i < header.size(); i++) {
            if (NvidiaSmiCsvParser.fieldOf(header.get(i)).equals(field)) {
                return i;
            }
        }
        return -1;
    }
}
