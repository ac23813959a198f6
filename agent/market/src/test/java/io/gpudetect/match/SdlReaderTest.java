package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Vendor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One test per rule of docs/match.md ("What is asked: the SDL"), each from the Go code or test it names: node
 * {@code sdl/} at 11b52e52 (its tests {@code sdl/gpu_test.go}, {@code sdl/units_test.go}; chain-sdk
 * {@code go/sdl/gpu_test.go} has the same GPU cases), the deployment validation in chain-sdk
 * {@code go/node/deployment/v1beta4}, and the provider's {@code ParseGPUAttributes}. The real SDL files are read in
 * test-fixtures ({@code SdlFixturesTest}).
 */
class SdlReaderTest {

    /** A minimal SDL whose one profile's gpu section is {@code gpu} (indented under resources; gpu on line 11). */
    private static String sdl(String gpu) {
        return sdl(gpu, "3");
    }

    private static String sdl(String gpu, String count) {
        return """
                version: "2.0"
                services:
                  web:
                    image: nginx
                profiles:
                  compute:
                    web:
                      resources:
                        cpu:
                          units: 1
                """ + gpu.indent(8) + """
                  placement:
                    dc:
                      pricing:
                        web: {denom: uakt, amount: 100}
                deployment:
                  web:
                    dc:
                      profile: web
                      count: %s
                """.formatted(count);
    }

    /** The request of the one placement, as {@link GpuRequest#describe}. */
    private static String request(String gpu) throws InvalidInputException {
        return gpu(gpu).describe();
    }

    private static GpuRequest gpu(String gpu) throws InvalidInputException {
        return SdlReader.read(sdl(gpu), "deploy.yaml").placements().get(0).gpu();
    }

    private static InvalidInputException error(String gpu) {
        return assertThrows(InvalidInputException.class, () -> SdlReader.read(sdl(gpu), "deploy.yaml"));
    }

    /** {@code gpu} with units 1 and one nvidia entry whose fields are {@code entry} (flow style). */
    private static String entry(String entry) {
        return "gpu:\n  units: 1\n  attributes:\n    vendor:\n      nvidia:\n        - " + entry;
    }

    // --- gpu ---------------------------------------------------------------------------------------------------

    /** {@code v2ResourceGPU.UnmarshalYAML}: "sdl: unsupported field (%s) for GPU resource". */
    @Test
    void aGpuFieldOtherThanUnitsAndAttributesIsRefused() {
        InvalidInputException e = error("gpu:\n  units: 1\n  count: 2\n  attributes: {vendor: {nvidia: }}");
        assertEquals("profiles.compute.web.resources.gpu.count", e.path());
        assertEquals(13, e.line());
        assertEquals("unsupported field for a GPU resource; expected units and attributes", e.problem());
    }

    /**
     * {@code v2ResourceGPU.UnmarshalYAML} walks the keys of a mapping; a scalar has none, so {@code gpu: 1} is units 0
     * and deploys without a GPU. Nothing ({@code gpu: ~}) leaves the pointer nil: no GPU either.
     */
    @Test
    void aGpuThatIsNoMappingAsksForNoGpuAndIsWarnedAbout() throws InvalidInputException {
        Demand scalar = SdlReader.read(sdl("gpu: 1"), "deploy.yaml");
        assertEquals("no GPU", scalar.placements().get(0).gpu().describe());
        assertEquals(List.of("deploy.yaml:11: profiles.compute.web.resources.gpu: gpu: '1' asks for no GPU: the "
                + "network's parser reads units and attributes only from a mapping, so this profile is deployed "
                + "without a GPU; write units and attributes under gpu"), scalar.warnings());
        Demand nothing = SdlReader.read(sdl("gpu: ~"), "deploy.yaml");
        assertEquals("no GPU", nothing.placements().get(0).gpu().describe());
        assertEquals(List.of(), nothing.warnings());
        assertEquals("no GPU", request("gpu: {}"));
    }

    // --- units -------------------------------------------------------------------------------------------------

    /**
     * {@code gpuQuantity.UnmarshalYAML} ({@code sdl/units.go}): {@code strconv.ParseUint(node.Value, 10, 64)} on the
     * text, quoted or not; a null value never reaches it, so it stays 0. The SDK schema takes any string or number.
     */
    @ParameterizedTest(name = "units: {0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "1          | 1 x nvidia *",
        "\"1\"      | 1 x nvidia *",
        "'1'        | 1 x nvidia *",
        "01         | 1 x nvidia *",
        "24         | 24 x nvidia *",
    })
    void unitsAreDigitsAsWritten(String units, String expected) throws InvalidInputException {
        assertEquals(expected, request("gpu:\n  units: " + units + "\n  attributes: {vendor: {nvidia: }}"));
    }

    @ParameterizedTest(name = "units: {0}")
    @CsvSource(delimiter = '|', value = {
        "+1     | '+1' is not a whole number of 0 or more",
        "-1     | '-1' is not a whole number of 0 or more",
        "1.0    | '1.0' is not a whole number of 0 or more",
        "1.5    | '1.5' is not a whole number of 0 or more",
        "1e0    | '1e0' is not a whole number of 0 or more",
        "0x1    | '0x1' is not a whole number of 0 or more",
        "1_0    | '1_0' is not a whole number of 0 or more",
        "'\" 1\"' | ' 1' is not a whole number of 0 or more",
        "18446744073709551616 | out of range for the network's parser",
        "25     | 25 GPUs per replica; the network accepts at most 24",
    })
    void unitsTheNetworkRefuses(String units, String words) {
        InvalidInputException e = error("gpu:\n  units: " + units + "\n  attributes: {vendor: {nvidia: }}");
        assertEquals("profiles.compute.web.resources.gpu.units", e.path(), e.getMessage());
        assertEquals(12, e.line(), e.getMessage());
        assertTrue(e.problem().contains(words), e.getMessage());
    }

    /** yaml.v3 does not call an unmarshaler for a null value: absent, empty or ~ units are 0, a CPU-only profile. */
    @Test
    void unitsAbsentOrNothingAreZero() throws InvalidInputException {
        assertEquals("no GPU", request("gpu:\n  units:"));
        assertEquals("no GPU", request("gpu:\n  units: ~"));
        assertEquals("no GPU", request("gpu:\n  units: 0"));
    }

    /** {@code v2ResourceGPU.UnmarshalYAML}: "sdl: GPU attributes must be present if units > 0". */
    @Test
    void unitsAboveZeroNeedAttributes() {
        InvalidInputException e = error("gpu:\n  units: \"2\"");
        assertEquals("profiles.compute.web.resources.gpu.attributes", e.path());
        assertEquals(11, e.line());
        assertTrue(e.problem().contains("units > 0 needs attributes"), e.getMessage());
        assertEquals("profiles.compute.web.resources.gpu.attributes", error("gpu:\n  units: 1\n  attributes:").path());
    }

    /**
     * The parser takes attributes beside units 0 (it checks them only for units > 0), but every SDL then passes
     * {@code ValidateDeploymentGroups} (chain-sdk {@code go/sdl/sdl.go} {@code Read}, and the chain itself):
     * {@code validateGPU} refuses "attributes cannot be present if units == 0". Absent units are 0 here too.
     */
    @Test
    void attributesBesideUnitsZeroAreRefusedByTheDeploymentValidation() {
        for (String gpu : List.of("gpu:\n  units: 0\n  attributes: {vendor: {nvidia: }}",
                "gpu:\n  attributes: {vendor: {nvidia: }}")) {
            InvalidInputException e = error(gpu);
            assertEquals("profiles.compute.web.resources.gpu.attributes", e.path(), e.getMessage());
            assertTrue(e.problem().startsWith("attributes with units 0: the network refuses"), e.getMessage());
        }
        // ... and attributes the parser cannot read fail there first, with its own words.
        assertTrue(error("gpu:\n  units: 0\n  attributes: {colour: red}").problem().contains("unsupported GPU attribute"));
    }

    // --- attributes and vendor ---------------------------------------------------------------------------------

    /** {@code v2GPUAttributes.UnmarshalYAML}: "sdl: unsupported attribute (%s) for GPU resource". */
    @Test
    void anAttributeOtherThanVendorIsRefused() {
        InvalidInputException e = error("gpu:\n  units: 1\n  attributes:\n    model: a100");
        assertEquals("profiles.compute.web.resources.gpu.attributes.model", e.path());
        assertEquals(14, e.line());
        assertEquals("unsupported GPU attribute; expected vendor", e.problem());
    }

    /** Go test "empty vendor" ({@code gpu_test.go}): {@code vendor:} with nothing is refused; so is no vendor key. */
    @Test
    void vendorMissingOrNothingIsRefused() {
        for (String gpu : List.of("gpu:\n  units: 1\n  attributes:\n    vendor:", "gpu:\n  units: 1\n  attributes: {}",
                "gpu:\n  units: 1\n  attributes: yes")) {
            InvalidInputException e = error(gpu);
            assertEquals("profiles.compute.web.resources.gpu.attributes.vendor", e.path(), gpu);
            assertTrue(e.problem().startsWith("at least one vendor must be set"), e.getMessage());
        }
    }

    /**
     * {@code vendor: {}} decodes into a non-nil {@code gpuVendor} with no models, which the parser writes as
     * {@code vendor/nvidia/model/*}: any NVIDIA GPU. The SDK schema refuses it ({@code minProperties: 1}).
     */
    @Test
    void anEmptyVendorMappingIsAnyNvidiaGpu() throws InvalidInputException {
        assertEquals("2 x nvidia *", request("gpu:\n  units: 2\n  attributes:\n    vendor: {}"));
    }

    /** Go test "wildcard": {@code nvidia:} with no list is {@code vendor/nvidia/model/*}; so are [] and a list of nothing. */
    @Test
    void aVendorWithoutModelsIsAnyModel() throws InvalidInputException {
        assertEquals("1 x nvidia *", request("gpu:\n  units: 1\n  attributes:\n    vendor:\n      nvidia:"));
        assertEquals("1 x nvidia *", request("gpu:\n  units: 1\n  attributes:\n    vendor:\n      nvidia: []"));
        assertEquals("1 x nvidia *", request("gpu:\n  units: 1\n  attributes:\n    vendor:\n      nvidia:\n        -"));
        assertEquals("4 x nvidia *", request("gpu:\n  units: \"4\"\n  attributes: {vendor: {nvidia: []}}"));
    }

    /**
     * {@code gpuVendor} is decoded without strict fields: a vendor key other than {@code nvidia} is skipped, and with no
     * nvidia model left the request is any NVIDIA GPU. Warned about, since a person asked for something else.
     */
    @Test
    void aVendorTheParserSkipsIsIgnoredAndWarnedAbout() throws InvalidInputException {
        Demand d = SdlReader.read(sdl("gpu:\n  units: 1\n  attributes:\n    vendor:\n      intel:\n        - model: max1550"),
                "deploy.yaml");
        assertEquals("1 x nvidia *", d.placements().get(0).gpu().describe());
        assertEquals(List.of("deploy.yaml:15: profiles.compute.web.resources.gpu.attributes.vendor.intel: vendor "
                + "'intel' is not read: the network's parser reads nvidia only (amd is read here, as providers serve "
                + "it), so this vendor is ignored"), d.warnings());
        assertEquals("1 x nvidia a100", request("gpu:\n  units: 1\n  attributes:\n    vendor:\n      nvidia:\n"
                + "        - model: a100\n      intel:\n        - model: max1550"));
    }

    /** Our one deviation on vendors: amd is an AMD request (providers serve amd.com/gpu), with a warning. */
    @Test
    void amdIsReadAsAmdAndWarnedAbout() throws InvalidInputException {
        Demand d = SdlReader.read(sdl("gpu:\n  units: 1\n  attributes:\n    interconnect: []\n    vendor:\n      amd:\n"
                + "        - model: mi300x\n      nvidia:"), "deploy.yaml");
        assertEquals("1 x (amd mi300x | nvidia *)", d.placements().get(0).gpu().describe());
        assertEquals(1, d.warnings().size());
        assertTrue(d.warnings().get(0).startsWith("deploy.yaml:16: profiles.compute.web.resources.gpu.attributes.vendor"
                + ".amd: vendor amd is matched here as AMD"), d.warnings().get(0));
    }

    // --- entries -----------------------------------------------------------------------------------------------

    /** Go tests "multiple models ..." ({@code gpu_test.go}): every entry is kept as an alternative. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '#', value = {
        "same type different RAM    # '- model: a100\n  ram: 80Gi\n- model: a100\n  ram: 40Gi' # 1 x (nvidia a100/80Gi | nvidia a100/40Gi)",
        "with and without RAM       # '- model: a100\n  ram: 80Gi\n- model: a100' # 1 x (nvidia a100/80Gi | nvidia a100)",
        "different models           # '- model: a6000\n- model: a40' # 1 x (nvidia a6000 | nvidia a40)",
        "single model               # '- model: a100' # 1 x nvidia a100",
        "model with RAM             # '- model: a100\n  ram: 80Gi' # 1 x nvidia a100/80Gi",
        "RAM with interface         # '- model: a100\n  ram: 80Gi\n  interface: pcie' # 1 x nvidia a100/80Gi/pcie",
    })
    void theGoTestsModelLists(String name, String list, String expected) throws InvalidInputException {
        assertEquals(expected, request("gpu:\n  units: 1\n  attributes:\n    vendor:\n      nvidia:\n"
                + list.replace("\\n", "\n").indent(8)));
    }

    /**
     * An entry without a model (or with model: ~) becomes the key {@code vendor/nvidia/model/} (with ram:
     * {@code vendor/nvidia/model//ram/80Gi}), which the network takes; the provider reads model "", which no card
     * has. The SDK schema takes it too (model is not required).
     */
    @Test
    void anEntryWithoutAModelAsksForAModelNoCardHas() throws InvalidInputException {
        assertEquals(new GpuChoice(Vendor.NVIDIA, "", 80, false, null, null), gpu(entry("ram: 80Gi")).choices().get(0));
        assertEquals(new GpuChoice(Vendor.NVIDIA, "", null, false, "pcie", null),
                gpu(entry("{model: ~, interface: pcie}")).choices().get(0));
        NodeOffer h100s = NodeOffer.of("n", List.of(new OfferedGpu(Vendor.NVIDIA, "h100", 80, "sxm", false, null, null)),
                Map.of(), Map.of(), null);
        MatchResult r = Matcher.match(SdlReader.read(sdl(entry("ram: 80Gi")), "d"), "t", List.of(h100s));
        assertFalse(r.fits());
        assertEquals("no such model: asked nvidia (no model), has 1 x nvidia h100 80Gi sxm",
                r.placements().get(0).nodes().get(0).reason());
    }

    /**
     * The model goes into the key as written ({@code v2GPUNvidia.String}), and the provider looks it up exactly
     * ({@code ExistsOrWildcard}): {@code H100} is no {@code h100}. A number is its text.
     */
    @Test
    void theModelIsKeptAsWrittenAndComparedExactly() throws InvalidInputException {
        assertEquals("1 x nvidia H100", request(entry("model: H100")));
        assertEquals("1 x nvidia 4090", request(entry("model: 4090")));
        NodeOffer h100s = NodeOffer.of("n", List.of(new OfferedGpu(Vendor.NVIDIA, "h100", 80, "sxm", false, null, null)),
                Map.of(), Map.of(), null);
        MatchResult r = Matcher.match(SdlReader.read(sdl(entry("model: H100")), "d"), "t", List.of(h100s));
        assertEquals("no such model: asked nvidia H100, has 1 x nvidia h100 80Gi sxm (Akash compares model names "
                + "exactly: write h100, not H100)", r.placements().get(0).nodes().get(0).reason());
    }

    /**
     * Model {@code *} is the provider's wildcard. The key may end in {@code *} only ({@code AttributeNameRegexp
     * StringWildcard}), so {@code *} with ram or interface is refused by the network.
     */
    @Test
    void modelStarIsAnyModelAndOnlyAlone() throws InvalidInputException {
        assertEquals("1 x nvidia *", request(entry("model: \"*\"")));
        InvalidInputException e = error(entry("{model: \"*\", ram: 80Gi}"));
        assertEquals("profiles.compute.web.resources.gpu.attributes.vendor.nvidia[0]", e.path());
        assertEquals("the attribute key 'vendor/nvidia/model/*/ram/80Gi' has characters the network refuses: a model "
                + "may hold letters, digits, '_', '.', '-' (and '*' alone, for any model)", e.problem());
    }

    /** {@code types.Attributes.Validate}: {@code ^[a-zA-Z][\w/.-]{1,126}[\w*]?$}: no spaces, at most 128 characters. */
    @Test
    void modelsTheAttributeKeyCannotHoldAreRefused() {
        assertTrue(error(entry("model: rtx 4090")).problem().contains("has characters the network refuses"));
        assertTrue(error(entry("model: a100+")).problem().contains("has characters the network refuses"));
        InvalidInputException longName = error(entry("model: " + "a".repeat(109)));
        assertEquals("the attribute key 'vendor/nvidia/model/" + "a".repeat(109) + "' is 129 characters long; the "
                + "network takes at most 128", longName.problem());
    }

    /**
     * The provider splits the key at {@code /} into pairs ({@code ParseGPUAttributes}): a model {@code a100/ram/80Gi}
     * reads as a100 with 80Gi, and {@code a/b} leaves an odd count, which fails the whole request on every provider.
     */
    @Test
    void aModelHoldingSlashesIsReadAsTheProviderSplitsTheKey() throws InvalidInputException {
        assertEquals(new GpuChoice(Vendor.NVIDIA, "a100", 80, false, null, null),
                gpu(entry("model: a100/ram/80Gi")).choices().get(0));
        GpuRequest odd = gpu(entry("model: a/b"));
        assertEquals("the provider cannot read the GPU attribute key 'vendor/nvidia/model/a/b' (it splits it at '/' "
                + "into pairs; a '/' in the model breaks them)", odd.unbiddable());
    }

    /** {@code types.Attributes.Validate}: "attributes cannot have duplicate keys", also when two sizes round alike. */
    @Test
    void theSameKeyTwiceIsRefused() {
        InvalidInputException e = error(entry("model: a100\n        - model: a100"));
        assertEquals("profiles.compute.web.resources.gpu.attributes.vendor.nvidia[1]", e.path());
        assertEquals(17, e.line());
        assertEquals("the same GPU as profiles.compute.web.resources.gpu.attributes.vendor.nvidia[0] (attribute key "
                + "'vendor/nvidia/model/a100'); the network refuses a key given twice (\"attributes cannot have "
                + "duplicate keys\")", e.problem());
        assertTrue(error(entry("{model: a100, ram: 80Gi}\n        - {model: a100, ram: 81920Mi}")).problem()
                .contains("'vendor/nvidia/model/a100/ram/80Gi'"));
    }

    /** Entries are decoded into {@code v2GPUNvidia} without strict fields: other fields are skipped (schema refuses). */
    @Test
    void otherFieldsOfAnEntryAreIgnored() throws InvalidInputException {
        assertEquals(List.of(new GpuChoice(Vendor.NVIDIA, "a100", null, false, null, null)),
                gpu(entry("model: a100\n          vram: 80Gi")).choices());
    }

    @Test
    void anEntryThatIsNoMappingIsRefused() {
        InvalidInputException e = error(entry("a100"));
        assertEquals("profiles.compute.web.resources.gpu.attributes.vendor.nvidia[0]", e.path());
        assertTrue(e.problem().startsWith("expected a mapping with model"), e.getMessage());
        assertTrue(error("gpu:\n  units: 1\n  attributes:\n    vendor:\n      nvidia: a100").problem()
                .contains("list of models"));
    }

    // --- ram ---------------------------------------------------------------------------------------------------

    /**
     * {@code memoryQuantity} ({@code sdl/units.go}): suffix Ki..Ei as written, {@code strconv.ParseFloat}, times the
     * suffix in float64, truncated; the key holds whole Gi rounded down ({@code StringWithSuffix("Gi")}).
     */
    @ParameterizedTest(name = "ram: {0}")
    @CsvSource(delimiter = '|', value = {
        "80Gi      | 80",
        "40960Mi   | 40",
        "1Ti       | 1024",
        "1500Mi    | 1",
        "81919Mi   | 79",
        "1e1Gi     | 10",
        ".5Ti      | 512",
        "+80Gi     | 80",
        "80.9Gi    | 80",
        "0x1p4Gi   | 16",
        "8e10      | 74",
        "85899345920 | 80",
    })
    void ramIsReadAsTheNetworksParserReadsIt(String ram, int gi) throws InvalidInputException {
        assertEquals(new GpuChoice(Vendor.NVIDIA, "a100", gi, false, null, null),
                gpu(entry("model: a100\n          ram: " + ram)).choices().get(0));
    }

    /** Go test "invalid RAM unit" (80G), and the other forms ParseFloat or the suffix table refuse. */
    @ParameterizedTest(name = "ram: {0}")
    @CsvSource(delimiter = '|', value = {
        "80G        | is not a memory size the network's parser reads",
        "80GB       | is not a memory size the network's parser reads",
        "80gi       | is not a memory size the network's parser reads",
        "80 Gi      | is not a memory size the network's parser reads",
        "1_000Mi    | is not a memory size the network's parser reads",
        "'\"\"'     | is not a memory size the network's parser reads",
        "-1Gi       | is negative",
        "16Ei       | 2^64 bytes or more",
        "1e400Gi    | out of range",
        "infGi      | Inf and NaN",
        "NaN        | Inf and NaN",
    })
    void ramTheNetworkRefuses(String ram, String words) {
        InvalidInputException e = error(entry("model: a100\n          ram: " + ram));
        assertEquals("profiles.compute.web.resources.gpu.attributes.vendor.nvidia[0].ram", e.path(), e.getMessage());
        assertEquals(17, e.line());
        assertTrue(e.problem().contains(words), e.getMessage());
    }

    /**
     * Below 1Gi the key holds {@code ram/0Gi}: the network takes it, but the provider's memory parser refuses
     * {@code 0Gi} ({@code MemoryQuantityFromString}), so no provider bids on the whole request.
     */
    @Test
    void ramBelowOneGiIsTakenButNeverBidOn() throws InvalidInputException {
        GpuRequest half = gpu(entry("model: a100\n          ram: 0.5Gi\n        - model: h100"));
        assertEquals("the provider cannot read ram '0Gi' in the GPU attribute key 'vendor/nvidia/model/a100/ram/0Gi' "
                + "(its memory parser needs a size of 1Gi or more), so no provider bids on this GPU request",
                half.unbiddable());
        NodeOffer h100s = NodeOffer.of("n", List.of(new OfferedGpu(Vendor.NVIDIA, "h100", 80, "sxm", false, null, null)),
                Map.of(), Map.of(), null);
        MatchResult r = Matcher.match(SdlReader.read(sdl(entry("model: a100\n          ram: 1e9\n        - model: h100")),
                "d"), "t", List.of(h100s));
        assertFalse(r.fits(), "the h100 alternative is lost with the request");
        assertTrue(r.placements().get(0).nodes().get(0).reason().startsWith("the provider cannot read ram '0Gi'"));
        assertNull(gpu(entry("model: a100\n          ram:")).unbiddable());
    }

    // --- interface ---------------------------------------------------------------------------------------------

    /** {@code gpuInterface.UnmarshalYAML}: pcie or sxm exactly (Go test "invalid interface": pciex); nothing is none. */
    @Test
    void theInterfaceIsPcieOrSxm() throws InvalidInputException {
        assertEquals("1 x nvidia a100/sxm", request(entry("{model: a100, interface: sxm}")));
        assertEquals("1 x nvidia a100", request(entry("{model: a100, interface: }")));
        for (String bad : List.of("pciex", "sxm4", "PCIe", "\"\"")) {
            InvalidInputException e = error(entry("{model: a100, interface: " + bad + "}"));
            assertEquals("profiles.compute.web.resources.gpu.attributes.vendor.nvidia[0].interface", e.path(), bad);
            assertTrue(e.problem().contains("expected pcie or sxm"), e.getMessage());
        }
    }

    // --- count and the group -----------------------------------------------------------------------------------

    /**
     * {@code count} is a {@code uint32} decoded by yaml.v3 (v3.0.1 {@code resolve.go}, {@code decode.go}): integers
     * in Go's base-prefix syntax, floats truncated, nothing is 0, a string is refused.
     */
    @ParameterizedTest(name = "count: {0}")
    @CsvSource(delimiter = '|', value = {
        "2      | 2",
        "0x2    | 2",
        "010    | 8",
        "09     | 9",
        "1_0    | 10",
        "+3     | 3",
        "1.5    | 1",
        "1e1    | 10",
        "0      | 0",
        "''     | 0",
        "~      | 0",
    })
    void countIsAYamlNumber(String count, int replicas) throws InvalidInputException {
        assertEquals(replicas, SdlReader.read(sdl("gpu: {units: 1, attributes: {vendor: {nvidia: }}}", count),
                "d").placements().get(0).replicas());
    }

    @ParameterizedTest(name = "count: {0}")
    @CsvSource(delimiter = '|', value = {
        "'\"2\"'      | '2' is a string; the network's parser reads a number here",
        "-1           | '-1' is negative",
        "4294967296   | out of range",
        ".inf         | is not a number",
        "two          | 'two' is not a number",
    })
    void countTheNetworkRefuses(String count, String words) {
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> SdlReader.read(sdl("gpu: {units: 1, attributes: {vendor: {nvidia: }}}", count), "d"));
        assertEquals("deployment.web.dc.count", e.path());
        assertTrue(e.problem().contains(words), e.getMessage());
    }

    /** {@code ResourceUnits.Validate}: a group's GPUs (units times count, summed) are at most 24 x 50. */
    @Test
    void aGroupAsksForAtMost1200Gpus() throws InvalidInputException {
        String gpu = "gpu: {units: 24, attributes: {vendor: {nvidia: }}}";
        assertEquals(50, SdlReader.read(sdl(gpu, "50"), "d").placements().get(0).replicas());
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> SdlReader.read(sdl(gpu, "51"), "d"));
        assertEquals("placement group dc asks for 1224 GPUs in all (GPUs per replica times count, over its services); "
                + "the network accepts at most 1200", e.problem());
    }

    // --- version -----------------------------------------------------------------------------------------------

    /**
     * {@code sdl.UnmarshalYAML} ({@code sdl/sdl.go}): {@code semver.ParseTolerant}, then 2.0.0 is v2 and anything
     * from 2.1.0 is v2.1. The SDK schema allows the strings "2.0" and "2.1" only (chain-sdk
     * {@code testdata/sdl/input/schema-only-invalid/invalid-version.yaml}, "3.0", is the parity test's example).
     */
    @ParameterizedTest(name = "version: {0}")
    @CsvSource(delimiter = '|', value = {"'\"2.0\"'", "2.0", "2", "v2.0", "2.0.0", "'\"2.1\"'", "2.2", "'\"3.0\"'", "2.10"})
    void versionsTheParserReads(String version) throws InvalidInputException {
        assertEquals(1, SdlReader.read(sdl("").replace("\"2.0\"", version), "d").placements().size());
    }

    @ParameterizedTest(name = "version: {0}")
    @CsvSource(delimiter = '|', value = {
        "1.0    | unsupported version '1.0'",
        "2.0.1  | unsupported version '2.0.1'",
        "2.1.0-rc1 | unsupported version '2.1.0-rc1'",
        "02.0   | is not a version",
        "two    | is not a version",
        "'[2]'  | expected a version such as",
    })
    void versionsTheParserRefuses(String version, String words) {
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> SdlReader.read(sdl("").replace("\"2.0\"", version), "d.yaml"));
        assertEquals("version", e.path());
        assertEquals(1, e.line());
        assertTrue(e.problem().contains(words), e.getMessage());
    }

    // --- what is not read --------------------------------------------------------------------------------------

    /**
     * CPU, memory and storage are not read, so no form of them makes an SDL invalid here. The forms below are the
     * Go tests' own ({@code units_test.go}: cpu 0.5 and "100m"; sizes "1M", "0.5M", "3G") and a float size (1e9).
     */
    @Test
    void cpuMemoryAndStorageFormsAreLeftToTheSdk() throws InvalidInputException {
        for (String[] form : new String[][] {{"units: 1", "units: 0.5"}, {"units: 1", "units: \"100m\""}}) {
            String text = sdl("memory: {size: 1e9}\nstorage:\n  - size: \"1M\"\n  - size: 0.5M\n  - {size: 3G}\n"
                    + "gpu: {units: 1, attributes: {vendor: {nvidia: }}}").replaceFirst(form[0], form[1]);
            assertTrue(text.contains(form[1]));
            assertEquals("1 x nvidia *", SdlReader.read(text, "d").placements().get(0).gpu().describe());
        }
    }

    // --- the file ----------------------------------------------------------------------------------------------

    @Test
    void malformedYamlNamesItsLine() {
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> SdlReader.read("version: \"2.0\"\nprofiles:\n  compute: [a, b\n  placement: {}\n", "bad.yaml"));
        assertTrue(e.getMessage().startsWith("bad.yaml:"), e.getMessage());
        assertTrue(e.line() != null && e.line() >= 3, e.getMessage());
        assertTrue(e.problem().startsWith("not valid YAML"), e.getMessage());
    }

    /** yaml.v3 refuses a key twice in the mappings it decodes itself; in gpu and attributes it keeps the last (we refuse). */
    @Test
    void aKeyGivenTwiceIsAnError() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> SdlReader.read(sdl("""
                gpu:
                  units: 1
                  units: 2
                  attributes: {vendor: {nvidia: }}
                """), "deploy.yaml"));
        assertEquals("profiles.compute.web.resources.gpu.units", e.path());
        assertEquals(13, e.line());
        assertTrue(e.problem().contains("first on line 12"), e.getMessage());
    }

    @Test
    void profileReferencesAreChecked() {
        InvalidInputException profile = assertThrows(InvalidInputException.class,
                () -> SdlReader.read(sdl("").replace("profile: web", "profile: gpu"), "d.yaml"));
        assertEquals("deployment.web.dc.profile", profile.path());
        assertTrue(profile.problem().contains("[web]"), profile.getMessage());
    }
}
