package io.gpudetect.match;

import io.gpudetect.model.Vendor;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the GPU part of an Akash SDL ({@code deploy.yaml}) into a {@link Demand} as the network reads it: Akash's
 * Go parser (akash-network/node {@code sdl/} at {@code 11b52e52}, the same GPU code as chain-sdk {@code go/sdl}),
 * the deployment validation every SDL then passes (on chain too), and what a provider reads from the attribute
 * keys the deployment carries ({@link GpuAttributeKeys}). Where the Go parser takes what the SDK's JSON schema
 * refuses ({@code vendor: {}}, an entry without a model, {@code ram: 1500Mi}), the SDL is read, not refused; each
 * rule, with the Go file it comes from, is in {@code docs/match.md}, and so are the few places we differ on purpose
 * (vendor {@code amd}, {@code attributes.interconnect}).
 *
 * <p>Only what matching needs is read; CPU, memory, storage, services and pricing are left to the SDK, so nothing
 * in them makes an SDL invalid here.
 */
public final class SdlReader {

    /** The most GPUs one replica may ask for: chain-sdk {@code go/node/deployment/v1beta4/validation_config.go}. */
    static final int MAX_UNIT_GPU = 24;
    /** The most GPUs one placement group may ask for in all (per replica times replicas, summed): the same file. */
    static final long MAX_GROUP_GPU = MAX_UNIT_GPU * 50L;

    private static final Set<String> GPU_FIELDS = Set.of("units", "attributes");
    private static final Set<String> READ_VENDORS = Set.of("nvidia", "amd");

    private final String file;
    private final List<String> warnings = new ArrayList<>();

    /** A GPU request's attributes as the provider reads them. */
    private record Attributes(List<GpuChoice> choices, String unbiddable) {
    }

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
        try {
            GoScalars.sdlVersion(version.isScalar() ? version.text() : "");
        } catch (GoScalars.Refused e) {
            throw error("version", version, version.isScalar() ? e.getMessage()
                    : "expected a version such as \"2.0\" or \"2.1\", found " + version.describe());
        }
        YamlNode profiles = mapping(required(root, "profiles", "", "a mapping with compute and placement"), "profiles");
        YamlNode compute = mapping(required(profiles, "compute", "profiles", "a mapping of compute profiles"),
                "profiles.compute");
        Map<String, GpuRequest> requests = new LinkedHashMap<>();
        for (Map.Entry<String, YamlNode> profile : compute.fields().entrySet()) {
            String path = "profiles.compute." + profile.getKey();
            requests.put(profile.getKey(), profileGpu(profile.getValue(), path));
        }
        YamlNode deployment = mapping(required(root, "deployment", "", "a mapping of services to placements"),
                "deployment");
        List<Placement> placements = new ArrayList<>();
        Map<String, Long> gpusPerGroup = new LinkedHashMap<>();
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
                long count = count(placement.get("count"), path + ".count");
                GpuRequest gpu = requests.get(profile.text());
                long groupGpus = gpusPerGroup.merge(where.getKey(), gpu.units() * count, Long::sum);
                if (groupGpus > MAX_GROUP_GPU) {
                    throw error(path + ".count", placement.get("count") == null ? placement : placement.get("count"),
                            "placement group " + where.getKey() + " asks for " + groupGpus + " GPUs in all (GPUs per "
                                    + "replica times count, over its services); the network accepts at most "
                                    + MAX_GROUP_GPU);
                }
                placements.add(new Placement(service.getKey(), where.getKey(), profile.text(),
                        (int) Math.min(count, Integer.MAX_VALUE), gpu.withFabric(interconnect(profiles, where.getKey()))));
            }
        }
        return new Demand(file, placements, warnings);
    }

    /** {@code count}, as yaml.v3 decodes a {@code uint32}: absent or nothing is 0 replicas. */
    private long count(YamlNode node, String path) throws InvalidInputException {
        if (node == null || node.isNull()) {
            return 0;
        }
        if (!node.isScalar()) {
            throw error(path, node, "expected a whole number (the number of replicas), found " + node.describe());
        }
        try {
            return GoScalars.yamlUint32(node.text(), node.quoted());
        } catch (GoScalars.Refused e) {
            throw error(path, node, e.getMessage() + "; expected the number of replicas");
        }
    }

    private GpuRequest profileGpu(YamlNode profile, String path) throws InvalidInputException {
        YamlNode resources = mapping(profile, path).get("resources");
        if (resources == null) {
            return GpuRequest.none();
        }
        YamlNode gpu = mapping(resources, path + ".resources").get("gpu");
        String gpuPath = path + ".resources.gpu";
        if (gpu == null || gpu.isNull()) {
            return GpuRequest.none();
        }
        if (gpu.isScalar()) {
            // v2ResourceGPU.UnmarshalYAML walks a mapping's keys; a scalar has none, so it is units 0.
            warnings.add(InvalidInputException.format(file, gpuPath, gpu.line(), "gpu: " + gpu.describe()
                    + " asks for no GPU: the network's parser reads units and attributes only from a mapping, so this "
                    + "profile is deployed without a GPU; write units and attributes under gpu"));
            return GpuRequest.none();
        }
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
        long units = units(gpu.get("units"), gpuPath + ".units");
        YamlNode attributesNode = gpu.get("attributes");
        boolean hasAttributes = attributesNode != null && !attributesNode.isNull();
        Attributes attributes = hasAttributes ? attributes(attributesNode, gpuPath + ".attributes") : null;
        if (units > 0 && !hasAttributes) {
            throw error(gpuPath + ".attributes", attributesNode == null ? gpu : attributesNode,
                    "missing; units > 0 needs attributes.vendor naming the GPU vendor (nvidia)");
        }
        if (units == 0 && hasAttributes) {
            throw error(gpuPath + ".attributes", attributesNode, "attributes with units 0: the network refuses a GPU "
                    + "request that names GPUs but asks for none (\"invalid GPU state. attributes cannot be present "
                    + "if units == 0\"); set units, or remove attributes");
        }
        if (units > MAX_UNIT_GPU) {
            throw error(gpuPath + ".units", gpu.get("units"), gpu.get("units").text() + " GPUs per replica; the network "
                    + "accepts at most " + MAX_UNIT_GPU);
        }
        return units == 0 ? GpuRequest.none()
                : new GpuRequest((int) units, attributes.choices(), attributes.unbiddable());
    }

    /** {@code units}: absent or nothing is 0, as yaml.v3 leaves a null value at zero. */
    private long units(YamlNode node, String path) throws InvalidInputException {
        if (node == null || node.isNull()) {
            return 0;
        }
        if (!node.isScalar()) {
            throw error(path, node, "expected a whole number (the number of GPUs each replica needs), found "
                    + node.describe());
        }
        try {
            BigInteger n = GoScalars.gpuUnits(node.text());
            return n.bitLength() > 62 ? Long.MAX_VALUE : n.longValue();
        } catch (GoScalars.Refused e) {
            throw error(path, node, e.getMessage() + "; expected the number of GPUs each replica needs");
        }
    }

    /**
     * What placement group {@code name}'s attributes ask of the node's RDMA fabric ({@code profiles.placement.<name>.
     * attributes}: {@code capabilities/gpu-interconnect} and its fabric pin, {@link FabricRequest#ofPlacement}); null
     * when nothing. The network matches these against the provider's attributes; we match them against each node.
     */
    private static FabricRequest interconnect(YamlNode profiles, String name) {
        YamlNode placement = profiles.get("placement");
        YamlNode group = placement == null || !placement.isMapping() ? null : placement.get(name);
        YamlNode attributes = group == null || !group.isMapping() ? null : group.get("attributes");
        if (attributes == null || !attributes.isMapping()) {
            return null;
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (Map.Entry<String, YamlNode> e : attributes.fields().entrySet()) {
            if (e.getValue().isScalar()) {
                values.put(e.getKey(), e.getValue().text().strip());
            }
        }
        return FabricRequest.ofPlacement(values);
    }

    private Attributes attributes(YamlNode attributes, String path) throws InvalidInputException {
        if (attributes.isScalar()) {
            // v2GPUAttributes.UnmarshalYAML finds no vendor key in a scalar.
            throw error(path + ".vendor", attributes, "at least one vendor must be set; expected vendor.nvidia (a list "
                    + "of models, or empty for any model), found " + attributes.describe());
        }
        mapping(attributes, path);
        for (Map.Entry<String, YamlNode> e : attributes.fields().entrySet()) {
            // interconnect (GPU fabric groups, chain-sdk branch feat/rdma-multinode) does not change which GPUs fit.
            if (!e.getKey().equals("vendor") && !e.getKey().equals("interconnect")) {
                throw error(path + "." + e.getKey(), e.getValue(), "unsupported GPU attribute; expected vendor");
            }
        }
        YamlNode vendors = attributes.get("vendor");
        if (vendors == null || vendors.isNull()) {
            throw error(path + ".vendor", vendors == null ? attributes : vendors,
                    "at least one vendor must be set; expected vendor.nvidia (a list of models, or empty for any model)");
        }
        mapping(vendors, path + ".vendor");
        List<String> keys = new ArrayList<>();
        List<String> keyPaths = new ArrayList<>();
        List<YamlNode> keyNodes = new ArrayList<>();
        for (Map.Entry<String, YamlNode> v : vendors.fields().entrySet()) {
            String vendorPath = path + ".vendor." + v.getKey();
            YamlNode list = v.getValue();
            if (!READ_VENDORS.contains(v.getKey())) {
                // gpuVendor is decoded without strict fields: a key other than nvidia is skipped.
                warnings.add(InvalidInputException.format(file, vendorPath, list.line(), "vendor '" + v.getKey()
                        + "' is not read: the network's parser reads nvidia only (amd is read here, as providers serve "
                        + "it), so this vendor is ignored"));
                continue;
            }
            if (v.getKey().equals("amd")) {
                warnings.add(InvalidInputException.format(file, vendorPath, list.line(), "vendor amd is matched here "
                        + "as AMD, as providers serve amd.com/gpu; Akash's Go parser (the akash CLI) skips this key, "
                        + "so a deployment made with it does not ask for these AMD GPUs"));
            }
            if (list.isNull() || (list.isSequence() && list.items().isEmpty())) {
                keys.add(GpuAttributeKeys.key(v.getKey(), "*", null, null));
                keyPaths.add(vendorPath);
                keyNodes.add(list);
                continue;
            }
            if (!list.isSequence()) {
                throw error(vendorPath, list, "expected a list of models (- model: a100), or nothing for any model, "
                        + "found " + list.describe());
            }
            for (int i = 0; i < list.items().size(); i++) {
                YamlNode entry = list.items().get(i);
                if (entry.isNull()) {
                    continue; // yaml.v3 leaves a null item out of the list
                }
                keys.add(entryKey(v.getKey(), entry, vendorPath + "[" + i + "]"));
                keyPaths.add(vendorPath + "[" + i + "]");
                keyNodes.add(entry);
            }
        }
        if (keys.isEmpty()) {
            // No nvidia model (vendor: {}, nvidia without models, only vendors it skips): any NVIDIA GPU.
            keys.add(GpuAttributeKeys.key("nvidia", "*", null, null));
            keyPaths.add(path + ".vendor");
            keyNodes.add(vendors);
        }
        List<GpuChoice> choices = new ArrayList<>();
        String unbiddable = null;
        for (int i = 0; i < keys.size(); i++) {
            String refusal = GpuAttributeKeys.refusal(keys.get(i));
            if (refusal != null) {
                throw error(keyPaths.get(i), keyNodes.get(i), refusal);
            }
            int first = keys.indexOf(keys.get(i));
            if (first < i) {
                throw error(keyPaths.get(i), keyNodes.get(i), "the same GPU as " + keyPaths.get(first) + " (attribute "
                        + "key '" + keys.get(i) + "'); the network refuses a key given twice (\"attributes cannot have "
                        + "duplicate keys\")");
            }
            GpuAttributeKeys.Reading reading = GpuAttributeKeys.read(keys.get(i));
            if (reading.choice() != null) {
                choices.add(reading.choice());
            } else if (unbiddable == null) {
                unbiddable = reading.unreadable();
            }
        }
        return new Attributes(choices, unbiddable);
    }

    /** One entry of a vendor's list as its attribute key; fields other than model, ram and interface are skipped. */
    private String entryKey(String vendor, YamlNode entry, String path) throws InvalidInputException {
        if (!entry.isMapping()) {
            throw error(path, entry, "expected a mapping with model (and optional ram, interface), found "
                    + entry.describe());
        }
        // Other fields of an entry (a misspelt "vram") are ignored, as the network's parser decodes the entry into
        // v2GPUNvidia with yaml.v3's non-strict Decode (node sdl/gpu.go); the SDK schema refuses them.
        YamlNode model = entry.get("model");
        if (model != null && !model.isNull() && !model.isScalar()) {
            throw error(path + ".model", model, "expected a model name such as a100, found " + model.describe());
        }
        String modelName = model == null || model.isNull() ? "" : model.text();
        Long ramGi = null;
        YamlNode ram = entry.get("ram");
        if (ram != null && !ram.isNull()) {
            if (!ram.isScalar()) {
                throw error(path + ".ram", ram, "expected a memory size such as 80Gi, found " + ram.describe());
            }
            try {
                ramGi = GoScalars.memoryGi(ram.text());
            } catch (GoScalars.Refused e) {
                throw error(path + ".ram", ram, e.getMessage());
            }
        }
        String iface = null;
        YamlNode interfaceNode = entry.get("interface");
        if (interfaceNode != null && !interfaceNode.isNull()) {
            if (!interfaceNode.isScalar() || !(interfaceNode.text().equals("pcie") || interfaceNode.text().equals("sxm"))) {
                throw error(path + ".interface", interfaceNode, "invalid GPU interface " + interfaceNode.describe()
                        + "; expected pcie or sxm (sxm covers SXM2 to SXM5)");
            }
            iface = interfaceNode.text();
        }
        return GpuAttributeKeys.key(vendor, modelName, ramGi, iface);
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
