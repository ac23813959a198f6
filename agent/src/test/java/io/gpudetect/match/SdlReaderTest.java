package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Vendor;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Hand-made SDL edge cases; the real files are checked in test-fixtures ({@code SdlFixturesTest}). */
class SdlReaderTest {

    /** A minimal SDL whose one profile's gpu section is {@code gpu} (indented under resources). */
    private static String sdl(String gpu) {
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
                      count: 3
                """;
    }

    private static InvalidInputException error(String gpu) {
        return assertThrows(InvalidInputException.class, () -> SdlReader.read(sdl(gpu), "deploy.yaml"));
    }

    @Test
    void readsWhatTheNetworksGoParserAcceptsAndTheSchemaRefuses() throws InvalidInputException {
        // node sdl/gpu.go: an entry is decoded with yaml.v3's non-strict Decode, so "vram" is ignored (any RAM).
        Demand typo = SdlReader.read(sdl("""
                gpu:
                  units: 1
                  attributes:
                    vendor:
                      nvidia:
                        - model: a100
                          vram: 80Gi
                """), "deploy.yaml");
        assertEquals(List.of(new GpuChoice(Vendor.NVIDIA, "a100", null, false, null, null)),
                typo.placements().get(0).gpu().choices());
        // v2ResourceGPU checks attributes only for units > 0: with units 0 they ask for nothing.
        Demand none = SdlReader.read(sdl("""
                gpu:
                  units: 0
                  attributes: {vendor: {nvidia: }}
                """), "deploy.yaml");
        assertEquals(0, none.placements().get(0).gpu().units());
        // ... but attributes it cannot read are refused there as well.
        assertTrue(error("gpu:\n  units: 0\n  attributes: {colour: red}").getMessage().contains("unsupported GPU attribute"));
    }

    @Test
    void readsModelsRamAndInterfaceAsAlternatives() throws InvalidInputException {
        Demand d = SdlReader.read(sdl("""
                gpu:
                  units: 2
                  attributes:
                    vendor:
                      nvidia:
                        - model: H100
                          ram: 80Gi
                          interface: sxm
                        - model: a100
                          ram: 40960Mi
                """), "deploy.yaml");
        Placement p = d.placements().get(0);
        assertEquals(3, p.replicas());
        assertEquals(2, p.gpu().units());
        assertEquals(List.of(new GpuChoice(Vendor.NVIDIA, "H100", 80, false, "sxm", null),
                new GpuChoice(Vendor.NVIDIA, "a100", 40, false, null, null)), p.gpu().choices());
    }

    @Test
    void acceptsAmdAndInterconnect() throws InvalidInputException {
        Demand d = SdlReader.read(sdl("""
                gpu:
                  units: 1
                  attributes:
                    interconnect: []
                    vendor:
                      amd:
                        - model: mi300x
                      nvidia:
                """), "deploy.yaml");
        assertEquals("1 x (amd mi300x | nvidia *)", d.placements().get(0).gpu().describe());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "fractional units   | 'gpu:\n  units: 1.5\n  attributes: {vendor: {nvidia: }}'                 | profiles.compute.web.resources.gpu.units | 12 | fractional",
        "negative units     | 'gpu:\n  units: -1\n  attributes: {vendor: {nvidia: }}'                  | profiles.compute.web.resources.gpu.units | 12 | whole number",
        "units missing      | 'gpu:\n  attributes: {vendor: {nvidia: }}'                               | profiles.compute.web.resources.gpu.units | 11 | missing",
        "unknown vendor     | 'gpu:\n  units: 1\n  attributes:\n    vendor:\n      intel:\n        - model: max1550' | profiles.compute.web.resources.gpu.attributes.vendor.intel | 15 | unknown GPU vendor 'intel'",
        "ram not quantity   | 'gpu:\n  units: 1\n  attributes:\n    vendor:\n      nvidia:\n        - model: a100\n          ram: 80G' | profiles.compute.web.resources.gpu.attributes.vendor.nvidia[0].ram | 17 | memory quantity",
        "ram not whole Gi   | 'gpu:\n  units: 1\n  attributes:\n    vendor:\n      nvidia:\n        - model: a100\n          ram: 1500Mi' | profiles.compute.web.resources.gpu.attributes.vendor.nvidia[0].ram | 17 | whole Gi",
        "model missing      | 'gpu:\n  units: 1\n  attributes:\n    vendor:\n      nvidia:\n        - ram: 80Gi' | profiles.compute.web.resources.gpu.attributes.vendor.nvidia[0].model | 16 | model name",
        "gpu field          | 'gpu:\n  units: 1\n  count: 2\n  attributes: {vendor: {nvidia: }}'       | profiles.compute.web.resources.gpu.count | 13 | unsupported field",
        "attribute key      | 'gpu:\n  units: 1\n  attributes:\n    model: a100'                     | profiles.compute.web.resources.gpu.attributes.model | 14 | unsupported GPU attribute",
        "vendor list shape  | 'gpu:\n  units: 1\n  attributes:\n    vendor:\n      nvidia: a100'      | profiles.compute.web.resources.gpu.attributes.vendor.nvidia | 15 | list of models",
        "gpu not a mapping  | 'gpu: 1'                                                                  | profiles.compute.web.resources.gpu | 11 | expected a mapping",
        "units without attr | 'gpu:\n  units: \"2\"'                                                  | profiles.compute.web.resources.gpu.attributes | 11 | units > 0 needs attributes",
    })
    void reportsTheRuleWithPathAndLine(String name, String gpu, String path, int line, String words) {
        InvalidInputException e = error(gpu.replace("\\n", "\n"));
        assertEquals(path, e.path(), e.getMessage());
        assertEquals(line, e.line(), e.getMessage());
        assertTrue(e.problem().contains(words), e.getMessage());
    }

    @Test
    void malformedYamlNamesItsLine() {
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> SdlReader.read("version: \"2.0\"\nprofiles:\n  compute: [a, b\n  placement: {}\n", "bad.yaml"));
        assertTrue(e.getMessage().startsWith("bad.yaml:"), e.getMessage());
        assertTrue(e.line() != null && e.line() >= 3, e.getMessage());
        assertTrue(e.problem().startsWith("not valid YAML"), e.getMessage());
    }

    @Test
    void keyGivenTwiceIsAnError() {
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
    void versionAndProfileReferencesAreChecked() {
        InvalidInputException version = assertThrows(InvalidInputException.class,
                () -> SdlReader.read(sdl("").replace("\"2.0\"", "\"3.0\""), "d.yaml"));
        assertEquals("version", version.path());
        assertEquals(1, version.line());
        InvalidInputException profile = assertThrows(InvalidInputException.class,
                () -> SdlReader.read(sdl("").replace("profile: web", "profile: gpu"), "d.yaml"));
        assertEquals("deployment.web.dc.profile", profile.path());
        assertTrue(profile.problem().contains("[web]"), profile.getMessage());
    }

    @Test
    void version21AndUnitsAsStringAreValid() throws InvalidInputException {
        Demand d = SdlReader.read(sdl("gpu:\n  units: \"4\"\n  attributes: {vendor: {nvidia: []}}")
                .replace("\"2.0\"", "2.1"), "d.yaml");
        assertEquals("4 x nvidia *", d.placements().get(0).gpu().describe());
    }

    @Test
    void quantities() {
        assertEquals(80L, SdlReader.parseGi("80Gi"));
        assertEquals(40L, SdlReader.parseGi("40960Mi"));
        assertEquals(1024L, SdlReader.parseGi("1Ti"));
        assertEquals(null, SdlReader.parseGi("80G"));
        assertEquals(null, SdlReader.parseGi("80GB"));
        assertEquals(null, SdlReader.parseGi("0.5Gi"));
    }
}
