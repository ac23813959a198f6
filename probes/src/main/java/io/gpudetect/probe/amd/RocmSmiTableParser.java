package io.gpudetect.probe.amd;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.probe.ParsedOutput;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * rocm-smi's text output as people paste it, in every form it prints, alone or several pasted together:
 * <ul>
 * <li>the plain {@code rocm-smi} "Concise Info" table, which depending on the release gives only an index,
 * the device id ({@code 0x740f,} under {@code (DID, GUID)}), or device id and revision
 * ({@code [0x74a1 : 0x00]}) with the name on the next line;
 * <li>{@code --showhw}'s "Concise Hardware Info" table (device id, gfx version, PCI bus);
 * <li>the {@code GPU[N] : key: value} lines of {@code -a}/{@code --showallinfo}, {@code --showproductname},
 * {@code --showmeminfo vram}, {@code --showid}, {@code --showbus}, and {@code Driver version: ...};
 * <li>{@code --csv}: a {@code device,...} header with one {@code cardN,...} row per card, and the
 * {@code name, value} block holding the driver version.
 * </ul>
 * Every form numbers cards the same way, so what each says of card N is merged into one card: a table
 * pasted twice, or a run that printed several samples, never counts a card twice. The keys are read as
 * {@link RocmSmiCard} reads the JSON form. Without a PCI address the inventory pairs these cards with other
 * probes' cards in order.
 */
public final class RocmSmiTableParser {

    public static final String PROBE = "rocm-smi-table";

    private static final Pattern ROW = Pattern.compile("^(\\d+)\\s+(.*)$");
    private static final Pattern MODEL_REVISION = Pattern.compile("\\[\\s*0x([0-9a-fA-F]{1,4})\\s*:\\s*0x([0-9a-fA-F]{1,2})\\s*]");
    private static final Pattern DID = Pattern.compile("^(?:\\d+\\s+)?0x([0-9a-fA-F]{1,4}),");
    private static final Pattern NAME_LINE = Pattern.compile("^\\s{4,}(\\S.*?)\\s*$");
    private static final Pattern GPU_LINE = Pattern.compile("^\\s*GPU\\[(\\d+)](\\s*XCP\\[\\d+])?\\s*:\\s*(.*?)\\s*$");
    private static final Pattern DRIVER = Pattern.compile("^\\s*\"?Driver version\"?\\s*[:,]\\s*\"?([^\"]*?)\"?\\s*$",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern CSV_ROW = Pattern.compile("^card(\\d+),(.*)$");
    private static final Pattern HW_DEVICE_ID = Pattern.compile("(?i)^0x[0-9a-f]{1,4}$");
    /** A device id without "0x", as the old --showhw layout prints it under DID: four hex digits, then a space. */
    private static final Pattern HW_BARE_DEVICE_ID = Pattern.compile("([0-9a-fA-F]{4})(?=\\s|$)");
    private static final Pattern HW_GFX = Pattern.compile("^gfx[0-9a-f]+$");
    private static final Pattern HW_BUS = Pattern.compile("(?i)^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]$");
    private static final Pattern ANSI = Pattern.compile("(?:\u001B|\\^\\[)\\[?[0-9;]*m");

    private RocmSmiTableParser() {
    }

    public static ParsedOutput parse(String text, String file) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        Map<Integer, Map<String, String>> cards = new TreeMap<>();
        String driver = null;
        boolean sawOutput = false;
        boolean inTable = false;
        boolean hardwareTable = false;
        // Where the DID column starts in the --showhw header: ROCm 5 and older print the id bare ("7408"),
        // which only its column tells from a GUID or a VBIOS part number.
        int didColumn = -1;
        boolean tableHasRows = false;
        String[] csvHeader = null;
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].indexOf('m') >= 0 ? ANSI.matcher(lines[i]).replaceAll("") : lines[i];
            String stripped = line.strip();
            Matcher gpu = GPU_LINE.matcher(line);
            if (gpu.matches()) {
                sawOutput = true;
                inTable = false;
                if (gpu.group(2) == null) {
                    keyValue(card(cards, gpu.group(1)), gpu.group(3), file, i + 1, diagnostics);
                }
                continue;
            }
            Matcher drv = DRIVER.matcher(line);
            if (drv.matches()) {
                sawOutput = true;
                if (!drv.group(1).isBlank()) {
                    driver = drv.group(1).strip();
                }
                continue;
            }
            if (stripped.startsWith("device,")) {
                sawOutput = true;
                inTable = false;
                csvHeader = stripped.split(",", -1);
                continue;
            }
            Matcher csv = csvHeader == null ? null : CSV_ROW.matcher(stripped);
            if (csv != null && csv.matches()) {
                String[] values = stripped.split(",", -1);
                Map<String, String> card = card(cards, csv.group(1));
                for (int c = 1; c < values.length && c < csvHeader.length; c++) {
                    RocmSmiCard.put(card, csvHeader[c], values[c]);
                }
                continue;
            }
            if (stripped.startsWith("GPU ") || stripped.startsWith("Device ")) {
                sawOutput = true;
                inTable = true;
                tableHasRows = false;
                hardwareTable = stripped.contains(" DID ") && stripped.contains(" BUS");
                didColumn = hardwareTable ? line.indexOf(" DID ") + 1 : -1;
                continue;
            }
            if (!inTable) {
                continue;
            }
            if (stripped.startsWith("=====") && tableHasRows) {
                inTable = false;
                continue;
            }
            Matcher row = ROW.matcher(line);
            if (!row.matches()) {
                continue;
            }
            tableHasRows = true;
            Map<String, String> card = card(cards, row.group(1));
            String rest = row.group(2);
            if (hardwareTable) {
                hardwareRow(card, rest);
                if (card.get("Device ID") == null && didColumn > 0 && didColumn < line.length()) {
                    Matcher bare = HW_BARE_DEVICE_ID.matcher(line.substring(didColumn));
                    if (bare.lookingAt()) {
                        RocmSmiCard.put(card, "Device ID", "0x" + bare.group(1));
                    }
                }
                continue;
            }
            Matcher mr = MODEL_REVISION.matcher(rest);
            Matcher did = DID.matcher(rest);
            if (mr.find()) {
                RocmSmiCard.put(card, "Device ID", "0x" + mr.group(1));
                RocmSmiCard.put(card, "Device Rev", "0x" + mr.group(2));
                if (i + 1 < lines.length) {
                    Matcher name = NAME_LINE.matcher(lines[i + 1]);
                    if (name.matches() && !ROW.matcher(lines[i + 1]).matches()) {
                        RocmSmiCard.put(card, "Device Name", name.group(1));
                    }
                }
            } else if (did.find()) {
                RocmSmiCard.put(card, "Device ID", "0x" + did.group(1));
            }
        }
        List<Gpu> gpus = new ArrayList<>();
        for (Map.Entry<Integer, Map<String, String>> e : cards.entrySet()) {
            String cardDriver = driver != null ? driver : e.getValue().get("Driver version");
            gpus.add(RocmSmiCard.read(PROBE, "GPU[" + e.getKey() + "]", e.getValue(), cardDriver, diagnostics, file));
        }
        if (!sawOutput) {
            diagnostics.add(Diagnostic.error(PROBE, file, null, "no rocm-smi output found; expected the Concise Info "
                    + "table, 'GPU[N] : key: value' lines (rocm-smi -a, --showproductname, ...) or --csv rows"));
        } else if (gpus.isEmpty() && driver == null) {
            diagnostics.add(Diagnostic.warning(PROBE, file, null,
                    "no GPU in the output (no table rows, GPU[N] lines or cardN rows)"));
        }
        return new ParsedOutput(gpus, diagnostics);
    }

    private static Map<String, String> card(Map<Integer, Map<String, String>> cards, String index) {
        return cards.computeIfAbsent(Integer.valueOf(index), k -> RocmSmiCard.fields());
    }

    /**
     * {@code Card series: \t\tAMD Instinct MI300X OAM}: the key is what comes before the first colon. A paste
     * that ran two lines together repeats the key inside the value
     * ({@code Card series: Instinct MI210Card series: Instinct MI210}); the last copy is the value.
     */
    private static void keyValue(Map<String, String> card, String body, String file, int line, List<Diagnostic> diagnostics) {
        int colon = body.indexOf(':');
        if (colon <= 0) {
            return;
        }
        String key = body.substring(0, colon).strip();
        String value = body.substring(colon + 1);
        int repeated = value.lastIndexOf(key + ":");
        if (repeated >= 0) {
            diagnostics.add(Diagnostic.warning(PROBE, file, line,
                    "'" + key + "' appears twice on one line (two lines run together in the paste); read the last"));
            value = value.substring(repeated + key.length() + 1);
        }
        RocmSmiCard.put(card, key, value);
    }

    /** A {@code --showhw} row: GPU NODE DID GUID GFX VER ... VBIOS BUS PARTITION ID, split on spaces. */
    private static void hardwareRow(Map<String, String> card, String rest) {
        for (String token : rest.split("\\s+")) {
            if (HW_DEVICE_ID.matcher(token).matches()) {
                RocmSmiCard.put(card, "Device ID", token);
            } else if (HW_GFX.matcher(token).matches()) {
                RocmSmiCard.put(card, "GFX Version", token);
            } else if (HW_BUS.matcher(token).matches()) {
                RocmSmiCard.put(card, "PCI Bus", token);
            }
        }
    }
}
