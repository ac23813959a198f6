package io.gpudetect.probe.opencl;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.probe.ParsedOutput;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code clinfo}'s default long form. After a summary of the platforms, each platform is printed again
 * ({@code Platform Name} at two spaces) followed by {@code Number of devices} and one block per device,
 * starting at {@code Device Name}. Values start after a run of two or more spaces. Reading stops at
 * {@code NULL platform behavior}, whose indented {@code Device Name} lines repeat devices already read.
 *
 * <p>Only GPU devices are returned: CPU runtimes (pocl, Intel's CPU runtime) are not GPUs.
 */
public final class ClinfoParser {

    public static final String PROBE = "clinfo";

    private static final Pattern FIELD = Pattern.compile("^  (\\S.*?)\\s{2,}(.*?)\\s*$");
    private static final Pattern PLATFORM_COUNT = Pattern.compile("^Number of platforms\\s+(\\d+)");

    private ClinfoParser() {
    }

    public static ParsedOutput parse(String text, String file) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        List<OpenClDevice> devices = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        String platform = null;
        Map<String, String> current = null;
        int currentLine = 0;
        boolean sawHeader = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (PLATFORM_COUNT.matcher(line).find()) {
                sawHeader = true;
                continue;
            }
            if (line.startsWith("NULL platform behavior") || line.startsWith("ICD loader properties")) {
                break;
            }
            Matcher f = FIELD.matcher(line);
            if (!f.matches()) {
                continue;
            }
            String key = f.group(1);
            String value = f.group(2);
            if (key.equals("Platform Name")) {
                if (current != null) {
                    devices.add(new OpenClDevice(platform, current, currentLine));
                    current = null;
                }
                platform = value;
            } else if (key.equals(OpenClDevice.NAME)) {
                if (current != null) {
                    devices.add(new OpenClDevice(platform, current, currentLine));
                }
                current = new LinkedHashMap<>();
                currentLine = i + 1;
                current.put(key, value);
            } else if (current != null) {
                current.putIfAbsent(key, value);
            }
        }
        if (current != null) {
            devices.add(new OpenClDevice(platform, current, currentLine));
        }
        if (!sawHeader) {
            diagnostics.add(Diagnostic.error(PROBE, file, null,
                    "no 'Number of platforms' line; expected the output of clinfo (default long form)"));
            return new ParsedOutput(List.of(), diagnostics);
        }
        return new ParsedOutput(gpus(devices, PROBE, file, diagnostics), diagnostics);
    }

    static List<Gpu> gpus(List<OpenClDevice> devices, String probe, String file, List<Diagnostic> diagnostics) {
        List<Gpu> gpus = new ArrayList<>();
        for (OpenClDevice d : devices) {
            if (d.fields().get(OpenClDevice.TYPE) == null) {
                diagnostics.add(Diagnostic.warning(probe, file, d.line(),
                        "device '" + d.fields().get(OpenClDevice.NAME) + "' has no Device Type (expected GPU, CPU or Accelerator); skipped"));
            } else if (d.isGpu()) {
                gpus.add(d.toGpu(probe, file, diagnostics));
            }
        }
        return gpus;
    }
}
