package io.gpudetect.match;

import io.gpudetect.model.Vendor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the GPU part of an Akash SDL ({@code deploy.yaml}, versions 2.0 to 2.2) into a {@link Demand}, with the
 * SDK's rules (chain-sdk {@code go/sdl/gpu.go} and its JSON schema): {@code units} is a whole number, {@code units > 0}
 * needs {@code attributes.vendor} with at least one vendor, attributes need {@code units > 0}, {@code interface} is
 * {@code pcie} or {@code sxm}, {@code ram} is a binary quantity ({@code 80Gi}; the SDK rejects {@code 80G}).
 * Where we differ on purpose (vendor {@code amd}) is written in {@code docs/match.md}.
 *
 * <p>Only what matching needs is checked; CPU, memory, storage, services and pricing are left to the SDK.
 */
public final class SdlReader {

    private static final Set<String> VERSIONS = Set.of("2.0", "2.1", "2.2");
    private static final Pattern WHOLE = Pattern.compile("\\+?(\\d+)");
    private static final Pattern QUANTITY = Pattern.compile("(\\d+(?:\\.\\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei)?");
    private static final Set<String> GPU_FIELDS = Set.of("units", "attributes");

    private final String file;

    private SdlReader(String file) {
        this.file = file;
    }

    /**
     * @param text the file's content
     * @param file its name, for messages
     */
    public static Demand read(String text, String file) throws InvalidInputException {
        return new SdlReader(file).demand(YamlNode.parse(text, file));
    }

    private Demand demand(YamlNode root) throws InvalidInputException {
        if (!root.isMapping()) {
            throw error("", root, "expected an SDL: a mapping with version, services, profiles and deployment, found "
                    + root.describe());
        }
        YamlNode version = required(root, "version", "", "the SDL version, \"2.0\" or \"2.1\"");
        if (!version.isScalar() || !VERSIONS.contains(version.text())) {
            throw error("version", version, "expected \"2.0\" or \"2.1\" (or \"2.2\"), found " + version.describe());
        }
        YamlNode profiles = mapping(required(root, "profiles", "", "a mapping with compute and placement"), "profiles");
        YamlNode compute = mapping(required(profiles, "compute", "profiles", "a mapping of compute profiles"),
                "profiles.compute");
        Map<String, GpuRequest> requests = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, YamlNode> profile : compute.fields().entrySet()) {
            String path = "profiles.compute." + profile.getKey();
            requests.put(profile.getKey(), profileGpu(profile.getValue(), path));
        }
        YamlNode deployment = mapping(required(root, "deployment", "", "a mapping of services to placements"),
                "deployment");
        List<Placement> placements = new ArrayList<>();
        for (Map.Entry<String, YamlNode> service : deployment.fields().entrySet()) {
            String servicePath = "deployment." + service.getKey();
            for (Map.Entry<String, YamlNode> where : mapping(service.getValue(), servicePath).fields().entrySet()) {
                String path = servicePath + "." + where.getKey();
                YamlNode placement = mapping(where.getValue(), path);
                YamlNode profile = required(placement, "profile", path, "the name of a compute profile");
                if (!profile.isScalar() || !requests.containsKey(profile.text())) {
                    throw error(path + ".profile", profile, "expected one of the compute profiles "
                            + requests.keySet() + ", found " + profile.describe());
                }
                int count = wholeNumber(required(placement, "count", path, "the number of replicas"), path + ".count",
                        "the number of replicas");
                placements.add(new Placement(service.getKey(), where.getKey(), profile.text(), count,
                        requests.get(profile.text())));
            }
        }
        return new Demand(file, placements);
    }

    private GpuRequest profileGpu(YamlNode profile, String path) throws InvalidInputException {
        YamlNode resources = mapping(profile, path).get("resources");
        if (resources == null) {
            return GpuRequest.none();
        }
        YamlNode gpu = mapping(resources, path + ".resources").get("gpu");
        if (gpu == null) {
            return GpuRequest.none();
        }
        String gpuPath = path + ".resources.gpu";
        if (!gpu.isMapping()) {
            throw error(gpuPath, gpu, "expected a mapping with units (and attributes when units > 0), found "
                    + gpu.describe());
        }
        for (String key : gpu.fields().keySet()) {
            if (!GPU_FIELDS.contains(key)) {
                throw error(gpuPath + "." + key, gpu.get(key), "unsupported field for a GPU resource; expected units "
                        + "and attributes");
            }
        }
        YamlNode unitsNode = gpu.get("units");
        if (unitsNode == null) {
            throw error(gpuPath + ".units", gpu, "missing; expected the number of GPUs each replica needs (0 or more)");
        }
        int units = wholeNumber(unitsNode, gpuPath + ".units", "the number of GPUs each replica needs");
        YamlNode attributes = gpu.get("attributes");
        if (units == 0) {
            // The network's parser (node sdl/gpu.go, v2ResourceGPU) checks attributes only when units > 0 and
            // accepts them beside units: 0, which asks for no GPU; the SDK schema refuses them.
            if (attributes != null && !attributes.isNull()) {
                choices(attributes, gpuPath + ".attributes");
            }
            return GpuRequest.none();
        }
        if (attributes == null || attributes.isNull()) {
            throw error(gpuPath + ".attributes", attributes == null ? gpu : attributes,
                    "missing; units > 0 needs attributes.vendor naming the GPU vendor (nvidia)");
        }
        return new GpuRequest(units, choices(attributes, gpuPath + ".attributes"));
    }

    private List<GpuChoice> choices(YamlNode attributes, String path) throws InvalidInputException {
        mapping(attributes, path);
        for (Map.Entry<String, YamlNode> e : attributes.fields().entrySet()) {
            // interconnect (GPU fabric groups, chain-sdk 2026) does not change which GPUs fit, so it is accepted and unused.
            if (!e.getKey().equals("vendor") && !e.getKey().equals("interconnect")) {
                throw error(path + "." + e.getKey(), e.getValue(), "unsupported GPU attribute; expected vendor");
            }
        }
        YamlNode vendors = attributes.get("vendor");
        if (vendors == null || vendors.isNull() || (vendors.isMapping() && vendors.fields().isEmpty())) {
            throw error(path + ".vendor", vendors == null ? attributes : vendors,
                    "at least one vendor must be set; expected vendor.nvidia (a list of models, or empty for any model)");
        }
        mapping(vendors, path + ".vendor");
        List<GpuChoice> choices = new ArrayList<>();
        for (Map.Entry<String, YamlNode> v : vendors.fields().entrySet()) {
            String vendorPath = path + ".vendor." + v.getKey();
            Vendor vendor = vendor(v.getKey(), v.getValue(), vendorPath);
            YamlNode list = v.getValue();
            if (list.isNull() || (list.isSequence() && list.items().isEmpty())) {
                choices.add(new GpuChoice(vendor, null, null, false, null, null));
                continue;
            }
            if (!list.isSequence()) {
                throw error(vendorPath, list, "expected a list of models (- model: a100), or nothing for any model, "
                        + "found " + list.describe());
            }
            for (int i = 0; i < list.items().size(); i++) {
                choices.add(entry(vendor, list.items().get(i), vendorPath + "[" + i + "]"));
            }
        }
        return choices;
    }

    private Vendor vendor(String name, YamlNode value, String path) throws InvalidInputException {
        if (name.equals("nvidia")) {
            return Vendor.NVIDIA;
        }
        if (name.equals("amd")) {
            return Vendor.AMD;
        }
        throw error(path, value, "unknown GPU vendor '" + name + "'; expected nvidia (or amd, which providers serve)");
    }

    private GpuChoice entry(Vendor vendor, YamlNode entry, String path) throws InvalidInputException {
        if (!entry.isMapping()) {
            throw error(path, entry, "expected a mapping with model (and optional ram, interface), found "
                    + entry.describe());
        }
        // Other fields of an entry (a misspelt "vram") are ignored, as the network's parser decodes the entry into
        // v2GPUNvidia with yaml.v3's non-strict Decode (node sdl/gpu.go); the SDK schema refuses them.
        YamlNode model = entry.get("model");
        if (model == null || !model.isScalar() || model.text().isBlank()) {
            throw error(path + ".model", model == null ? entry : model, "expected a model name such as a100, found "
                    + (model == null ? "nothing" : model.describe()));
        }
        Integer ramGi = null;
        YamlNode ram = entry.get("ram");
        if (ram != null) {
            ramGi = ramGi(ram, path + ".ram");
        }
        String iface = null;
        YamlNode interfaceNode = entry.get("interface");
        if (interfaceNode != null) {
            if (!interfaceNode.isScalar() || !(interfaceNode.text().equals("pcie") || interfaceNode.text().equals("sxm"))) {
                throw error(path + ".interface", interfaceNode, "invalid GPU interface " + interfaceNode.describe()
                        + "; expected pcie or sxm (sxm covers SXM2 to SXM5)");
            }
            iface = interfaceNode.text();
        }
        return new GpuChoice(vendor, model.text().strip(), ramGi, false, iface, null);
    }

    /** A memory quantity as Akash writes GPU RAM ({@code 80Gi}, {@code 40960Mi}), in whole Gi. */
    private int ramGi(YamlNode ram, String path) throws InvalidInputException {
        Long gi = ram.isScalar() ? parseGi(ram.text()) : null;
        if (gi == null) {
            throw error(path, ram, "expected a memory quantity in whole Gi such as 24Gi or 80Gi (binary suffixes "
                    + "Ki Mi Gi Ti; the SDK rejects 80G), found " + ram.describe());
        }
        return gi.intValue();
    }

    /** Whole Gi of a binary quantity ({@code 80Gi}, {@code 81920Mi}, {@code 1Ti}), or null when it is none. */
    static Long parseGi(String text) {
        Matcher m = QUANTITY.matcher(text.strip());
        if (!m.matches()) {
            return null;
        }
        java.math.BigDecimal n = new java.math.BigDecimal(m.group(1));
        String suffix = m.group(2) == null ? "" : m.group(2);
        int power = "KiMiGiTiPiEi".indexOf(suffix) / 2 + 1;
        java.math.BigDecimal bytes = n.multiply(java.math.BigDecimal.valueOf(1024).pow(suffix.isEmpty() ? 0 : power));
        java.math.BigDecimal gi = bytes.divide(java.math.BigDecimal.valueOf(1024L * 1024 * 1024));
        try {
            long whole = gi.longValueExact();
            return whole > 0 && whole < Integer.MAX_VALUE ? whole : null;
        } catch (ArithmeticException notWhole) {
            return null;
        }
    }

    private int wholeNumber(YamlNode node, String path, String what) throws InvalidInputException {
        if (node.isScalar()) {
            Matcher m = WHOLE.matcher(node.text().strip());
            if (m.matches() && m.group(1).length() < 10) {
                return Integer.parseInt(m.group(1));
            }
            if (node.text().strip().matches("[-+]?\\d*\\.\\d+([eE][-+]?\\d+)?")) {
                throw error(path, node, "a fractional value " + node.describe() + "; expected a whole number (" + what
                        + ")");
            }
        }
        throw error(path, node, "expected a whole number (" + what + "), found " + node.describe());
    }

    private YamlNode required(YamlNode parent, String key, String parentPath, String what) throws InvalidInputException {
        YamlNode child = parent.get(key);
        String path = parentPath.isEmpty() ? key : parentPath + "." + key;
        if (child == null) {
            throw error(path, parent, "missing; expected " + what);
        }
        return child;
    }

    private YamlNode mapping(YamlNode node, String path) throws InvalidInputException {
        if (!node.isMapping()) {
            throw error(path, node, "expected a mapping, found " + node.describe());
        }
        return node;
    }

    private InvalidInputException error(String path, YamlNode at, String problem) {
        return new InvalidInputException(file, path, at == null ? null : at.line(), problem);
    }
}
