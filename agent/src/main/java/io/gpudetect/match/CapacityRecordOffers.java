package io.gpudetect.match;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpudetect.k8s.ClusterErrors;
import io.gpudetect.model.Vendor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The one adapter from {@code GpuCapacity} records (group {@code gpu-detect.io}) to {@link NodeOffer}s: it reads
 * the record's JSON shape as {@code io.gpudetect.record.GpuCapacitySpec} / {@code GpuCapacityStatus} write it.
 * Everything else reads {@link NodeOffer} only.
 *
 * <pre>
 * apiVersion: gpu-detect.io/v1alpha1
 * kind: GpuCapacity
 * metadata: {name: node-a}                       # named after the node
 * spec:
 *   gpus:                                        # one entry per GPU
 *   - {vendor: nvidia, model: a100, memoryGi: 40, interface: sxm, pciAddress: "0000:17:00.0", partitioned: true}
 *   slices:                                      # MIG instances of partitioned GPUs
 *   - {gpuPciAddress: "0000:17:00.0", kind: mig, profile: 3g.20gb}
 *   allocatable: {nvidia.com/gpu: 0, nvidia.com/mig-3g.20gb: 2}   # the Node's extended resources
 *   requested: {nvidia.com/mig-3g.20gb: 1}                         # what its pods use
 * status:
 *   lastGoodPass: "2026-05-01T10:00:00Z"
 * </pre>
 * Also read, for hand-written files: {@code inUse} for {@code requested}, and a GPU's own
 * {@code partitioning: {enabled, instances: [{profile}]}} (the inventory's form) for {@code partitioned} and slices.
 * A file holds records as a list, a Kubernetes {@code List} ({@code kubectl get gpucapacities,nodes -o yaml}), or
 * {@code ---} separated documents. {@code Node} objects in it name the nodes that should have a record: those
 * without one are reported as missing.
 */
public final class CapacityRecordOffers implements OfferSource {

    /** Where the objects come from: a file ({@link #file}) or a cluster ({@link #cluster}). */
    public interface RecordStore {
        /** Every object: records, and optionally the cluster's nodes. */
        List<YamlNode> objects() throws InvalidInputException;

        String describe();
    }

    /** The custom resource, addressed without API discovery so that no CRD lookup is needed to list it. */
    public static final ResourceDefinitionContext GPU_CAPACITY = new ResourceDefinitionContext.Builder()
            .withGroup("gpu-detect.io").withVersion("v1alpha1").withKind("GpuCapacity").withPlural("gpucapacities")
            .withNamespaced(false).build();

    /**
     * Every {@code GpuCapacity} record and every Node of the cluster {@code client} talks to. Each record goes through
     * the same reading as a file's, so a cluster and {@code kubectl get gpucapacities,nodes -o yaml} agree.
     * The client stays open; its owner closes it.
     */
    public static RecordStore cluster(KubernetesClient client) {
        return new RecordStore() {
            @Override
            public List<YamlNode> objects() throws InvalidInputException {
                List<YamlNode> objects = new ArrayList<>();
                ObjectMapper json = new ObjectMapper();
                try {
                    for (GenericKubernetesResource r : client.genericKubernetesResources(GPU_CAPACITY).list().getItems()) {
                        objects.add(YamlNode.parse(Serialization.asJson(r), describe()));
                    }
                    for (Node n : client.nodes().list().getItems()) {
                        ObjectNode node = json.createObjectNode().put("kind", "Node");
                        node.putObject("metadata").put("name", n.getMetadata().getName());
                        objects.add(YamlNode.parse(node.toString(), describe()));
                    }
                } catch (KubernetesClientException e) {
                    throw new InvalidInputException(null, null, null,
                            ClusterErrors.message(e, client.getMasterUrl().toString()));
                }
                return objects;
            }

            @Override
            public String describe() {
                return "cluster " + client.getMasterUrl();
            }
        };
    }

    /** The objects in a JSON or YAML file. */
    public static RecordStore file(Path path) {
        return new RecordStore() {
            @Override
            public List<YamlNode> objects() throws InvalidInputException {
                String text;
                try {
                    text = Files.readString(path, StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new InvalidInputException(path.toString(), null, null, "cannot read: " + e.getMessage());
                }
                return YamlNode.parseAll(text, path.toString());
            }

            @Override
            public String describe() {
                return path.toString();
            }
        };
    }

    private static final Set<String> KNOWN_VENDORS = Set.of("nvidia", "amd", "intel");

    private final RecordStore store;

    public CapacityRecordOffers(RecordStore store) {
        this.store = store;
    }

    @Override
    public String describe() {
        return store.describe();
    }

    @Override
    public List<NodeOffer> offers() throws InvalidInputException {
        Map<String, NodeOffer> byNode = new TreeMap<>();
        Set<String> nodes = new TreeSet<>();
        List<YamlNode> objects = new ArrayList<>();
        for (YamlNode doc : store.objects()) {
            flatten(doc, objects);
        }
        for (int i = 0; i < objects.size(); i++) {
            YamlNode object = objects.get(i);
            String where = "[" + i + "]";
            if (!object.isMapping()) {
                throw error(where, object, "expected a GpuCapacity record (a mapping), found " + object.describe());
            }
            YamlNode kind = object.get("kind");
            if (kind != null && kind.isScalar() && kind.text().equals("Node")) {
                String name = text(path(object, "metadata", "name"));
                if (name != null) {
                    nodes.add(name);
                }
                continue;
            }
            if (kind != null && !(kind.isScalar() && kind.text().equals("GpuCapacity"))) {
                continue;   // other objects a kubectl list may carry are no concern of ours
            }
            NodeOffer offer = offer(object, where);
            if (byNode.put(offer.node(), offer) != null) {
                throw error(where, object, "a second record for node " + offer.node() + "; expected one per node");
            }
        }
        for (String node : nodes) {
            byNode.putIfAbsent(node, NodeOffer.missing(node));
        }
        return List.copyOf(byNode.values());
    }

    private static void flatten(YamlNode doc, List<YamlNode> into) {
        if (doc.isSequence()) {
            into.addAll(doc.items());
        } else if (doc.isMapping() && doc.get("items") != null && doc.get("items").isSequence()
                && doc.get("spec") == null) {
            into.addAll(doc.get("items").items());
        } else {
            into.add(doc);
        }
    }

    /** One record as a node offer. */
    NodeOffer offer(YamlNode record, String where) throws InvalidInputException {
        YamlNode spec = record.get("spec") == null ? record : record.get("spec");
        YamlNode status = record.get("status");
        String node = text(spec.get("nodeName"));
        if (node == null) {
            node = text(path(record, "metadata", "name"));
        }
        if (node == null) {
            throw error(where + ".metadata.name", record, "missing; expected the node's name");
        }
        String at = where + "(" + node + ")";
        List<OfferedGpu> gpus = new ArrayList<>();
        YamlNode gpuList = field(spec, status, "gpus");
        if (gpuList != null && !gpuList.isNull()) {
            if (!gpuList.isSequence()) {
                throw error(at + ".gpus", gpuList, "expected a list of GPUs, found " + gpuList.describe());
            }
            YamlNode slices = field(spec, status, "slices");
            for (int i = 0; i < gpuList.items().size(); i++) {
                gpus.add(gpu(gpuList.items().get(i), slices, at + ".gpus[" + i + "]"));
            }
        }
        gpus.sort(Comparator.comparing((OfferedGpu g) -> g.vendor().id())
                .thenComparing(g -> g.model() == null ? "" : g.model()));
        YamlNode allocatableField = field(spec, status, "allocatable");
        Map<String, Integer> allocatable = units(allocatableField, at + ".allocatable");
        if (allocatableField != null && allocatableField.isMapping()) {
            // The record says what the node advertises: a kind it lacks has no units (no device plugin, or one not
            // ready yet), however many GPUs the agent found.
            for (OfferedGpu g : gpus) {
                if (!g.migEnabled()) {
                    allocatable.putIfAbsent(NodeOffer.unitKind(g, null), 0);
                }
                g.profiles().forEach(p -> allocatable.putIfAbsent(NodeOffer.unitKind(g, p), 0));
            }
        }
        return NodeOffer.of(node, gpus, allocatable,
                units(field(spec, status, "requested") != null ? field(spec, status, "requested")
                        : field(spec, status, "inUse"), at + ".requested"),
                time(field(spec, status, "lastGoodPass"), at + ".lastGoodPass"));
    }

    private OfferedGpu gpu(YamlNode gpu, YamlNode slices, String at) throws InvalidInputException {
        if (!gpu.isMapping()) {
            throw error(at, gpu, "expected a GPU (a mapping with vendor, model, memoryGi, interface)");
        }
        String vendor = text(gpu.get("vendor"));
        if (vendor == null) {
            throw error(at + ".vendor", gpu, "missing; expected nvidia, amd, intel or other");
        }
        Integer memoryGi = null;
        YamlNode mem = gpu.get("memoryGi");
        if (mem != null && !mem.isNull()) {
            memoryGi = whole(mem, at + ".memoryGi");
        }
        String iface = text(gpu.get("interface"));
        boolean split = "true".equals(text(gpu.get("partitioned")));
        List<String> profiles = new ArrayList<>();
        YamlNode partitioning = gpu.get("partitioning");
        if (partitioning != null && partitioning.isMapping()) {
            split |= "true".equals(text(partitioning.get("enabled")));
            YamlNode instances = partitioning.get("instances");
            if (instances != null && instances.isSequence()) {
                instances.items().forEach(instance -> addProfile(instance, profiles));
            }
        }
        if (split && slices != null && slices.isSequence()) {
            String address = text(gpu.get("pciAddress"));
            String uuid = text(gpu.get("uuid"));
            for (YamlNode slice : slices.items()) {
                boolean ours = (address != null && address.equals(text(slice.get("gpuPciAddress"))))
                        || (uuid != null && uuid.equals(text(slice.get("gpuUuid"))));
                if (ours) {
                    addProfile(slice, profiles);
                }
            }
        }
        return new OfferedGpu(Vendor.fromId(vendor), text(gpu.get("model")), memoryGi, iface, split,
                split ? profiles : List.of());
    }

    private static void addProfile(YamlNode slice, List<String> profiles) {
        String profile = text(slice.get("profile"));
        if (profile != null) {
            profiles.add(profile);
        }
    }

    /** Units per kind; Kubernetes resource names are read as our kinds ({@code nvidia.com/gpu} is {@code nvidia}). */
    private Map<String, Integer> units(YamlNode map, String at) throws InvalidInputException {
        Map<String, Integer> out = new LinkedHashMap<>();
        if (map == null || map.isNull()) {
            return out;
        }
        if (!map.isMapping()) {
            throw error(at, map, "expected a mapping of unit kind to count ({nvidia.com/gpu: 8}), found "
                    + map.describe());
        }
        for (Map.Entry<String, YamlNode> e : map.fields().entrySet()) {
            out.merge(unitKind(e.getKey()), whole(e.getValue(), at + "." + e.getKey()), Integer::sum);
        }
        return out;
    }

    /** The Kubernetes resource a unit kind stands for: {@code nvidia} -> {@code nvidia.com/gpu}, {@code mig-1g.10gb} -> {@code nvidia.com/mig-1g.10gb}. */
    public static String resourceName(String kind) {
        if (kind.startsWith("mig-")) {
            return "nvidia.com/" + kind;
        }
        return switch (kind) {
            case "nvidia", "amd" -> kind + ".com/gpu";
            case "intel" -> "gpu.intel.com/i915";
            default -> kind;
        };
    }

    /** {@code nvidia.com/gpu} -> {@code nvidia}, {@code nvidia.com/mig-1g.10gb} -> {@code mig-1g.10gb}, {@code gpu.intel.com/i915} -> intel. */
    static String unitKind(String resource) {
        String r = resource.strip();
        int slash = r.indexOf('/');
        if (slash < 0) {
            return r;
        }
        String domain = r.substring(0, slash);
        String name = r.substring(slash + 1);
        if (name.startsWith("mig-")) {
            return name;
        }
        for (String vendor : KNOWN_VENDORS) {
            if (domain.equals(vendor + ".com") || domain.equals("gpu." + vendor + ".com")) {
                return vendor;
            }
        }
        return r;
    }

    private Instant time(YamlNode node, String at) throws InvalidInputException {
        String text = text(node);
        if (text == null) {
            return null;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw error(at, node, "expected a time such as 2026-05-01T10:00:00Z, found " + node.describe());
        }
    }

    private int whole(YamlNode node, String at) throws InvalidInputException {
        if (node.isScalar() && node.text().strip().matches("\\d{1,9}")) {
            return Integer.parseInt(node.text().strip());
        }
        throw error(at, node, "expected a whole number of 0 or more, found " + node.describe());
    }

    private static YamlNode field(YamlNode spec, YamlNode status, String name) {
        YamlNode v = spec.get(name);
        return v != null || status == null ? v : status.get(name);
    }

    private static YamlNode path(YamlNode node, String... names) {
        YamlNode n = node;
        for (String name : names) {
            if (n == null) {
                return null;
            }
            n = n.get(name);
        }
        return n;
    }

    private static String text(YamlNode node) {
        return node == null || !node.isScalar() || node.text().isBlank() ? null : node.text().strip();
    }

    private InvalidInputException error(String path, YamlNode at, String problem) {
        return new InvalidInputException(store.describe(), path, at == null ? null : at.line(), problem);
    }
}
