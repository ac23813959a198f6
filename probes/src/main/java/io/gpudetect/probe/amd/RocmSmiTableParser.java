package io.gpudetect.probe.amd;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.HexId;
import io.gpudetect.probe.ParsedOutput;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The plain {@code rocm-smi} "Concise Info" table as people paste it. It says how many GPUs there are and,
 * depending on the release, their device id ({@code 0x740f,} under {@code (DID, GUID)}), device id and
 * revision ({@code [0x74a1 : 0x00]}) with the name on the next line, or nothing but an index. No PCI
 * address: the inventory pairs these with other probes' cards in order.
 */
public final class RocmSmiTableParser {

    public static final String PROBE = "rocm-smi-table";

    private static final Pattern ROW = Pattern.compile("^(\\d+)\\s+(.*)$");
    private static final Pattern MODEL_REVISION = Pattern.compile("\\[\\s*0x([0-9a-fA-F]{1,4})\\s*:\\s*0x([0-9a-fA-F]{1,2})\\s*]");
    private static final Pattern DID = Pattern.compile("^(?:\\d+\\s+)?0x([0-9a-fA-F]{1,4}),");
    private static final Pattern NAME_LINE = Pattern.compile("^\\s{4,}(\\S.*?)\\s*$");

    private RocmSmiTableParser() {
    }

    public static ParsedOutput parse(String text, String file) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        List<Gpu> gpus = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        boolean inTable = false;
        boolean sawHeader = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String stripped = line.strip();
            if (stripped.startsWith("GPU ") || stripped.startsWith("Device ") || stripped.startsWith("GPU[")) {
                if (stripped.startsWith("GPU ") || stripped.startsWith("Device ")) {
                    inTable = true;
                    sawHeader = true;
                }
                continue;
            }
            if (!inTable) {
                continue;
            }
            if (stripped.startsWith("=====") && !gpus.isEmpty()) {
                inTable = false;
                continue;
            }
            Matcher row = ROW.matcher(line);
            if (!row.matches()) {
                continue;
            }
            Gpu.Builder b = Gpu.builder(PROBE).vendor(Vendor.AMD);
            String rest = row.group(2);
            Matcher mr = MODEL_REVISION.matcher(rest);
            Matcher did = DID.matcher(rest);
            if (mr.find()) {
                b.pciDeviceId(HexId.id16(mr.group(1))).pciRevision(HexId.revision(mr.group(2)));
                if (i + 1 < lines.length) {
                    Matcher name = NAME_LINE.matcher(lines[i + 1]);
                    if (name.matches() && !ROW.matcher(lines[i + 1]).matches()) {
                        b.name(name.group(1));
                    }
                }
            } else if (did.find()) {
                b.pciDeviceId(HexId.id16(did.group(1)));
            }
            gpus.add(b.build());
        }
        if (!sawHeader) {
            diagnostics.add(Diagnostic.error(PROBE, file, null,
                    "no table header ('Device ...' or 'GPU ...' line); expected the rocm-smi Concise Info table"));
        } else if (gpus.isEmpty()) {
            diagnostics.add(Diagnostic.warning(PROBE, file, null,
                    "the table has no GPU rows (lines starting with a device number)"));
        }
        return new ParsedOutput(gpus, diagnostics);
    }
}
