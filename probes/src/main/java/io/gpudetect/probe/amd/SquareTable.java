package io.gpudetect.probe.amd;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.PciAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A square table of link types after a marker line, as {@code amd-smi topology} and {@code rocm-smi --showtopo}
 * print theirs: a header row naming the columns, then one row per GPU (its name, then one cell per column), up to a
 * blank line or a terminator. The two tools differ only in the parts given here, so one reader serves both and their
 * diagnostics stay worded as each tool's were.
 *
 * @param probe        the probe the diagnostics name
 * @param marker       the line the table follows: the whole line, ignoring case, where {@code markerIsLine}; else
 *                     (lower case) found anywhere in the line
 * @param markerIsLine whether {@code marker} is the whole (stripped) line rather than part of it
 * @param missing      the warning where no line is the marker
 * @param stopPrefixes a (stripped) line beginning with one of these ends the table, as a blank line does
 * @param stopSuffixes a (stripped) line ending with one of these ends the table
 * @param addresses    whether rows and columns are named by PCI address (else {@code GPU<n>}, named by its index)
 * @param header       what the header row should have been, for its warning
 * @param rowLabel     what a row should begin with, for its warning
 * @param peerPrefix   what a column's name is written after in a cell's warning
 * @param cells        the cells expected, for a cell's warning
 */
record SquareTable(String probe, String marker, boolean markerIsLine, String missing, List<String> stopPrefixes,
                   List<String> stopSuffixes, boolean addresses, String header, String rowLabel, String peerPrefix,
                   String cells) {

    private static final Pattern GPU_LABEL = Pattern.compile("GPU(\\d{1,6})");

    /**
     * Each row's peers and the link type to each (the GPU itself left out), in the order printed; null, with a
     * warning in {@code notes}, where there is no marker or the header is not one.
     */
    Map<String, Map<String, AmdTopology.Cell>> read(String[] lines, String file, List<Diagnostic> notes) {
        int start = -1;
        for (int i = 0; i < lines.length; i++) {
            if (isMarker(lines[i])) {
                start = i + 1;
                break;
            }
        }
        if (start < 0) {
            notes.add(Diagnostic.warning(probe, file, 1, missing));
            return null;
        }
        List<String> columns = null;
        Map<String, Map<String, AmdTopology.Cell>> rows = new LinkedHashMap<>();
        for (int i = start; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() && columns == null) {
                continue;
            }
            if (line.isEmpty() || isStop(line)) {
                break;
            }
            String[] tokens = line.split("\\s+");
            if (columns == null) {
                columns = new ArrayList<>();
                for (String t : tokens) {
                    String name = name(t);
                    if (name == null) {
                        notes.add(Diagnostic.warning(probe, file, i + 1, "expected " + header + ", found '" + t
                                + "'; the link types were not read"));
                        return null;
                    }
                    columns.add(name);
                }
                continue;
            }
            String self = name(tokens[0]);
            if (self == null || tokens.length - 1 != columns.size()) {
                notes.add(Diagnostic.warning(probe, file, i + 1, "expected " + rowLabel + " and " + columns.size()
                        + " link types, found '" + line + "'; the row was not read"));
                continue;
            }
            Map<String, AmdTopology.Cell> peers = new LinkedHashMap<>();
            boolean readable = true;
            for (int c = 0; c < columns.size() && readable; c++) {
                String cell = tokens[c + 1];
                if (columns.get(c).equals(self)) {
                    continue;
                }
                AmdTopology.Cell type = AmdTopology.Cell.of(cell);
                if (type == null) {
                    notes.add(Diagnostic.warning(probe, file, i + 1, tokens[0] + " to " + peerPrefix + columns.get(c)
                            + " reads '" + cell + "', expected " + cells + "; the row was not read"));
                    readable = false;
                } else {
                    peers.put(columns.get(c), type);
                }
            }
            if (readable) {
                rows.putIfAbsent(self, peers);
            }
        }
        return rows;
    }

    private boolean isMarker(String line) {
        return markerIsLine ? line.strip().equalsIgnoreCase(marker) : line.toLowerCase(Locale.ROOT).contains(marker);
    }

    private boolean isStop(String line) {
        for (String p : stopPrefixes) {
            if (line.startsWith(p)) {
                return true;
            }
        }
        for (String s : stopSuffixes) {
            if (line.endsWith(s)) {
                return true;
            }
        }
        return false;
    }

    /** A row's or column's name as the table's keys have it, or null where the token is not one. */
    private String name(String token) {
        if (addresses) {
            Optional<PciAddress> a = PciAddress.parse(token);
            return a.isEmpty() ? null : a.get().toString();
        }
        Matcher m = GPU_LABEL.matcher(token);
        return m.matches() ? String.valueOf(Integer.parseInt(m.group(1))) : null;
    }
}
