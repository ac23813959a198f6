package io.gpudetect.probe.opencl;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.probe.HexId;
import io.gpudetect.probe.ParsedOutput;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code clinfo --raw}: one property a line, {@code [NV/0]  CL_DEVICE_NAME  NVIDIA GeForce GTX 1650}, the
 * bracket naming the platform and the device index ({@code *} for platform properties). Properties are
 * renamed to the long form's names and read by the same code.
 */
public final class ClinfoRawParser {

    public static final String PROBE = "clinfo-raw";

    private static final Pattern LINE = Pattern.compile("^\\[([^/\\]]+)/([^\\]]+)]\\s+(CL_[A-Z0-9_]+)\\s*(.*?)\\s*$");
    private static final String PCI_BUS_NV = "CL_DEVICE_PCI_BUS_ID_NV";
    private static final String PCI_SLOT_NV = "CL_DEVICE_PCI_SLOT_ID_NV";
    private static final String PCI_DOMAIN_NV = "CL_DEVICE_PCI_DOMAIN_ID_NV";
    private static final Map<String, String> NAMES = Map.ofEntries(
            Map.entry("CL_DEVICE_NAME", OpenClDevice.NAME),
            Map.entry("CL_DEVICE_BOARD_NAME_AMD", OpenClDevice.BOARD_NAME),
            Map.entry("CL_DEVICE_VENDOR", OpenClDevice.VENDOR),
            Map.entry("CL_DEVICE_VENDOR_ID", OpenClDevice.VENDOR_ID),
            Map.entry("CL_DEVICE_TYPE", OpenClDevice.TYPE),
            Map.entry("CL_DEVICE_TOPOLOGY_NV", OpenClDevice.TOPOLOGY_NV),
            Map.entry("CL_DEVICE_PCI_BUS_ID_NV", PCI_BUS_NV),
            Map.entry("CL_DEVICE_PCI_SLOT_ID_NV", PCI_SLOT_NV),
            Map.entry("CL_DEVICE_PCI_DOMAIN_ID_NV", PCI_DOMAIN_NV),
            Map.entry("CL_DEVICE_TOPOLOGY_AMD", OpenClDevice.TOPOLOGY_AMD),
            Map.entry("CL_DEVICE_PCI_BUS_INFO_KHR", OpenClDevice.PCI_BUS_KHR),
            Map.entry("CL_DEVICE_UUID_KHR", OpenClDevice.UUID),
            Map.entry("CL_DRIVER_VERSION", OpenClDevice.DRIVER),
            Map.entry("CL_DEVICE_MAX_COMPUTE_UNITS", OpenClDevice.COMPUTE_UNITS),
            Map.entry("CL_DEVICE_GLOBAL_MEM_SIZE", OpenClDevice.GLOBAL_MEMORY),
            Map.entry("CL_DEVICE_HOST_UNIFIED_MEMORY", OpenClDevice.UNIFIED_MEMORY));

    private ClinfoRawParser() {
    }

    public static ParsedOutput parse(String text, String file) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        Map<String, String> platformNames = new LinkedHashMap<>();
        Map<String, Map<String, String>> devices = new LinkedHashMap<>();
        Map<String, Integer> firstLine = new LinkedHashMap<>();
        String[] lines = text.split("\r?\n", -1);
        boolean sawAny = false;
        for (int i = 0; i < lines.length; i++) {
            Matcher m = LINE.matcher(lines[i]);
            if (!m.matches()) {
                continue;
            }
            sawAny = true;
            String platform = m.group(1);
            String device = m.group(2);
            String key = m.group(3);
            String value = m.group(4);
            if (device.equals("*")) {
                if (key.equals("CL_PLATFORM_NAME")) {
                    platformNames.putIfAbsent(platform, value);
                }
                continue;
            }
            String name = NAMES.get(key);
            if (name == null) {
                continue;
            }
            String id = platform + "/" + device;
            firstLine.putIfAbsent(id, i + 1);
            devices.computeIfAbsent(id, k -> new LinkedHashMap<>()).putIfAbsent(name, value);
        }
        if (!sawAny) {
            diagnostics.add(Diagnostic.error(PROBE, file, null,
                    "no '[PLATFORM/DEVICE]  CL_...  value' lines; expected the output of 'clinfo --raw'"));
            return new ParsedOutput(List.of(), diagnostics);
        }
        List<OpenClDevice> list = new ArrayList<>();
        for (Map.Entry<String, Map<String, String>> e : devices.entrySet()) {
            String platform = e.getKey().substring(0, e.getKey().indexOf('/'));
            Map<String, String> fields = e.getValue();
            nvidiaTopology(fields);
            list.add(new OpenClDevice(platformNames.getOrDefault(platform, platform), fields, firstLine.get(e.getKey())));
        }
        return new ParsedOutput(ClinfoParser.gpus(list, PROBE, file, diagnostics), diagnostics);
    }

    /**
     * The raw form gives NVIDIA's bus and slot (device << 3 | function) as separate numbers where the
     * long form prints {@code PCI-E, 0000:01:00.0}; this writes the long form's value.
     */
    private static void nvidiaTopology(Map<String, String> fields) {
        Long bus = HexId.parseLong(fields.get(PCI_BUS_NV));
        Long slot = HexId.parseLong(fields.get(PCI_SLOT_NV));
        Long domain = fields.containsKey(PCI_DOMAIN_NV) ? HexId.parseLong(fields.get(PCI_DOMAIN_NV)) : Long.valueOf(0);
        if (bus != null && slot != null && domain != null && bus >= 0 && bus <= 0xff && slot >= 0 && slot <= 0xff) {
            fields.putIfAbsent(OpenClDevice.TOPOLOGY_NV,
                    String.format("PCI-E, %04x:%02x:%02x.%x", domain, bus, slot >> 3, slot & 7));
        }
    }
}
