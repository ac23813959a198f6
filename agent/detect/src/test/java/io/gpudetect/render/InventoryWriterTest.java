package io.gpudetect.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.gpudetect.inventory.Inventories;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.model.Partition;
import io.gpudetect.model.Partitioning;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.PcieLink;
import io.gpudetect.model.PowerLimits;
import io.gpudetect.model.Vendor;
import io.gpudetect.model.Vgpu;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.testing.Fixtures;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link InventoryDocument}'s streamed JSON and YAML against what jackson-databind made of the annotated
 * records before (the oracle below, kept only here), byte for byte, for every recording and for hand-built
 * GPUs that set every field; and a check that no record component is left out of the writer.
 */
class InventoryWriterTest {

    /** Text that JSON must escape and YAML must quote, or that a careless writer would mangle. */
    private static final String AWKWARD = "say \"hi\" \\ back\\slash, tab\t, nl\n, cr\r, nul\u0000, us\u001f, del\u007f, "
            + "für Ärzte, 日本語, emoji \uD83D\uDE00, line sep\u2028";

    private static final List<String> YAML_LOOKALIKES = List.of("", " leading", "trailing ", "true", "no", "null", "~",
            "123", "0x1f", "1e3", "- dash", "key: value", "#comment", "@at", "'single'", "[list]", "{map}", "*star",
            "&anchor", "!tag", "%percent", "multi\nline", "a: b\n  c", "|", ">", "?");

    static Stream<Path> bundles() {
        return Fixtures.allBundles().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bundles")
    void everyRecordingIsWrittenAsDatabindWroteIt(Path bundle) throws Exception {
        Inventory inventory = Fixtures.detect(bundle);
        assertEquals(databindJson(inventory), InventoryDocument.json(inventory));
        assertEquals(databindYaml(inventory), InventoryDocument.yaml(inventory));
    }

    @Test
    void handBuiltGpusAreWrittenAsDatabindWritesThem() throws Exception {
        for (Inventory inventory : List.of(handBuilt(), emptyInventory())) {
            assertEquals(databindJson(inventory), InventoryDocument.json(inventory));
            assertEquals(databindYaml(inventory), InventoryDocument.yaml(inventory));
        }
    }

    @Test
    void theFullyPopulatedGpuReallySetsEveryComponent() throws Exception {
        Gpu gpu = everyField();
        for (RecordComponent c : Gpu.class.getRecordComponents()) {
            Object value = c.getAccessor().invoke(gpu);
            assertNotNull(value, "everyField() leaves " + c.getName() + " unset");
            if (value instanceof Collection<?> list) {
                assertTrue(!list.isEmpty(), "everyField() leaves " + c.getName() + " empty");
            }
            if (value instanceof Map<?, ?> map) {
                assertTrue(!map.isEmpty(), "everyField() leaves " + c.getName() + " empty");
            }
        }
    }

    /** A component added to a record and forgotten in InventoryWriter fails here, named. */
    @Test
    void everyRecordComponentIsWritten() throws Exception {
        JsonNode doc = new ObjectMapper().readTree(InventoryDocument.json(handBuilt()));
        Set<String> inventory = names(Inventory.class);
        inventory.add("complete");
        inventory.add("interconnect");
        assertEquals(inventory, keys(doc));
        JsonNode gpu = doc.get("gpus").get(0);
        assertEquals(names(Gpu.class), keys(gpu));
        assertEquals(names(Partitioning.class), keys(gpu.get("partitioning")));
        assertEquals(names(Partition.class), keys(gpu.get("partitioning").get("instances").get(0)));
        assertEquals(names(Health.class), keys(gpu.get("health")));
        Set<String> link = names(PcieLink.class);
        link.add("degraded");
        assertEquals(link, keys(gpu.get("pcieLink")));
        assertEquals(Set.of("minWatts", "maxWatts"), keys(gpu.get("powerLimits")), "an unknown default is left out");
        assertEquals(names(Inventory.ProbeSummary.class), keys(doc.get("probes").get(0)));
        assertEquals(names(Diagnostic.class), keys(doc.get("diagnostics").get(0)));
        JsonNode fabric = doc.get("fabric");
        assertEquals(names(io.gpudetect.model.Fabric.class), keys(fabric));
        assertEquals(names(io.gpudetect.model.Fabric.RdmaDevice.class), keys(fabric.get("devices").get(0)));
        assertEquals(names(io.gpudetect.model.Fabric.RdmaPort.class), keys(fabric.get("devices").get(0).get("ports").get(0)));
        assertEquals(names(io.gpudetect.model.Fabric.GpuDirectRdma.class), keys(fabric.get("gpuDirectRdma")));
        assertEquals(names(io.gpudetect.model.Fabric.NearestNic.class), keys(fabric.get("nearestNics").get(0)));
        assertEquals(names(io.gpudetect.model.GpuLinks.class), keys(gpu.get("links")));
        assertEquals(names(io.gpudetect.model.GpuLinks.Link.class), keys(gpu.get("links").get("links").get(0)));
        assertEquals(names(io.gpudetect.model.GpuLinks.Fabric.class), keys(gpu.get("links").get("fabric")));
        assertEquals(names(io.gpudetect.model.Interconnect.class), keys(doc.get("interconnect")));
        // Every source a builder records is a written field's name.
        assertTrue(keys(gpu).containsAll(everyField().sources().keySet()), everyField().sources().keySet().toString());
    }

    @Test
    void escapedTextReadsBackUnchanged() throws Exception {
        JsonNode doc = new ObjectMapper().readTree(InventoryDocument.json(handBuilt()));
        assertEquals(AWKWARD, doc.get("gpus").get(0).get("name").asText());
        List<String> serials = new ArrayList<>();
        doc.get("gpus").forEach(g -> serials.add(g.path("serial").asText(null)));
        assertTrue(serials.containsAll(YAML_LOOKALIKES), serials.toString());
        // Not the lookalikes: MINIMIZE_QUOTES leaves 0x1f and 1e3 plain, so YAML reads them back as numbers.
        JsonNode yaml = new ObjectMapper(new YAMLFactory()).readTree(InventoryDocument.yaml(handBuilt()));
        assertEquals(AWKWARD, yaml.get("gpus").get(0).get("name").asText());
    }

    private static String databindJson(Inventory inventory) throws Exception {
        return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(inventory) + "\n";
    }

    private static String databindYaml(Inventory inventory) throws Exception {
        return new ObjectMapper(InventoryDocument.yamlFactory()).writeValueAsString(inventory);
    }

    /** The JSON names of a record's components, as its annotations name them. */
    private static Set<String> names(Class<? extends Record> type) {
        return Arrays.stream(type.getRecordComponents())
                .map(c -> c.getName().equals("interfaceType") ? "interface" : c.getName())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> keys(JsonNode node) {
        Set<String> keys = new TreeSet<>();
        node.fieldNames().forEachRemaining(keys::add);
        return keys;
    }

    /** Every component of Gpu (and of what it holds) set, with text that needs escaping. */
    private static Gpu everyField() {
        return Gpu.builder("nvidia-smi-xml")
                .vendor(Vendor.NVIDIA).name(AWKWARD).model("h100").memoryMiB(81559L).memoryGi(80).sharedMemory(false)
                .driverVersion("550.54.15").runtimeVersion("12.4").pciAddress(PciAddress.of("00000000:3B:00.0"))
                .pciVendorId("10de").pciDeviceId("2330").pciSubsystemVendorId("10de").pciSubsystemDeviceId("16c1")
                .pciRevision("a1").pciClass("0302").uuid("GPU-4a7b\"c\\d").serial("1652\t0230\n41").boardPartNumber("true")
                .boardName("AMD Instinct MI300X OAM: #1")
                .interfaceType(io.gpudetect.model.GpuInterface.SXM).architecture("Hopper").computeCapability("9.0").computeUnits(132)
                .kernelDriver("nvidia").powerLimitWatts(700.5)
                .partitioning(new Partitioning("mig", true, false, List.of(
                        new Partition("1g.10gb", 1, 0, 9856L, 16, "MIG-\u00e9\u0001"),
                        new Partition(null, 2, null, null, null, null)), "nps1", List.of("spx", "null"), List.of()))
                .health(new Health(Health.Status.DEGRADED, 3L, List.of("3 uncorrected ECC errors",
                        "retired pages \"pending\"\n", ""), List.of(HealthReason.PAST_UNCORRECTABLE_ECC,
                        HealthReason.PAGES_PENDING_RETIREMENT)))
                .as("derived").emulated(false)
                .vgpu(new Vgpu(true, "550.54.16", "r550_40"))
                .as("sysfs-pci").pcieRoot("pci0000:3a").numaNode(0).pcieLink(new PcieLink(1, 5, 8, 16))
                .powerLimits(new PowerLimits(200.0, 700.0, null)).vbiosVersion("96.00.\"74\".00.01").memoryKind("dedicated")
                .as("nvml").links(new io.gpudetect.model.GpuLinks(List.of(
                        new io.gpudetect.model.GpuLinks.Link(io.gpudetect.model.GpuLinks.Kind.NVLINK, true, 4,
                                io.gpudetect.model.GpuLinks.Remote.GPU, "0000:07:00.0", 12),
                        new io.gpudetect.model.GpuLinks.Link(io.gpudetect.model.GpuLinks.Kind.NVLINK, false, null,
                                io.gpudetect.model.GpuLinks.Remote.UNKNOWN, null, 1)),
                        new io.gpudetect.model.GpuLinks.Fabric("9277d399-0674-44a9-b64e-d85bb19ce2b0", 32766L,
                                "completed", "NVML_SUCCESS")))
                .build();
    }

    private static Inventory handBuilt() {
        List<Gpu> gpus = new ArrayList<>();
        gpus.add(everyField());
        // Nothing set: only the (empty) sources map is written.
        gpus.add(new Gpu(null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null));
        // A builder without a source name records null sources; empty strings are not null.
        gpus.add(Gpu.builder(null).name("").model("").emulated(true).build());
        // A GPU read as no vGPU: the host driver's version and branch are left out.
        gpus.add(Gpu.builder("sysfs-pci").vgpu(Vgpu.NONE).build());
        // Empty partitioning and health, extreme numbers.
        gpus.add(Gpu.builder("x").memoryMiB(Long.MAX_VALUE).memoryGi(Integer.MIN_VALUE).powerLimitWatts(Double.NaN)
                .partitioning(new Partitioning(null, null, null, null)).health(new Health(null, null, null)).build());
        gpus.add(Gpu.builder("x").powerLimitWatts(-0.0).health(new Health(Health.Status.OK, 0L, List.of())).build());
        gpus.add(Gpu.builder("x").powerLimitWatts(1e300).health(new Health(null, null, List.of("only"))).build());
        gpus.add(Gpu.builder("x").powerLimitWatts(Double.MIN_VALUE).partitioning(
                new Partitioning("cpx", false, null, List.of(new Partition(null, null, null, null, null, null)))).build());
        for (Vendor v : Vendor.values()) {
            gpus.add(Gpu.builder(v.id()).vendor(v).pciAddress(new PciAddress(0x10000 + v.ordinal(), 0xff, 0x1f, 7))
                    .build());
        }
        for (Health.Status s : Health.Status.values()) {
            gpus.add(Gpu.builder(s.id()).health(new Health(s, null, List.of(s.id()))).build());
        }
        for (String text : YAML_LOOKALIKES) {
            gpus.add(Gpu.builder(text).serial(text).model(text.toUpperCase()).build());
        }
        List<Inventory.ProbeSummary> probes = new ArrayList<>();
        probes.add(new Inventory.ProbeSummary("nvidia-smi-xml", ProbeResult.Outcome.OK, 1, "2 GPUs bound to the " + AWKWARD));
        probes.add(new Inventory.ProbeSummary(null, null, -1));
        for (ProbeResult.Outcome o : ProbeResult.Outcome.values()) {
            probes.add(new Inventory.ProbeSummary(AWKWARD, o, 0));
        }
        List<Diagnostic> diagnostics = new ArrayList<>();
        diagnostics.add(Diagnostic.warning("nvidia-smi-xml", "nvidia-smi.xml", 12, "expected <gpu>, saw \"</x>\"\n"));
        diagnostics.add(new Diagnostic(null, null, null, null, null));
        for (Diagnostic.Severity s : Diagnostic.Severity.values()) {
            diagnostics.add(new Diagnostic(s, "", AWKWARD, 0, "true"));
        }
        return new Inventory("bundle /tmp/" + AWKWARD, gpus, probes, diagnostics, "To Be Filled By O.E.M. / " + AWKWARD,
                List.of("0000:41:00.0 (10de:2204): " + AWKWARD, ""), "cannot see the PCI bus: " + AWKWARD, fabric());
    }

    /** A fabric with every field set somewhere and left out somewhere else. */
    private static io.gpudetect.model.Fabric fabric() {
        return new io.gpudetect.model.Fabric(List.of(
                new io.gpudetect.model.Fabric.RdmaDevice("mlx5_0", "0000:19:00.0", "mlx5_core", 0, "pci0000:15", List.of(
                        new io.gpudetect.model.Fabric.RdmaPort(1, io.gpudetect.model.Fabric.Kind.INFINIBAND, "InfiniBand",
                                "active", "linkup", 400.0, "4X NDR"),
                        new io.gpudetect.model.Fabric.RdmaPort(2, null, null, null, null, 2.5, null))),
                new io.gpudetect.model.Fabric.RdmaDevice(AWKWARD, null, null, null, null, List.of())),
                new io.gpudetect.model.Fabric.GpuDirectRdma(io.gpudetect.model.Fabric.GpuDirectRdma.Verdict.UNKNOWN,
                        List.of(AWKWARD, "")),
                List.of(new io.gpudetect.model.Fabric.NearestNic("0000:18:00.0", "mlx5_0",
                        io.gpudetect.model.Fabric.PcieDistance.PIX), new io.gpudetect.model.Fabric.NearestNic(null, null, null)));
    }

    private static Inventory emptyInventory() {
        return Inventories.of(null, List.of(), Collections.emptyList(), List.of());
    }

    /**
     * Ids and versions that look like numbers, booleans or null come back from a YAML reader as the strings they
     * are: 1e04 is an RTX 2080 Ti's device id, not 10000.0.
     */
    @Test
    void yamlReadsBackEveryLookalikeAsText() throws Exception {
        List<String> lookalikes = List.of("1e04", "1e30", "2330", "0010", "0x1f", "9.0", "12.2", "1_000", ".5", "+1",
                "-1", "on", "off", "yes", "no", "y", "n", "true", "null", "~", ".inf", "-.Inf", ".NaN", "0o17", "1:20",
                "550.54.15", "10de", "20b0");
        List<Gpu> gpus = new ArrayList<>();
        for (String s : lookalikes) {
            gpus.add(Gpu.builder("test").vendor(Vendor.NVIDIA).name(s).pciDeviceId(s).computeCapability(s).build());
        }
        Inventory inventory = Inventories.of("test", gpus, List.of(), List.of());
        JsonNode read = new ObjectMapper(new YAMLFactory()).readTree(InventoryDocument.yaml(inventory));
        for (int i = 0; i < lookalikes.size(); i++) {
            for (String field : List.of("name", "pciDeviceId", "computeCapability")) {
                JsonNode value = read.path("gpus").path(i).path(field);
                assertTrue(value.isTextual(), field + " '" + lookalikes.get(i) + "' read back as " + value.getNodeType() + " " + value);
                assertEquals(lookalikes.get(i), value.asText());
            }
        }
    }
}
