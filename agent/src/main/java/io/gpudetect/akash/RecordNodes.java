package io.gpudetect.akash;

import io.gpudetect.match.CapacityRecordOffers;
import io.gpudetect.match.InvalidInputException;
import io.gpudetect.match.YamlNode;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Nodes as their {@code GpuCapacity} records describe them, for the operator's rules: each GPU with its PCI ids,
 * and the node's allocatable GPU resources as the record names them ({@code nvidia.com/gpu}). A record without
 * an {@code allocatable} field leaves the allocatable units unknown; one with an empty map says there are none.
 * Records do not say which cards have a DRM node. {@code Node} objects without a record are listed without GPUs.
 */
public final class RecordNodes {

    private RecordNodes() {
    }

    public static List<NodeInput> read(CapacityRecordOffers.RecordStore store) throws InvalidInputException {
        List<YamlNode> objects = new ArrayList<>();
        for (YamlNode doc : store.objects()) {
            if (doc.isSequence()) {
                objects.addAll(doc.items());
            } else if (doc.isMapping() && doc.get("items") != null && doc.get("items").isSequence() && doc.get("spec") == null) {
                objects.addAll(doc.get("items").items());
            } else {
                objects.add(doc);
            }
        }
        Map<String, NodeInput> nodes = new TreeMap<>();
        List<String> bare = new ArrayList<>();
        for (int i = 0; i < objects.size(); i++) {
            YamlNode o = objects.get(i);
            String where = "[" + i + "]";
            if (!o.isMapping()) {
                throw new InvalidInputException(store.describe(), where, o.line(), "expected a GpuCapacity record (a mapping), found " + o.describe());
            }
            String kind = text(o.get("kind"));
            String name = text(o.get("metadata") == null ? null : o.get("metadata").get("name"));
            if ("Node".equals(kind)) {
                if (name != null) {
                    bare.add(name);
                }
                continue;
            }
            if (kind != null && !kind.equals("GpuCapacity")) {
                continue;
            }
            YamlNode spec = o.get("spec") == null ? o : o.get("spec");
            if (text(spec.get("nodeName")) != null) {
                name = text(spec.get("nodeName"));
            }
            if (name == null) {
                throw new InvalidInputException(store.describe(), where + ".metadata.name", o.line(), "missing; expected the node's name");
            }
            String at = where + "(" + name + ")";
            nodes.put(name, new NodeInput(name, gpus(spec.get("gpus"), store, at + ".gpus"),
                    new DrmCards.NotKnown("a GpuCapacity record does not say which cards have a DRM node; run "
                            + "gpu-detect akash on the node itself"),
                    allocatable(spec.get("allocatable"), store, at + ".allocatable"),
                    "the record has no allocatable field", store.describe()));
        }
        for (String n : bare) {
            nodes.putIfAbsent(n, new NodeInput(n, List.of(), new DrmCards.NotKnown("the node has no GpuCapacity record"),
                    null, "the node has no GpuCapacity record", store.describe()));
        }
        return List.copyOf(nodes.values());
    }

    private static List<Gpu> gpus(YamlNode list, CapacityRecordOffers.RecordStore store, String at) throws InvalidInputException {
        List<Gpu> out = new ArrayList<>();
        if (list == null || list.isNull()) {
            return out;
        }
        if (!list.isSequence()) {
            throw new InvalidInputException(store.describe(), at, list.line(), "expected a list of GPUs, found " + list.describe());
        }
        for (int i = 0; i < list.items().size(); i++) {
            YamlNode g = list.items().get(i);
            String here = at + "[" + i + "]";
            if (!g.isMapping()) {
                throw new InvalidInputException(store.describe(), here, g.line(), "expected a GPU (a mapping with vendor, model, pciVendorId, pciDeviceId)");
            }
            Gpu.Builder b = Gpu.builder("record");
            String vendor = text(g.get("vendor"));
            b.vendor(vendor == null ? null : Vendor.fromId(vendor)).name(text(g.get("name"))).model(text(g.get("model")))
                    .interfaceType(text(g.get("interface")))
                    .pciVendorId(hex(g.get("pciVendorId"), store, here + ".pciVendorId"))
                    .pciDeviceId(hex(g.get("pciDeviceId"), store, here + ".pciDeviceId"))
                    .pciSubsystemVendorId(hex(g.get("pciSubsystemVendorId"), store, here + ".pciSubsystemVendorId"))
                    .pciSubsystemDeviceId(hex(g.get("pciSubsystemDeviceId"), store, here + ".pciSubsystemDeviceId"));
            String address = text(g.get("pciAddress"));
            if (address != null) {
                b.pciAddress(PciAddress.parse(address).orElseThrow(() -> new InvalidInputException(store.describe(),
                        here + ".pciAddress", g.line(), "expected a PCI address such as 0000:17:00.0, found " + address)));
            }
            String gi = text(g.get("memoryGi"));
            if (gi != null) {
                if (!gi.matches("\\d{1,6}")) {
                    throw new InvalidInputException(store.describe(), here + ".memoryGi", g.line(), "expected a whole number of GiB, found " + gi);
                }
                b.memoryGi(Integer.valueOf(gi));
            }
            out.add(b.build());
        }
        return out;
    }

    private static Map<String, Long> allocatable(YamlNode map, CapacityRecordOffers.RecordStore store, String at) throws InvalidInputException {
        if (map == null || map.isNull()) {
            return null;
        }
        if (!map.isMapping()) {
            throw new InvalidInputException(store.describe(), at, map.line(), "expected a mapping of resource to count ({nvidia.com/gpu: 8}), found " + map.describe());
        }
        Map<String, Long> out = new TreeMap<>();
        for (Map.Entry<String, YamlNode> e : map.fields().entrySet()) {
            String v = text(e.getValue());
            if (v == null || !v.matches("\\d{1,12}")) {
                throw new InvalidInputException(store.describe(), at + "." + e.getKey(), e.getValue().line(),
                        "expected a whole number of 0 or more, found " + e.getValue().describe());
            }
            out.put(e.getKey().strip(), Long.valueOf(v));
        }
        return out;
    }

    private static String hex(YamlNode node, CapacityRecordOffers.RecordStore store, String at) throws InvalidInputException {
        String t = text(node);
        if (t == null) {
            return null;
        }
        String id = t.toLowerCase(Locale.ROOT);
        if (!id.matches("[0-9a-f]{4}")) {
            throw new InvalidInputException(store.describe(), at, node.line(), "expected 4 hex digits such as 10de, found " + t);
        }
        return id;
    }

    private static String text(YamlNode node) {
        return node == null || !node.isScalar() || node.text().isBlank() ? null : node.text().strip();
    }
}
