package io.gpudetect.akash;

import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.match.KubeNode;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.PciAddress;
import io.gpudetect.record.dra.NodeHandout;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Predicts what Akash's inventory operator writes for a node and which of its cards the provider will not bid
 * with. The rules, and the file and commit of Akash's code each comes from, are in {@code docs/akash.md}:
 * <ol>
 *   <li>the operator starts from the DRM cards in {@code /sys/class/drm} (ghw), one entry per {@code cardN};</li>
 *   <li>it looks each one up in the GPU table by PCI vendor id, then device id, and drops it without a word when
 *       either is missing ({@code parseGPUInfo}); vendor, model, memory size and interface are the table's;</li>
 *   <li>it writes {@code akash.network=true}, {@code nvidia.com/gpu.present=true} for a vendor named
 *       {@code nvidia}, and per card the model key, {@code .ram.<memory_size>} and
 *       {@code .interface.<interface>} with {@code sxm*} folded to {@code sxm}, each a count ({@code generateLabels});</li>
 *   <li>it writes nothing, and leaves the node out of the inventory, when the node is not Ready, is cordoned or
 *       matches a rule of its configuration's {@code exclude.nodes} ({@code generateLabels});</li>
 *   <li>the bid engine offers at most the node's allocatable {@code nvidia.com/gpu} or {@code amd.com/gpu} minus
 *       what pods hold ({@code tryAdjustGPU}), and a deployment can only be built for those two vendors
 *       ({@code cluster/kube/builder/workload.go}); a GPU that a DRA driver hands out (ResourceSlices and
 *       ResourceClaims, the record's {@code handout}) is no unit of allocatable, so it is never bid on.</li>
 * </ol>
 * An integrated GPU the table does not list is {@code skipped}, not {@code dropped}: no provider means to bid
 * with a processor's graphics, so it does not fail the check.
 */
public final class OperatorRules {

    static final String MARKER = "akash.network";
    static final String CAPABILITY_GPU = "akash.network/capabilities.gpu";
    static final String NVIDIA_PRESENT = "nvidia.com/gpu.present";
    /** The vendors a deployment can be built for, with the resource each requests. */
    static final Map<String, String> BIDDABLE = Map.of("nvidia", "nvidia.com/gpu", "amd", "amd.com/gpu");

    private OperatorRules() {
    }

    /**
     * @param config the inventory operator's configuration, for its node exclusions; null when not given
     */
    public static NodeForecast forecast(NodeInput node, AkashGpuTable table, InventoryOperatorConfig config) {
        SortedMap<String, String> labels = new TreeMap<>();
        labels.put(MARKER, "true");
        List<String> notChecked = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        List<Gpu> gpus = node.gpus().stream()
                .sorted(Comparator.comparing(Gpu::pciAddress, PciAddress::compareNullsLast)).toList();
        // By identity: two cards of one model that no tool gave an address or serial are equal records.
        Map<Gpu, CardVerdict> verdicts = new IdentityHashMap<>();
        Map<String, List<Gpu>> countedByVendor = new TreeMap<>();

        if (node.drm() instanceof DrmCards.NotKnown n) {
            notChecked.add("DRM nodes: " + n.why() + "; the labels assume every card has one");
        }
        for (Gpu g : gpus) {
            List<String> reasons = new ArrayList<>();
            String pciId = g.pciVendorId() == null || g.pciDeviceId() == null ? null : g.pciVendorId() + ":" + g.pciDeviceId();
            if (g.integrated() && (pciId == null || table.device(g.pciVendorId(), g.pciDeviceId()).isEmpty())) {
                verdicts.put(g, new CardVerdict(address(g), g.name(), pciId, CardVerdict.Verdict.skipped, 0,
                        List.of("integrated GPU (it uses the host's memory): Akash bids on nvidia.com/gpu and "
                                + "amd.com/gpu cards and its table does not list it; the operator skips it"), null));
                continue;
            }
            int drmCards = 1;
            if (node.drm() instanceof DrmCards.Listed listed) {
                drmCards = listed.at(g.pciAddress()).size();
                if (!listed.present()) {
                    reasons.add("no /sys/class/drm on this host: the operator sees no graphics card at all");
                } else if (drmCards == 0) {
                    reasons.add("no DRM card in /sys/class/drm for " + address(g) + " (driver module not loaded: "
                            + drmModule(g) + "): the operator skips it without a message");
                }
            }
            if (pciId == null) {
                if (reasons.isEmpty()) {
                    reasons.add("PCI vendor or device id not known from " + node.source()
                            + ": the operator's table is keyed by them" + listedAs(g, table));
                    verdicts.put(g, new CardVerdict(address(g), g.name(), null, CardVerdict.Verdict.unknown, 0, reasons, null));
                } else {
                    verdicts.put(g, new CardVerdict(address(g), g.name(), null, CardVerdict.Verdict.dropped, 0, reasons, null));
                }
                continue;
            }
            var vendor = table.vendor(g.pciVendorId());
            var device = table.device(g.pciVendorId(), g.pciDeviceId());
            String entry = null;
            if (device.isEmpty()) {
                if (vendor.isEmpty()) {
                    reasons.add("vendor " + g.pciVendorId() + " is not in Akash's GPU table: the operator skips the card without a message");
                } else {
                    reasons.add(pciId + " is not in Akash's GPU table: the operator skips the card without a message; add it to gpus.json");
                }
                String sub = g.pciSubsystemVendorId();
                boolean biddableVendor = g.vendor() == io.gpudetect.model.Vendor.NVIDIA || g.vendor() == io.gpudetect.model.Vendor.AMD;
                if (!biddableVendor) {
                    reasons.add("Akash bids on nvidia.com/gpu and amd.com/gpu only: a table entry would not make this card biddable");
                } else if (sub != null && !sub.equals(g.pciVendorId())) {
                    reasons.add("subsystem " + sub + ":" + g.pciSubsystemDeviceId() + " (another board maker): the operator reads only "
                            + pciId + ", so the entry goes under vendor " + g.pciVendorId() + ", never under " + sub);
                    entry = vendorBlock(g, table);
                } else {
                    entry = vendor.isEmpty() ? vendorBlock(g, table) : deviceEntry(g);
                }
                if (g.pciSubsystemDeviceId() != null && table.device(g.pciVendorId(), g.pciSubsystemDeviceId()).isPresent()) {
                    reasons.add("the table's " + g.pciVendorId() + ":" + g.pciSubsystemDeviceId()
                            + " is this card's subsystem device id, which the operator never reads");
                }
                verdicts.put(g, new CardVerdict(address(g), g.name(), pciId, CardVerdict.Verdict.dropped, 0, reasons, entry));
                continue;
            }
            if (!reasons.isEmpty()) {
                verdicts.put(g, new CardVerdict(address(g), g.name(), pciId, CardVerdict.Verdict.dropped, 0, reasons, null));
                continue;
            }
            String vendorName = vendor.get().name();
            AkashGpuTable.Device d = device.get();
            for (int i = 0; i < drmCards; i++) {
                count(labels, vendorName, d);
            }
            CardVerdict.Verdict verdict = CardVerdict.Verdict.bid;
            String biddableResource = BIDDABLE.get(vendorName.toLowerCase(Locale.ROOT));
            if (biddableResource == null) {
                reasons.add("vendor " + vendorName + " is not biddable: Akash bids on nvidia.com/gpu and amd.com/gpu only");
                verdict = CardVerdict.Verdict.dropped;
            } else {
                countedByVendor.computeIfAbsent(vendorName.toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(g);
            }
            if (g.model() != null && !d.name().isEmpty() && !g.model().equals(d.name())
                    && !"akash-gpus".equals(g.sources().get("model"))) {
                // The table keys by device id alone; one id can be several products (AMD's 66a1: MI50, MI60).
                reasons.add("model differs: Akash's table names " + pciId + " " + d.name() + ", the card is "
                        + g.model() + "; the operator labels model." + d.name() + ", so a deployment asking for "
                        + g.model() + " is not bid on here");
                if (verdict == CardVerdict.Verdict.bid) {
                    verdict = CardVerdict.Verdict.mislabelled;
                }
            }
            Integer tableGi = gi(d.memorySize());
            if (g.memoryGi() == null) {
                notChecked.add("VRAM of " + address(g) + ": not known, not compared with the table's " + d.memorySize());
            } else if (!d.memorySize().isEmpty() && !g.memoryGi().equals(tableGi)) {
                reasons.add("VRAM differs: Akash's table says " + d.memorySize() + " for " + pciId + ", the card has "
                        + g.memoryGi() + "Gi; the operator labels ram." + d.memorySize() + ", so a deployment asking for "
                        + g.memoryGi() + "Gi is not bid on here");
                if (verdict == CardVerdict.Verdict.bid) {
                    verdict = CardVerdict.Verdict.mislabelled;
                }
            }
            verdicts.put(g, new CardVerdict(address(g), g.name(), pciId, verdict, drmCards, reasons, null));
        }

        if (node.allocatable() == null) {
            if (!countedByVendor.isEmpty()) {
                notChecked.add("allocatable units: " + node.allocatableNotKnown());
            }
        } else {
            if (node.allocatable().getOrDefault("nvidia.com/gpu", 0L) > 0 && node.allocatable().getOrDefault("amd.com/gpu", 0L) > 0) {
                problems.add("both nvidia.com/gpu and amd.com/gpu are allocatable: the operator keeps only one of the two "
                        + "numbers as the node's GPU units (whichever its map iteration reaches last)");
            }
            for (Map.Entry<String, List<Gpu>> e : countedByVendor.entrySet()) {
                String resource = BIDDABLE.get(e.getKey());
                long units = node.allocatable().getOrDefault(resource, 0L);
                // A GPU that only a DRA driver hands out is a device in a ResourceSlice, never a unit of the Node's
                // allocatable: the one figure the operator reads.
                Map<Gpu, String> draOnly = new IdentityHashMap<>();
                for (Gpu g : e.getValue()) {
                    NodeHandout.GpuHandout h = handout(node.handout(), g);
                    if (h != null && "dra".equals(h.by())) {
                        draOnly.put(g, h.dra().stream().map(NodeHandout.DraDeviceRef::driver).distinct().sorted()
                                .collect(Collectors.joining(", ")));
                    }
                }
                List<Gpu> pluginCards = e.getValue().stream().filter(g -> !draOnly.containsKey(g)).toList();
                int cards = pluginCards.stream().mapToInt(g -> verdicts.get(g).counted()).sum();
                if (!draOnly.isEmpty()) {
                    String drivers = draOnly.values().stream().distinct().sorted().collect(Collectors.joining(", "));
                    long pluginUnits = BIDDABLE.values().stream().mapToLong(r -> node.allocatable().getOrDefault(r, 0L)).sum();
                    problems.add("Akash's inventory operator reads the node's allocatable " + resource + " only ("
                            + units + "), so the provider bids " + (pluginUnits == 0 ? "0 GPU units on this node"
                            : units == 0 ? "0 " + resource + " units on this node, only the device plugins' "
                            + pluginUnits + " GPU " + (pluginUnits == 1 ? "unit" : "units")
                            : "only the device plugin's " + units + " " + resource + (units == 1 ? " unit" : " units")
                            + " on this node") + ": " + draOnly.size() + " " + e.getKey() + (draOnly.size() == 1
                            ? " GPU is" : " GPUs are") + " handed out by DRA driver " + drivers
                            + " through ResourceSlices and ResourceClaims, not a device plugin");
                    for (Gpu g : e.getValue()) {
                        if (draOnly.containsKey(g)) {
                            verdicts.put(g, dropped(verdicts.get(g), "handed out by DRA driver " + draOnly.get(g)
                                    + " (ResourceSlices, ResourceClaims), not a device plugin: it is no unit of the "
                                    + "node's allocatable " + resource + ", the only figure the operator reads"));
                        }
                    }
                }
                unbiddableHealth(e.getKey(), resource, units, pluginCards, verdicts).ifPresent(warnings::add);
                if (units == 0) {
                    for (Gpu g : pluginCards) {
                        verdicts.put(g, dropped(verdicts.get(g), "no " + resource + " allocatable (device plugin missing?)"));
                    }
                } else if (units < cards) {
                    long alsoDra = pluginCards.stream().map(g -> handout(node.handout(), g))
                            .filter(h -> h != null && "both".equals(h.by())).count();
                    problems.add("fewer allocatable units than cards: " + units + " " + resource + " allocatable for "
                            + cards + " " + e.getKey() + " cards the operator counts; at most " + units + " are bid on"
                            + (alsoDra == 0 ? "" : " (" + alsoDra + " of the cards are also handed out by a DRA driver, "
                            + "through ResourceSlices and ResourceClaims: only the device plugin's units are bid)"));
                }
            }
        }
        if (labels.keySet().stream().anyMatch(k -> k.startsWith(CAPABILITY_GPU + ".vendor.nvidia."))) {
            labels.put(NVIDIA_PRESENT, "true");
        }
        String excluded = excluded(node, config, notChecked);
        if (excluded != null) {
            labels.clear();
            verdicts.replaceAll((g, v) -> {
                List<String> reasons = new ArrayList<>(v.reasons());
                reasons.add(0, excluded);
                return new CardVerdict(v.pciAddress(), v.name(), v.pciId(), CardVerdict.Verdict.dropped, 0, reasons,
                        v.tableEntry());
            });
        }
        List<CardVerdict> inOrder = new ArrayList<>();
        for (Gpu g : gpus) {
            inOrder.add(verdicts.get(g));
        }
        return new NodeForecast(node.node(), labels, inOrder, problems, notChecked, excluded,
                InterconnectCapabilities.of(node.fabric()), warnings);
    }

    /**
     * A warning when the node's allocatable {@code resource} still counts a failed or lost GPU: the operator bids
     * the allocatable units, so a lease can land on the dead card. The units are those of the device plugin, which
     * takes a GPU out of the allocatable only when it marks it unhealthy itself; more units than healthy cards the
     * operator counts means it has not (yet). The operator's view is not changed: this only warns.
     */
    private static java.util.Optional<String> unbiddableHealth(String vendor, String resource, long units,
                                                               List<Gpu> pluginCards, Map<Gpu, CardVerdict> verdicts) {
        List<Gpu> counted = pluginCards.stream().filter(g -> verdicts.get(g).counted() > 0).toList();
        List<Gpu> bad = counted.stream().filter(g -> g.health() != null
                && (g.health().status() == Health.Status.FAILED || g.health().status() == Health.Status.LOST)).toList();
        long healthy = counted.size() - bad.size();
        if (bad.isEmpty() || units <= healthy) {
            return java.util.Optional.empty();
        }
        boolean anyFailed = bad.stream().anyMatch(g -> g.health().status() == Health.Status.FAILED);
        return java.util.Optional.of("the operator would bid on a " + (anyFailed ? "failed" : "lost")
                + " GPU: the device plugin has not marked it unhealthy (" + bad.stream()
                .map(g -> "GPU " + (address(g) == null ? "(address unknown)" : address(g)) + " "
                        + g.health().status().id()).collect(Collectors.joining(", ")) + "; " + units + " " + resource
                + " allocatable for " + healthy + " healthy " + vendor + (healthy == 1 ? " card" : " cards") + ")");
    }

    /**
     * {@code generateLabels}: a node that is not Ready, is cordoned or matches a rule of {@code exclude.nodes} gets no
     * label at all (those the operator wrote before are removed) and is left out of the inventory the provider bids
     * from. Returns why, word for word, or null; what the input cannot tell goes in {@code notChecked}.
     */
    private static String excluded(NodeInput node, InventoryOperatorConfig config, List<String> notChecked) {
        if (node.state() == null || !node.state().stateKnown()) {
            notChecked.add("node state: " + node.stateNotKnown() + "; the operator writes no key at all on a node "
                    + "that is not Ready or is cordoned");
        }
        if (config == null) {
            notChecked.add("node exclusion: the inventory operator's exclude.nodes rules were not given "
                    + "(--akash-inventory-config FILE)");
        }
        KubeNode state = node.state() == null ? KubeNode.named(node.node()) : node.state();
        String why = state.unavailable(config == null ? null : config.exclusionRule(node.node()));
        return why == null ? null : "node " + why + ": the operator writes no key on it and leaves it out of the "
                + "inventory, so the provider bids with none of its cards";
    }

    /** How the record's hand-out says {@code g} is handed out, by PCI address, else UUID; null when it does not say. */
    private static NodeHandout.GpuHandout handout(NodeHandout handout, Gpu g) {
        if (handout == null) {
            return null;
        }
        for (NodeHandout.GpuHandout h : handout.gpus()) {
            if (g.pciAddress() != null && h.pciAddress() != null
                    && PciAddress.parse(h.pciAddress()).map(g.pciAddress()::equals).orElse(false)) {
                return h;
            }
        }
        for (NodeHandout.GpuHandout h : handout.gpus()) {
            if (g.uuid() != null && g.uuid().equalsIgnoreCase(h.uuid())) {
                return h;
            }
        }
        return null;
    }

    private static CardVerdict dropped(CardVerdict v, String reason) {
        List<String> reasons = new ArrayList<>(v.reasons());
        reasons.add(reason);
        return new CardVerdict(v.pciAddress(), v.name(), v.pciId(), CardVerdict.Verdict.dropped, v.counted(), reasons, v.tableEntry());
    }

    /** {@code generateLabels}: the model key, and under it {@code .ram.} and {@code .interface.} when the table has them. */
    private static void count(SortedMap<String, String> labels, String vendor, AkashGpuTable.Device d) {
        String key = CAPABILITY_GPU + ".vendor." + vendor + ".model." + d.name();
        increment(labels, key);
        if (!d.memorySize().isEmpty()) {
            increment(labels, key + ".ram." + d.memorySize());
        }
        if (!d.interfaceType().isEmpty()) {
            increment(labels, key + ".interface." + foldInterface(d.interfaceType()));
        }
    }

    private static void increment(SortedMap<String, String> labels, String key) {
        labels.merge(key, "1", (a, b) -> String.valueOf(Long.parseLong(a) + 1));
    }

    /** {@code FilterGPUInterface} ({@code cluster/types/v1beta3/types.go}): lower case, any {@code sxm*} as {@code sxm}. */
    static String foldInterface(String value) {
        String v = value.toLowerCase(Locale.ROOT);
        return v.startsWith("sxm") ? "sxm" : v;
    }

    /**
     * {@code 24Gi} as 24 (one to six ASCII digits, then {@code Gi}); null for anything else. By hand: a regular
     * expression compiled per card was a twentieth of a 5,000-node forecast.
     */
    static Integer gi(String size) {
        if (size == null || size.length() < 3 || size.length() > 8 || !size.endsWith("Gi")) {
            return null;
        }
        int n = 0;
        for (int i = 0; i < size.length() - 2; i++) {
            char c = size.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }

    private static String address(Gpu g) {
        return g.pciAddress() == null ? null : g.pciAddress().toString();
    }

    private static String drmModule(Gpu g) {
        if (g.vendor() == null) {
            return "the card's DRM driver";
        }
        return switch (g.vendor()) {
            case NVIDIA -> "nvidia_drm for NVIDIA";
            case AMD -> "amdgpu for AMD";
            case INTEL -> "i915 or xe for Intel";
            default -> "the card's DRM driver";
        };
    }

    /** Where the table lists the card's model, when only the model is known. */
    private static String listedAs(Gpu g, AkashGpuTable table) {
        if (g.model() == null) {
            return "";
        }
        List<String> ids = new ArrayList<>();
        table.vendors().forEach((vid, v) -> v.devices().forEach((did, d) -> {
            if (d.name().equals(g.model())) {
                ids.add(vid + ":" + did);
            }
        }));
        return ids.isEmpty() ? "; the table lists no " + g.model()
                : "; the table lists " + g.model() + " as " + String.join(", ", ids);
    }

    /** The gpus.json entry for a card the table lacks, from what gpu-detect knows of it. */
    static String deviceEntry(Gpu g) {
        String iface = g.interfaceType() == null ? "PCIe" : switch (g.interfaceType()) {
            case SXM -> "SXM";
            case OAM -> "OAM";
            case PCIE, INTEGRATED -> "PCIe";
        };
        return "\"" + g.pciDeviceId() + "\": {\"name\": \"" + (g.model() == null ? "MODEL" : g.model())
                + "\", \"interface\": \"" + iface + "\", \"memory_size\": \""
                + (g.memoryGi() == null ? "N" : g.memoryGi()) + "Gi\"}";
    }

    /** The vendor block holding {@link #deviceEntry}, for a card whose board maker is not its chip's vendor. */
    static String vendorBlock(Gpu g, AkashGpuTable table) {
        String name = table.vendor(g.pciVendorId()).map(AkashGpuTable.Vendor::name)
                .orElse(g.vendor() == null ? "VENDOR" : g.vendor().id());
        return "\"" + g.pciVendorId() + "\": {\"name\": \"" + name + "\", \"devices\": {" + deviceEntry(g) + "}}";
    }

    /** {@code 2 x nvidia rtx4090}, for summaries. */
    static String summary(List<CardVerdict> cards) {
        return cards.stream().collect(Collectors.groupingBy(CardVerdict::verdict, TreeMap::new, Collectors.counting()))
                .entrySet().stream().map(e -> e.getValue() + " " + e.getKey()).collect(Collectors.joining(", "));
    }
}
