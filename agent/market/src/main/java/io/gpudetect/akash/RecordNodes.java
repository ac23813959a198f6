package io.gpudetect.akash;

import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.match.CapacityRecordOffers;
import io.gpudetect.match.InvalidInputException;
import io.gpudetect.match.KubeNode;
import io.gpudetect.match.RecordSet;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.record.GpuCapacitySpec.GpuEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Nodes as their {@code GpuCapacity} records describe them, for the operator's rules: each GPU with its PCI ids,
 * and the node's allocatable GPU resources as the record names them ({@code nvidia.com/gpu}). A record without
 * an {@code allocatable} field leaves the allocatable units unknown; one with an empty map says there are none.
 * Which cards have a DRM node comes from the record's {@code sysClassDrm} and each GPU's {@code drmCards}
 * ({@link #drm}); a record without them leaves it unknown. {@code Node} objects without a record are listed without
 * GPUs; each node's Ready condition and cordon come from its {@code Node} object, when one was read. The record's
 * {@code handout} says which GPUs a DRA driver hands out instead of a device plugin.
 */
public final class RecordNodes {

    private RecordNodes() {
    }

    /**
     * The operator's view of every node of {@code store}, in the order of their names.
     *
     * @param config the inventory operator's configuration, for its node exclusions; null when not given
     * @param hint   what gives the missing facts, for a card that cannot be told; null for none
     */
    public static AkashForecast forecast(CapacityRecordOffers.RecordStore store, AkashGpuTable table,
                                         InventoryOperatorConfig config, String hint) throws InvalidInputException {
        // Each record is cut to what the rules read as it is read (a page at a time from the API server), and each
        // node's GPUs are made only for its forecast, then dropped: at 5,000 nodes the GPU entries with every field,
        // then a Gpu for each (a sources map apiece), filled the command's heap (docs/performance.md, issue 37).
        Texts texts = new Texts();
        RecordSet.Kept<Read> set = store.records(located -> Read.of(located, texts));
        // The first wrong address in the records' order, once every record is read: a later page's failure to
        // arrive, or a later record's syntax error, is reported first, as when the GPUs were made after the lists.
        for (Read read : set.records()) {
            if (read.badAddress() >= 0) {
                throw new InvalidInputException(store.describe(), read.where() + "(" + read.node() + ").gpus["
                        + read.badAddress() + "].pciAddress", read.line(), "expected a PCI address such as "
                        + "0000:17:00.0, found " + read.spec().gpus().get(read.badAddress()).pciAddress());
            }
        }
        // A later record for a node replaces an earlier one; a Node object without a record is a node without GPUs.
        Map<String, Supplier<NodeInput>> nodes = new TreeMap<>();
        for (Read read : set.records()) {
            nodes.put(read.node(), () -> input(read, set, store.describe()));
        }
        for (KubeNode n : set.nodes()) {
            nodes.putIfAbsent(n.name(), () -> new NodeInput(n.name(), List.of(),
                    new DrmCards.NotKnown("the node has no GpuCapacity record"), null,
                    "the node has no GpuCapacity record", n, "its Node object has no status", store.describe(), null));
        }
        List<NodeForecast> out = new ArrayList<>(nodes.size());
        for (Supplier<NodeInput> node : nodes.values()) {
            out.add(OperatorRules.forecast(node.get(), table, config));
        }
        return AkashForecast.fromForecasts(store.describe(), table, out, hint);
    }

    private static NodeInput input(Read read, RecordSet.Kept<Read> set, String source) {
        GpuCapacitySpec spec = read.spec();
        String node = read.node();
        List<Gpu> gpus = new ArrayList<>();
        if (spec != null) {
            for (GpuEntry entry : spec.gpus()) {
                gpus.add(entry.toGpu("record"));
            }
        }
        return new NodeInput(node, gpus, drm(spec, gpus), spec == null ? null : spec.allocatable(),
                "the record has no allocatable field", set.listsNode(node) ? set.node(node) : null,
                set.listsNode(node) ? "its Node object has no status" : "no Node object named " + node
                        + " was read beside the records (kubectl get gpucapacities,nodes -o yaml lists both)",
                source, spec == null ? null : spec.handout(), spec == null ? null : spec.fabric());
    }

    /**
     * The node's DRM cards as its record lists them: each GPU's {@code drmCards} at the GPU's PCI address, under
     * {@code sysClassDrm}. A record without {@code sysClassDrm} (its agent could not read {@code /sys/class/drm},
     * or predates the field), or with a GPU that lacks {@code drmCards}, does not say: never read as "no DRM node".
     */
    static DrmCards drm(GpuCapacitySpec spec, List<Gpu> gpus) {
        if (spec == null || spec.sysClassDrm() == null) {
            return new DrmCards.NotKnown("the GpuCapacity record does not say which cards have a DRM node (no "
                    + "sysClassDrm: its agent could not read /sys/class/drm, or is older than the field); run "
                    + "gpu-detect akash on the node itself");
        }
        List<DrmCards.Card> cards = new ArrayList<>();
        for (int i = 0; i < spec.gpus().size(); i++) {
            List<String> names = spec.gpus().get(i).drmCards();
            if (names == null) {
                return new DrmCards.NotKnown("the GpuCapacity record's gpus[" + i + "] has no drmCards; run "
                        + "gpu-detect akash on the node itself");
            }
            for (String name : names) {
                cards.add(new DrmCards.Card(name, gpus.get(i).pciAddress()));
            }
        }
        return new DrmCards.Listed(spec.sysClassDrm(), cards);
    }

    /**
     * What {@link #forecast} keeps of a record: where it was, its node, the parts of its spec a node's input uses,
     * each GPU cut to what the rules read ({@link #slim}) with its texts shared ({@link Texts}), and the index of its first GPU whose PCI address is not one (-1: none).
     */
    record Read(String node, String where, Integer line, GpuCapacitySpec spec, int badAddress) {

        static Read of(RecordSet.Located located, Texts texts) {
            GpuCapacitySpec spec = located.record().getSpec();
            if (spec == null) {
                return new Read(located.node(), located.where(), located.line(), null, -1);
            }
            int bad = -1;
            List<GpuEntry> gpus = new ArrayList<>(spec.gpus().size());
            for (int i = 0; i < spec.gpus().size(); i++) {
                GpuEntry entry = spec.gpus().get(i);
                if (bad < 0 && entry.pciAddress() != null && texts.address(entry.pciAddress()) == null) {
                    bad = i;
                }
                gpus.add(slim(entry, texts));
            }
            return new Read(located.node(), located.where(), located.line(), new GpuCapacitySpec(gpus, null, null,
                    spec.allocatable(), null, null, spec.sysClassDrm(), null, spec.handout(), spec.fabric(), null), bad);
        }
    }

    /**
     * The fields of a record's GPU that {@link OperatorRules} and {@link #drm} read: vendor, names, memory size,
     * interface, PCI address and ids, UUID (the hand-out's other key), health, DRM cards. The rest (links, power
     * limits, versions, ...) is left out of what is held while the records arrive; {@code RecordNodesTest} checks that
     * the forecast is the one made from the whole entry.
     */
    static GpuEntry slim(GpuEntry e, Texts texts) {
        String address = e.pciAddress() == null ? null : texts.address(e.pciAddress());
        return new GpuEntry(e.vendor(), texts.of(e.model()), texts.of(e.name()), null, e.memoryGi(), e.interfaceType(),
                address != null ? address : e.pciAddress(), e.uuid(), e.health(), null, texts.of(e.pciVendorId()),
                texts.of(e.pciDeviceId()), texts.of(e.pciSubsystemVendorId()), texts.of(e.pciSubsystemDeviceId()), null,
                null, null, null, null, null, null, null, null, null, null, null, texts.of(e.drmCards()), null,
                e.healthReasons(), null);
    }

    /**
     * One copy of each text the records repeat (a model, a PCI id, an address, a list of DRM cards: the same on
     * thousands of nodes, and a string apiece as read), and which addresses are PCI addresses, each parsed once. One
     * per {@link #forecast}: what 5,000 nodes hold while the lists arrive is then their UUIDs and little else.
     */
    static final class Texts {

        private final Map<String, String> texts = new HashMap<>();
        private final Map<List<String>, List<String>> lists = new HashMap<>();
        private final Map<String, String> addresses = new HashMap<>();

        String of(String text) {
            if (text == null) {
                return null;
            }
            String known = texts.putIfAbsent(text, text);
            return known != null ? known : text;
        }

        List<String> of(List<String> list) {
            if (list == null) {
                return null;
            }
            List<String> known = lists.get(list);
            if (known == null) {
                List<String> copy = new ArrayList<>(list.size());
                for (String text : list) {
                    copy.add(of(text));
                }
                // List.copyOf: the entry's own List.copyOf then keeps this one copy rather than making another.
                known = List.copyOf(copy);
                lists.put(known, known);
            }
            return known;
        }

        /** The one copy of {@code text} when it is a PCI address; null when it is not one. */
        String address(String text) {
            String known = addresses.get(text);
            if (known == null && PciAddress.parse(text).isPresent()) {
                addresses.put(text, text);
                known = text;
            }
            return known;
        }
    }
}
