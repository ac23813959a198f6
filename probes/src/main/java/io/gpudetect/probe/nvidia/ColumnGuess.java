package io.gpudetect.probe.nvidia;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The columns of a headerless {@code --query-gpu} CSV pasted without its command line, placed only where every
 * value in the column says what it is: a UUID, a PCI bus id, a size in MiB that is a card's total, a driver
 * version, an NVIDIA product name, a timestamp. A column that could be several fields (a bare number: index,
 * temperature, power without units; a second size column of used or free memory) is left unread: a wrong
 * placement would describe the card wrongly, an unread one only less.
 *
 * @param header a header for the rows: a field name where placed, {@code ?N} where not
 */
record ColumnGuess(List<String> header, Map<String, Integer> placed) {

    private static final Pattern UUID = Pattern.compile("(?i)^GPU-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$");
    private static final Pattern BUS_ID = Pattern.compile("(?i)^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]$");
    /** At most nine digits: no card has a billion MiB, and a longer number must not overflow the parse. */
    private static final Pattern MIB = Pattern.compile("^(\\d{1,9}) MiB$");
    /** R-series driver versions: 535.104.05, 550.54.14; two parts (470.74, 591.86) only beside units (see below). */
    private static final Pattern DRIVER3 = Pattern.compile("^[1-9]\\d{2}\\.\\d{2,3}\\.\\d{2,3}$");
    private static final Pattern DRIVER2 = Pattern.compile("^[1-9]\\d{2}\\.\\d{2,3}$");
    /** What nvidia-smi's name field starts with, across brands since Fermi, and its unnamed-card placeholder. */
    private static final Pattern PRODUCT = Pattern.compile("^(?:NVIDIA\\s+\\S|GeForce\\s|Quadro\\s|Tesla\\s|TITAN\\b|GRID\\s|"
            + "RTX\\s|Graphics Device$)");
    private static final Pattern TIMESTAMP = Pattern.compile("^\\d{4}/\\d{2}/\\d{2} \\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?$");
    /** A value that carries a unit: units were not turned off, so a bare {@code 470.74} is not a power in watts. */
    private static final Pattern WITH_UNIT = Pattern.compile("^-?\\d+(?:\\.\\d+)? (?:MiB|W|%|MHz|C)$");

    ColumnGuess {
        header = List.copyOf(header);
        placed = Map.copyOf(placed);
    }

    static ColumnGuess of(List<List<String>> rows) {
        int width = commonWidth(rows);
        List<List<String>> same = rows.stream().filter(r -> r.size() == width).toList();
        boolean unitsKept = same.stream().flatMap(List::stream).anyMatch(v -> WITH_UNIT.matcher(v).matches());
        List<String> header = new ArrayList<>();
        Map<String, Integer> placed = new LinkedHashMap<>();
        List<Integer> sizeColumns = new ArrayList<>();
        for (int c = 0; c < width; c++) {
            int col = c;
            String field = null;
            if (all(same, col, v -> UUID.matcher(v).matches())) {
                field = "uuid";
            } else if (all(same, col, v -> BUS_ID.matcher(v).matches())) {
                field = "pci.bus_id";
            } else if (all(same, col, v -> TIMESTAMP.matcher(v).matches())) {
                field = "timestamp";
            } else if (all(same, col, v -> DRIVER3.matcher(v).matches()
                    || (unitsKept && DRIVER2.matcher(v).matches()))) {
                field = "driver_version";
            } else if (all(same, col, v -> PRODUCT.matcher(v).lookingAt())) {
                field = "name";
            } else if (all(same, col, v -> MIB.matcher(v).matches())) {
                sizeColumns.add(col);
            }
            if (field != null && !placed.containsKey(field)) {
                placed.put(field, col);
                header.add(field);
            } else {
                header.add("?" + (col + 1));
            }
        }
        Integer total = totalColumn(same, sizeColumns, placed.get("name"));
        if (total != null) {
            placed.put("memory.total", total);
            header.set(total, "memory.total");
        }
        return new ColumnGuess(header, placed);
    }

    boolean placedAny() {
        return !placed.isEmpty();
    }

    /** {@code column 1: name, column 3: memory.total}, for the note that says what was placed. */
    String describe() {
        List<String> parts = new ArrayList<>();
        placed.entrySet().stream().sorted(Map.Entry.comparingByValue())
                .forEach(e -> parts.add("column " + (e.getValue() + 1) + ": " + e.getKey()));
        return String.join(", ", parts);
    }

    /**
     * Which size column is the total. With several (total, used, free in any order), the one that in every row is
     * at least the sum of the others; with one, only a size that is a card's: the same in every row of the same
     * name (used memory moves) and within 8% under a whole number of GiB (nvidia-smi's total is the card's size
     * less what the driver reserves: 81559 of 80 GiB, 24564 of 24 GiB), never a small number such as idle usage.
     */
    private static Integer totalColumn(List<List<String>> rows, List<Integer> sizeColumns, Integer nameColumn) {
        if (sizeColumns.size() > 1) {
            for (int c : sizeColumns) {
                boolean covers = true;
                for (List<String> r : rows) {
                    long self = mib(r.get(c));
                    long others = 0;
                    for (int o : sizeColumns) {
                        others += o == c ? 0 : mib(r.get(o));
                    }
                    covers &= self >= others && self > 0;
                }
                if (covers) {
                    return c;
                }
            }
            return null;
        }
        if (sizeColumns.size() == 1) {
            int c = sizeColumns.get(0);
            Map<String, Long> byCard = new LinkedHashMap<>();
            for (List<String> r : rows) {
                long v = mib(r.get(c));
                // Rows of one product (by name, where placed) must agree: a total does not move, used memory does.
                String card = nameOf(r, nameColumn);
                Long before = byCard.putIfAbsent(card, v);
                if (!cardSized(v) || (before != null && before != v)) {
                    return null;
                }
            }
            return c;
        }
        return null;
    }

    private static String nameOf(List<String> row, Integer nameColumn) {
        return nameColumn == null ? "" : row.get(nameColumn);
    }

    private static boolean cardSized(long mib) {
        if (mib < 2048) {
            return false;
        }
        long gib = (mib + 1023) / 1024;
        return mib >= gib * 1024 * 0.92;
    }

    private static long mib(String v) {
        var m = MIB.matcher(v);
        return m.matches() ? Long.parseLong(m.group(1)) : 0;
    }

    private static boolean all(List<List<String>> rows, int col, Predicate<String> test) {
        boolean any = false;
        for (List<String> r : rows) {
            String v = r.get(col);
            if (NvidiaValues.isPlaceholder(v)) {
                continue;
            }
            if (!test.test(v)) {
                return false;
            }
            any = true;
        }
        return any;
    }

    /** The column count most rows have (a stray line of prose has another). */
    private static int commonWidth(List<List<String>> rows) {
        Map<Integer, Integer> counts = new LinkedHashMap<>();
        for (List<String> r : rows) {
            counts.merge(r.size(), 1, Integer::sum);
        }
        return counts.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(0);
    }
}
