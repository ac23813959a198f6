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
 * {@code clinfo} in the three forms people paste:
 * <ul>
 * <li>the common clinfo's default long form. After a summary of the platforms, each platform is printed
 * again ({@code Platform Name} at two spaces) followed by {@code Number of devices} and one block per device,
 * starting at {@code Device Name}. Values start after a run of two or more spaces. Reading stops at
 * {@code NULL platform behavior}, whose indented {@code Device Name} lines repeat devices already read;
 * <li>AMD's own clinfo (AMD APP SDK, ROCm's {@code opencl/tools/clinfo}): {@code Key:} then tabs, each device
 * block starting at {@code Device Type: CL_DEVICE_TYPE_GPU}, the device's name under {@code Name:}, AMD's
 * board name and PCI slot ({@code PCI[ B#3, D#0, F#0 ]}) on AMD's platform;
 * <li>{@code clinfo -l}: {@code Platform #0: name} and {@code `-- Device #0: name} lines, which give no device
 * type: a device is a GPU when its name says so (a GPU vendor's product line), and a name that could be
 * anything is left out with a note.
 * </ul>
 * Only GPU devices are returned: CPU runtimes (pocl, Intel's CPU runtime) are not GPUs. One card that several
 * platforms expose (Mesa's Clover and rusticl, pocl's CUDA driver beside NVIDIA's) is one GPU.
 */
public final class ClinfoParser {

    public static final String PROBE = "clinfo";

    private static final Pattern FIELD = Pattern.compile("^  (\\S.*?)\\s{2,}(.*?)\\s*$");
    private static final Pattern PLATFORM_COUNT = Pattern.compile("^Number of platforms\\s+(\\d+)");
    private static final Pattern AMD_PLATFORM_COUNT = Pattern.compile("^Number of platforms:\\s+(\\d+)");
    private static final Pattern AMD_FIELD = Pattern.compile("^\\s+([^:]+?):\\s+(.*?)\\s*$");
    private static final Pattern AMD_TOPOLOGY = Pattern.compile("PCI\\[\\s*B#(\\d+),\\s*D#(\\d+),\\s*F#(\\d+)\\s*]");
    private static final Pattern LIST_PLATFORM = Pattern.compile("^Platform #(\\d+):\\s*(.*?)\\s*$");
    /**
     * {@code  `-- Device #0: name} ({@code +--} before a platform's last device); the tree mark is optional because
     * Markdown and mail clients eat a lone backtick, leaving {@code  -- Device #0: name}.
     */
    private static final Pattern LIST_DEVICE = Pattern.compile("^\\s*[`+|']?--\\s*Device #(\\d+):\\s*(.*?)\\s*$");
    /** Names only a GPU has, for clinfo -l, which prints no device type. */
    private static final Pattern GPU_NAME = Pattern.compile("(?i)\\b(graphics|geforce|quadro|tesla|rtx|gtx|radeon|instinct|"
            + "firepro|arc|iris|mali|adreno|powervr|vivante|videocore|gfx\\d+|apple m\\d|nvidia [a-z]\\d+|gpu)\\b");
    /** Names of CPU and emulation devices that OpenCL runtimes list beside GPUs. */
    private static final Pattern NOT_GPU_NAME = Pattern.compile("(?i)(\\bcpu\\b|core\\(tm\\)|xeon|epyc|ryzen|threadripper|"
            + "pthread|cortex|emulation|fpga|\\bcore i\\d)");

    private ClinfoParser() {
    }

    public static ParsedOutput parse(String text, String file) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        List<OpenClDevice> devices = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (String line : lines) {
            if (AMD_PLATFORM_COUNT.matcher(line).find()) {
                return new ParsedOutput(gpus(amdForm(lines), PROBE, file, diagnostics), diagnostics);
            }
            if (PLATFORM_COUNT.matcher(line).find()) {
                break;
            }
            if (LIST_PLATFORM.matcher(line).matches()) {
                return new ParsedOutput(gpus(listForm(lines, file, diagnostics), PROBE, file, diagnostics), diagnostics);
            }
        }
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
            diagnostics.add(Diagnostic.error(PROBE, file, null, "no 'Number of platforms' line; expected the output of "
                    + "clinfo (its long form, AMD's clinfo, or 'clinfo -l' with 'Platform #0:' lines)"));
            return new ParsedOutput(List.of(), diagnostics);
        }
        return new ParsedOutput(gpus(devices, PROBE, file, diagnostics), diagnostics);
    }

    /** AMD's clinfo: {@code Key:} and a value after tabs; a device block starts at {@code Device Type:}. */
    private static List<OpenClDevice> amdForm(String[] lines) {
        List<OpenClDevice> devices = new ArrayList<>();
        String platform = null;
        Map<String, String> current = null;
        int currentLine = 0;
        for (int i = 0; i < lines.length; i++) {
            Matcher f = AMD_FIELD.matcher(lines[i]);
            if (!f.matches()) {
                continue;
            }
            String key = f.group(1).strip();
            String value = f.group(2);
            switch (key) {
                case "Platform Name" -> {
                    if (current != null) {
                        devices.add(new OpenClDevice(platform, current, currentLine));
                        current = null;
                    }
                    platform = value;
                }
                case "Device Type" -> {
                    if (current != null) {
                        devices.add(new OpenClDevice(platform, current, currentLine));
                    }
                    current = new LinkedHashMap<>();
                    currentLine = i + 1;
                    current.put(OpenClDevice.TYPE, value);
                }
                default -> {
                    if (current != null) {
                        amdField(current, key, value);
                    }
                }
            }
        }
        if (current != null) {
            devices.add(new OpenClDevice(platform, current, currentLine));
        }
        return devices;
    }

    private static void amdField(Map<String, String> device, String key, String value) {
        switch (key) {
            case "Name" -> device.putIfAbsent(OpenClDevice.NAME, value);
            case "Vendor" -> device.putIfAbsent(OpenClDevice.VENDOR, value);
            // "1002h": hex with a trailing h.
            case "Vendor ID" -> device.putIfAbsent(OpenClDevice.VENDOR_ID, "0x" + value.replaceFirst("(?i)h$", ""));
            case "Board name" -> device.putIfAbsent(OpenClDevice.BOARD_NAME, value);
            case "Driver version" -> device.putIfAbsent(OpenClDevice.DRIVER, value);
            case "Max compute units" -> device.putIfAbsent(OpenClDevice.COMPUTE_UNITS, value);
            case "Global memory size" -> device.putIfAbsent(OpenClDevice.GLOBAL_MEMORY, value);
            case "Unified memory for Host and Device" ->
                    device.putIfAbsent(OpenClDevice.UNIFIED_MEMORY, "1".equals(value) ? "Yes" : "0".equals(value) ? "No" : value);
            case "Device Topology" -> {
                // PCI[ B#3, D#0, F#0 ]: decimal bus, device and function; AMD's clinfo prints no domain.
                Matcher t = AMD_TOPOLOGY.matcher(value);
                if (t.find()) {
                    device.putIfAbsent(OpenClDevice.TOPOLOGY_AMD, String.format("PCI-E, %02x:%02x.%x",
                            Integer.parseInt(t.group(1)), Integer.parseInt(t.group(2)), Integer.parseInt(t.group(3))));
                }
            }
            default -> {
            }
        }
    }

    /** Mesa's OpenCL platforms: rusticl, and Clover, which names itself "Clover". */
    private static boolean isMesa(String platform) {
        if (platform == null) {
            return false;
        }
        String p = platform.toLowerCase(java.util.Locale.ROOT);
        return p.contains("rusticl") || p.contains("clover") || p.contains("mesa");
    }

    /** {@code clinfo -l}: names only; the type is read from the name, and an unclear name is left out with a note. */
    private static List<OpenClDevice> listForm(String[] lines, String file, List<Diagnostic> diagnostics) {
        List<OpenClDevice> devices = new ArrayList<>();
        String platform = null;
        for (int i = 0; i < lines.length; i++) {
            Matcher p = LIST_PLATFORM.matcher(lines[i]);
            if (p.matches()) {
                platform = p.group(2);
                continue;
            }
            Matcher d = LIST_DEVICE.matcher(lines[i]);
            if (!d.matches()) {
                continue;
            }
            String name = d.group(2);
            String type;
            if (NOT_GPU_NAME.matcher(name).find()) {
                type = "CPU";
            } else if (GPU_NAME.matcher(name).find() || GPU_NAME.matcher(platform == null ? "" : platform).find()) {
                type = "GPU";
            } else {
                diagnostics.add(Diagnostic.info(PROBE, file, i + 1, "clinfo -l prints no device type and '" + name
                        + "' does not say whether it is a GPU; not counted (the long form 'clinfo' tells)"));
                continue;
            }
            Map<String, String> fields = new LinkedHashMap<>();
            fields.put(OpenClDevice.NAME, name);
            fields.put(OpenClDevice.TYPE, type);
            devices.add(new OpenClDevice(platform, fields, i + 1));
        }
        return devices;
    }

    /**
     * The GPU devices as GPUs. Several platforms (ICDs) can expose the same card: Mesa's Clover and rusticl,
     * pocl's CUDA driver beside NVIDIA's own. A card is known by its PCI address where printed, else by its name
     * without the driver details in parentheses; each platform lists each card once, so a host has as many cards
     * of a kind as the platform that lists the most of them, and the others' devices are the same cards again.
     */
    static List<Gpu> gpus(List<OpenClDevice> devices, String probe, String file, List<Diagnostic> diagnostics) {
        Map<String, Map<String, List<OpenClDevice>>> byCard = new LinkedHashMap<>();
        for (OpenClDevice d : devices) {
            if (d.fields().get(OpenClDevice.TYPE) != null && d.isGpu()) {
                byCard.computeIfAbsent(d.cardKey(), k -> new LinkedHashMap<>())
                        .computeIfAbsent(String.valueOf(d.platform()), k -> new ArrayList<>()).add(d);
            }
        }
        java.util.Set<OpenClDevice> counted = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        Map<OpenClDevice, String> alsoListedBy = new java.util.IdentityHashMap<>();
        for (Map<String, List<OpenClDevice>> platforms : byCard.values()) {
            List<OpenClDevice> most = null;
            for (List<OpenClDevice> listed : platforms.values()) {
                // Between platforms that list as many, the vendor's own runtime: Mesa's (rusticl, Clover) gives an
                // iGPU's carve-out as its memory (512 MiB) and no unified memory, where AMD's says shared.
                if (most == null || listed.size() > most.size()
                        || (listed.size() == most.size() && isMesa(most.get(0).platform()) && !isMesa(listed.get(0).platform()))) {
                    most = listed;
                }
            }
            counted.addAll(most);
            if (platforms.size() > 1) {
                alsoListedBy.put(most.get(0), "'" + most.get(0).fields().get(OpenClDevice.NAME) + "' is listed by "
                        + platforms.size() + " platforms (" + String.join(", ", platforms.keySet()) + "): the same "
                        + (most.size() == 1 ? "card" : most.size() + " cards") + " through each, counted once");
            }
        }
        List<Gpu> gpus = new ArrayList<>();
        for (OpenClDevice d : devices) {
            if (d.fields().get(OpenClDevice.TYPE) == null) {
                diagnostics.add(Diagnostic.warning(probe, file, d.line(),
                        "device '" + d.fields().get(OpenClDevice.NAME) + "' has no Device Type (expected GPU, CPU or Accelerator); skipped"));
            } else if (counted.contains(d)) {
                if (alsoListedBy.containsKey(d)) {
                    diagnostics.add(Diagnostic.info(probe, file, d.line(), alsoListedBy.get(d)));
                }
                gpus.add(d.toGpu(probe, file, diagnostics));
            }
        }
        return gpus;
    }
}
