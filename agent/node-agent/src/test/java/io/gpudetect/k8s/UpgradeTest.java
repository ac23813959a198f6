package io.gpudetect.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.record.CapacityRecords;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.record.PassOutcome;
import io.gpudetect.sink.DesiredState;
import io.gpudetect.testing.Fixtures;
import io.gpudetect.testing.Targets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A provider upgrades from an earlier release ({@code test-fixtures/records/upgrade/<release>/}: its CRD and a record
 * its agent wrote): its records are read and updated by this release's agent, this release's records fit its CRD and
 * its types, and the CRD this release installs requires nothing the earlier one did not. Helm never upgrades a CRD,
 * so during a roll-out (or after a rollback, or when the provider did not apply the new CRD) agents of both releases
 * meet records and a CRD of the other.
 */
@EnableKubernetesMockClient(crud = true)
class UpgradeTest {

    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final String CRD_FILE = GpuCapacity.CRD_NAME + "-v1.yml";
    static final String RECORD_FILE = "gpucapacity-n1.json";
    /** The case the earlier records were written for (README.md beside them). */
    static final String CASE = "nvml-8xa100-mig";

    KubernetesClient client;

    @BeforeEach
    void register() {
        client.getKubernetesSerialization().registerKubernetesResource(GpuCapacity.class);
    }

    /** Each earlier release's folder. */
    static List<Path> releases() throws IOException {
        try (Stream<Path> s = Files.list(Fixtures.root().resolve("records/upgrade"))) {
            List<Path> dirs = s.filter(Files::isDirectory).sorted().toList();
            assertFalse(dirs.isEmpty(), "no earlier release under test-fixtures/records/upgrade");
            return dirs;
        }
    }

    static JsonNode crdSchema(Path crdFile) throws IOException {
        JsonNode schema = YAML.readTree(crdFile.toFile()).at("/spec/versions/0/schema/openAPIV3Schema");
        assertFalse(schema.isMissingNode(), crdFile + ": no spec.versions[0].schema.openAPIV3Schema");
        return schema;
    }

    static JsonNode currentSchema() throws IOException {
        return crdSchema(Path.of(System.getProperty("gpudetect.crds", "../daemonset/crds")).resolve(CRD_FILE));
    }

    /** The agent's own JSON (fabric8's serialization as {@link AgentClient} configures it). */
    static final KubernetesSerialization AGENT_JSON = AgentClient.serialization();

    @Test
    void anEarlierRecordIsReadWhole() throws IOException {
        for (Path release : releases()) {
            String json = Files.readString(release.resolve(RECORD_FILE));
            GpuCapacity record = AGENT_JSON.unmarshal(json, GpuCapacity.class);
            GpuCapacitySpec spec = record.getSpec();
            assertFalse(spec.gpus().isEmpty(), release + ": GPUs read");
            for (GpuCapacitySpec.GpuEntry e : spec.gpus()) {
                // What the offers and the labels key on; toGpu is how the offers read an entry.
                assertNotNull(e.vendor(), release + ": vendor");
                assertNotNull(e.model(), release + ": model");
                assertNotNull(e.memoryGi(), release + ": memoryGi");
                assertNotNull(e.interfaceType(), release + ": interface");
                assertNotNull(e.toGpu("record").pciAddress(), release + ": " + e.pciAddress() + " parses");
            }
            assertEquals(spec.gpus().size(), spec.totals().stream().mapToInt(GpuCapacitySpec.ModelTotal::count).sum(),
                    release + ": totals count every GPU");
            // Every field it holds is read: written back, the record is the same JSON (derived attributes left
            // out: this release derives them again, and a changed derivation is not an upgrade failure).
            JsonNode written = withoutAttributes(YAML.readTree(AGENT_JSON.asJson(record)));
            assertEquals(withoutAttributes(YAML.readTree(json)), written, release + ": read and written back whole");
        }
    }

    @Test
    void thisReleasesAgentUpdatesAnEarlierRecord() throws IOException {
        for (Path release : releases()) {
            client.nodes().withName("n1").delete();
            client.resources(GpuCapacity.class).withName("n1").delete();
            var node = client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build())
                    .create();
            GpuCapacity earlier = AGENT_JSON.unmarshal(Files.readString(release.resolve(RECORD_FILE)), GpuCapacity.class);
            earlier.getMetadata().setOwnerReferences(List.of(new OwnerReferenceBuilder().withApiVersion("v1")
                    .withKind("Node").withName("n1").withUid(node.getMetadata().getUid()).build()));
            client.resources(GpuCapacity.class).resource(earlier).create();

            NodeView view = new NodeView(client, "n1");
            view.readForPass(true);
            CapacityRecordSink sink = new CapacityRecordSink(client, view);
            Instant now = Instant.parse("2026-12-01T00:00:00Z");
            DesiredState desired = Targets.record(Fixtures.detect(Fixtures.testCase(CASE)), true, now, Duration.ofMinutes(5));
            CapacityRecordSink.RecordChange change = Targets.decide(sink, desired);
            // The same GPUs: only the agent's version differs in the spec, and the status is this pass's.
            assertEquals("spec,status", change.summary(), release + ": what the first pass writes");
            assertEquals(change.requests(), sink.apply(change), release.toString());
            GpuCapacity after = client.resources(GpuCapacity.class).withName("n1").get();
            // Each GPU's health stamped with this pass's time: the earlier record had no healthSince.
            assertEquals(CapacityRecords.withHealthSince(desired.recordSpec(), null, now), after.getSpec(),
                    release + ": spec replaced by this release's");
            assertEquals("2026-12-01T00:00:00Z", after.getStatus().lastGoodPass(), release + ": status written");
            assertEquals("none", Targets.decide(sink, desired).summary(), release + ": the next pass writes nothing");
        }
    }

    /**
     * An older agent meets a newer record's fields it does not know when the newer CRD was applied and the agent rolled
     * back (or still runs mid roll-out). The record's types ignore unknown fields at every level.
     */
    @Test
    void unknownFieldsAreIgnoredAtEveryLevel() throws IOException {
        ObjectNode json = (ObjectNode) YAML.readTree(Files.readString(releases().get(0).resolve(RECORD_FILE)));
        ObjectNode spec = (ObjectNode) json.get("spec");
        spec.put("fieldOfALaterRelease", "x");
        ((ObjectNode) spec.get("gpus").get(0)).put("fieldOfALaterRelease", "x");
        ((ObjectNode) spec.get("totals").get(0)).put("fieldOfALaterRelease", "x");
        ((ObjectNode) spec.get("slices").get(0)).put("fieldOfALaterRelease", 1);
        spec.putObject("host").put("cpuCores", 64).put("fieldOfALaterRelease", "x");
        ObjectNode status = (ObjectNode) json.get("status");
        status.put("fieldOfALaterRelease", "x");
        status.putArray("problems").addObject().put("severity", "warning").put("message", "m")
                .put("fieldOfALaterRelease", "x");
        ObjectNode gpu = (ObjectNode) spec.get("gpus").get(0);
        gpu.putObject("pcieLink").put("maxGen", 4).put("fieldOfALaterRelease", "x");
        gpu.putObject("powerLimits").put("maxWatts", 400.0).put("fieldOfALaterRelease", "x");
        ObjectNode handout = spec.putObject("handout").put("mode", "dra").put("fieldOfALaterRelease", "x");
        ObjectNode gpuHandout = handout.putArray("gpus").addObject().put("fieldOfALaterRelease", "x");
        gpuHandout.putArray("dra").addObject().put("fieldOfALaterRelease", "x");
        handout.putArray("draTotals").addObject().put("driver", "gpu.nvidia.com").put("fieldOfALaterRelease", "x");
        handout.putArray("unmatched").addObject().put("fieldOfALaterRelease", "x");
        GpuCapacity record = AGENT_JSON.unmarshal(json.toString(), GpuCapacity.class);
        assertEquals(64, record.getSpec().host().cpuCores());
        assertEquals("m", record.getStatus().problems().get(0).message());
        assertEquals(4, record.getSpec().gpus().get(0).pcieLink().maxGen());
        assertEquals("gpu.nvidia.com", record.getSpec().handout().draTotals().get(0).driver());
    }

    /**
     * Every type a record is made of says {@code ignoreUnknown}, so a type added later is caught here rather than by an
     * older agent meeting a newer record. (Reflection in a test only: the record types' components, recursively.)
     */
    @Test
    void everyTypeOfTheRecordIgnoresUnknownFields() {
        Set<Class<?>> seen = new java.util.LinkedHashSet<>();
        collect(GpuCapacitySpec.class, seen);
        collect(io.gpudetect.record.GpuCapacityStatus.class, seen);
        assertTrue(seen.size() > 10, "the walk found the record's types: " + seen);
        List<String> strict = seen.stream().filter(c -> {
            var a = c.getAnnotation(com.fasterxml.jackson.annotation.JsonIgnoreProperties.class);
            return a == null || !a.ignoreUnknown();
        }).map(Class::getName).toList();
        assertEquals(List.of(), strict, "record types without @JsonIgnoreProperties(ignoreUnknown = true)");
    }

    private static void collect(java.lang.reflect.Type type, Set<Class<?>> seen) {
        if (type instanceof java.lang.reflect.ParameterizedType p) {
            for (java.lang.reflect.Type arg : p.getActualTypeArguments()) {
                collect(arg, seen);
            }
        } else if (type instanceof Class<?> c && c.isRecord() && c.getName().startsWith("io.gpudetect.") && seen.add(c)) {
            for (var component : c.getRecordComponents()) {
                collect(component.getGenericType(), seen);
            }
            if (c == GpuCapacitySpec.GpuEntry.class) {
                collect(io.gpudetect.record.DeviceAttribute.class, seen); // written by a getter, not a component
            }
        }
    }

    /**
     * Every field the CRD of this release adds is optional, and no field the earlier CRD knew is required now or
     * changed type: a record an earlier agent wrote (or writes, mid roll-out) stays valid. Fails when a field is made
     * required.
     */
    @Test
    void theCrdRequiresNothingNew() throws IOException {
        JsonNode current = currentSchema();
        for (Path release : releases()) {
            JsonNode earlier = crdSchema(release.resolve(CRD_FILE));
            List<String> problems = new ArrayList<>();
            Set<String> added = new TreeSet<>();
            compareSchemas("", earlier, current, problems, added);
            assertEquals(List.of(), problems, release + ": the CRD of this release against " + release.getFileName()
                    + "'s (fields added since: " + added + ")");
        }
    }

    /** Walks {@code now} beside {@code before}: requirements and types that would refuse a record valid before. */
    static void compareSchemas(String path, JsonNode before, JsonNode now, List<String> problems, Set<String> added) {
        for (JsonNode r : now.path("required")) {
            boolean wasRequired = false;
            for (JsonNode b : before.path("required")) {
                wasRequired |= b.asText().equals(r.asText());
            }
            if (!wasRequired) {
                problems.add(path + "." + r.asText() + " is required now (added or optional before)");
            }
        }
        if (before.has("type") && !before.path("type").equals(now.path("type"))) {
            problems.add(path + " was of type " + before.path("type") + ", is " + now.path("type"));
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = now.path("properties").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> p = it.next();
            JsonNode b = before.path("properties").path(p.getKey());
            if (b.isMissingNode()) {
                added.add(path + "." + p.getKey());
            } else {
                compareSchemas(path + "." + p.getKey(), b, p.getValue(), problems, added);
            }
        }
        for (Iterator<String> it = before.path("properties").fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!now.path("properties").has(name) && !now.path("x-kubernetes-preserve-unknown-fields").asBoolean()) {
                problems.add(path + "." + name + " is gone: the API server would prune what an earlier agent writes");
            }
        }
        for (String sub : List.of("items", "additionalProperties")) {
            if (before.path(sub).isObject() && now.path(sub).isObject()) {
                compareSchemas(path + "[" + sub + "]", before.path(sub), now.path(sub), problems, added);
            }
        }
    }

    /**
     * The record this release writes, as full as a pass makes it (host facts, DRM cards, resources), fits each earlier
     * CRD: nothing refused (a required field missing, a value of another type), and what that CRD prunes is only the
     * fields added since (which the earlier agent does not know). The earlier record fits this release's CRD whole.
     */
    @Test
    void recordsFitTheOtherReleasesCrd() throws IOException {
        Inventory replayed = Fixtures.detect(Fixtures.testCase(CASE));
        // A live pass also reads the node's RDMA fabric (a replay of this case has none recorded): one NIC, nearest the first GPU.
        io.gpudetect.model.Fabric fabric = new io.gpudetect.model.Fabric(List.of(new io.gpudetect.model.Fabric.RdmaDevice(
                "mlx5_0", "0000:19:00.0", "mlx5_core", 0, "pci0000:15", List.of(new io.gpudetect.model.Fabric.RdmaPort(1,
                        io.gpudetect.model.Fabric.Kind.INFINIBAND, "InfiniBand", "active", "linkup", 400.0, "4X NDR")))),
                new io.gpudetect.model.Fabric.GpuDirectRdma(io.gpudetect.model.Fabric.GpuDirectRdma.Verdict.CAN_WORK,
                        List.of("nvidia_peermem is loaded")),
                List.of(new io.gpudetect.model.Fabric.NearestNic(replayed.gpus().get(0).pciAddress().toString(), "mlx5_0",
                        io.gpudetect.model.Fabric.PcieDistance.PIX)));
        Inventory inventory = new Inventory(replayed.source(), replayed.gpus(), replayed.probes(), replayed.diagnostics(),
                replayed.machine(), replayed.gaps(), replayed.failure(), fabric);
        GpuCapacitySpec spec = CapacityRecords.spec(inventory, new TreeMap<>(Map.of("nvidia.com/gpu", 8L)),
                new TreeMap<>(Map.of("nvidia.com/gpu", 2L)),
                new GpuCapacitySpec.HostFacts("AMD EPYC 7763", 64, 128, 2_000_000_000_000L, "Ubuntu 22.04", "6.8.0"),
                new DrmCards.Listed(true, List.of()), "this-release");
        GpuCapacity record = new GpuCapacity();
        record.getMetadata().setName("n1");
        record.setSpec(spec);
        record.setStatus(CapacityRecords.status(inventory, PassOutcome.COMPLETE, Instant.EPOCH, Duration.ofMinutes(5),
                null).after(null));
        JsonNode ours = YAML.readTree(AGENT_JSON.asJson(record));
        assertTrue(ours.path("spec").has("fabric") && ours.path("spec").path("gpus").path(0).has("nearestNic"),
                "the record checked holds the fabric");
        JsonNode current = currentSchema();
        List<String> ownRefused = new ArrayList<>();
        assertEquals(List.of(), validate("", ours, current, ownRefused), "this release's record pruned by its own CRD");
        assertEquals(List.of(), ownRefused, "this release's record refused by its own CRD");
        for (Path release : releases()) {
            JsonNode earlier = crdSchema(release.resolve(CRD_FILE));
            Set<String> added = new TreeSet<>();
            compareSchemas("", earlier, current, new ArrayList<>(), added);
            List<String> refused = new ArrayList<>();
            List<String> pruned = validate("", ours, earlier, refused);
            assertEquals(List.of(), refused, release + ": this release's record refused by its CRD");
            for (String p : pruned) {
                assertTrue(added.stream().anyMatch(a -> p.replaceAll("\\[\\d+]", "[items]").startsWith(a)),
                        release + ": its CRD prunes " + p + ", which it knew");
            }
            JsonNode theirs = YAML.readTree(Files.readString(release.resolve(RECORD_FILE)));
            assertEquals(List.of(), validate("", theirs, current, refused), release + ": its record pruned by ours");
            assertEquals(List.of(), refused, release + ": its record refused by this release's CRD");
        }
    }

    /**
     * What the API server does with {@code value} under a structural schema, as far as a record goes: the paths it
     * prunes (returned) and, added to {@code refused}, what fails validation (a type, a missing required field).
     */
    static List<String> validate(String path, JsonNode value, JsonNode schema, List<String> refused) {
        List<String> pruned = new ArrayList<>();
        String type = schema.path("type").asText("");
        boolean fits = switch (type) {
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            case "string" -> value.isTextual();
            case "integer" -> value.isIntegralNumber();
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            default -> true;
        };
        if (!fits && !(value.isNull() && schema.path("nullable").asBoolean())) {
            refused.add(path + ": " + value.getNodeType() + " where the schema says " + type);
            return pruned;
        }
        for (JsonNode r : schema.path("required")) {
            if (!value.has(r.asText())) {
                refused.add(path + "." + r.asText() + ": required, missing");
            }
        }
        if (value.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                String at = path + "." + f.getKey();
                JsonNode sub = schema.path("properties").path(f.getKey());
                if (sub.isMissingNode()) {
                    sub = schema.path("additionalProperties");
                }
                if (sub.isObject()) {
                    pruned.addAll(validate(at, f.getValue(), sub, refused));
                } else if (path.isEmpty() && Set.of("apiVersion", "kind", "metadata").contains(f.getKey())) {
                    continue; // the API server's own, never in a CRD's schema
                } else if (!schema.path("x-kubernetes-preserve-unknown-fields").asBoolean()) {
                    pruned.add(at);
                }
            }
        } else if (value.isArray()) {
            for (int i = 0; i < value.size(); i++) {
                pruned.addAll(validate(path + "[" + i + "]", value.get(i), schema.path("items"), refused));
            }
        }
        return pruned;
    }

    static JsonNode withoutAttributes(JsonNode record) {
        JsonNode copy = record.deepCopy();
        for (JsonNode gpu : copy.path("spec").path("gpus")) {
            ((ObjectNode) gpu).remove("attributes");
        }
        return copy;
    }
}
