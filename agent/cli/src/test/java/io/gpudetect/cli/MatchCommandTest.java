package io.gpudetect.cli;

import io.gpudetect.testing.CommandRun;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exit statuses and messages of {@code match} and {@code inventory} through the real picocli command. */
class MatchCommandTest {

    @TempDir
    Path dir;
    Path records;
    Path sdl;

    static CommandRun run(String... args) {
        return CommandRun.of(args);
    }

    /** The SDL's profile asks for two RTX 4090s of 24 Gi, in the mapping form (indented as it stands in the SDL). */
    private static final String GPU_REQUEST = """
                    gpu:
                      units: 2
                      attributes:
                        vendor:
                          nvidia:
                            - model: rtx4090
                              ram: 24Gi
            """;

    @BeforeEach
    void files() throws IOException {
        records = dir.resolve("records.json");
        Files.writeString(records, """
                [{"kind": "GpuCapacity", "metadata": {"name": "n1"},
                  "spec": {"gpus": [{"vendor": "nvidia", "model": "rtx4090", "memoryGi": 24, "interface": "pcie"},
                                    {"vendor": "nvidia", "model": "rtx4090", "memoryGi": 24, "interface": "pcie"}],
                           "allocatable": {"nvidia.com/gpu": 2}},
                  "status": {"inUse": {"nvidia.com/gpu": 0}, "lastGoodPass": "2026-05-01T11:59:00Z"}}]
                """);
        sdl = dir.resolve("deploy.yaml");
        Files.writeString(sdl, """
                version: "2.0"
                profiles:
                  compute:
                    gpu:
                      resources:
                """ + GPU_REQUEST + """
                deployment:
                  app:
                    dc:
                      profile: gpu
                      count: 1
                """);
    }

    @Test
    void fitsIsZero() {
        CommandRun r = run("match", sdl.toString(), "--records", records.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("app/dc (profile gpu): 1 replica of 2 x nvidia rtx4090/24Gi: fits on n1"), r.out());
        assertEquals("", r.err());
    }

    @Test
    void doesNotFitIsOne() {
        CommandRun r = run("match", "--records", records.toString(), "--gpu", "vendor=nvidia,model=rtx4090,count=3");
        assertEquals(1, r.exit());
        assertTrue(r.out().contains("  n1    2 nvidia  too few GPUs: 2 matching GPUs (rtx4090 24Gi pcie), 3 asked"), r.out());
        assertTrue(r.out().endsWith("Does not fit: --gpu[0] (1 of 1 replicas without a node).\n"), r.out());
    }

    /** A warning is printed before the result and listed in JSON; it does not change the exit status. */
    @Test
    void warningsArePrintedAndListed() throws IOException {
        Files.writeString(sdl, Files.readString(sdl).replace(GPU_REQUEST, "            gpu: 2\n"));
        String warning = sdl + ":6: profiles.compute.gpu.resources.gpu: gpu: '2' asks for no GPU: the network's parser "
                + "reads units and attributes only from a mapping, so this profile is deployed without a GPU; write "
                + "units and attributes under gpu";
        CommandRun table = run("match", sdl.toString(), "--records", records.toString());
        assertEquals(0, table.exit(), table.err());
        assertTrue(table.out().contains("\n\nwarning: " + warning + "\n\napp/dc (profile gpu): 1 replica of no GPU: "
                + "fits (no GPU asked)"), table.out());
        CommandRun json = run("match", sdl.toString(), "--records", records.toString(), "-o", "json");
        assertEquals(warning, new ObjectMapper().readTree(json.out()).get("warnings").get(0).asText(), json.out());
        assertTrue(!run("match", "--gpu", "vendor=nvidia", "--records", records.toString(), "-o", "json").out()
                .contains("warnings"), "no warnings, no field");
    }

    @Test
    void invalidInputIsTwo() throws IOException {
        Files.writeString(sdl, Files.readString(sdl).replace("units: 2", "units: 0.5"));
        CommandRun bad = run("match", sdl.toString(), "--records", records.toString());
        assertEquals(2, bad.exit());
        assertEquals(sdl + ":7: profiles.compute.gpu.resources.gpu.units: '0.5' is not a whole number of 0 or more (the "
                + "network's parser reads the digits 0-9 alone: no sign, point, exponent or spaces); expected the number "
                + "of GPUs each replica needs\n", bad.err().replace("gpu-detect match: ", ""));
        assertEquals("", bad.out());

        assertEquals(2, run("match", "--records", records.toString()).exit(), "nothing to match");
        assertEquals(2, run("match", "--gpu", "vendor=nvidia", "--records", dir.resolve("none.yaml").toString()).exit());
        assertEquals(2, run("match", "--gpu", "vendor=nvidia", "--records", records.toString(), "--replay",
                dir.toString()).exit());
        assertEquals(2, run("match", "--gpu", "vendor=", "--records", records.toString()).exit());
        assertEquals(2, run("match", "--no-such-option").exit(), "usage errors are invalid input too");
        Files.writeString(records, "[{\"kind\": \"GpuCapacity\", \"metadata\": {\"name\": \"n1\"}, \"spec\": {\"gpus\": 3}}]");
        CommandRun badRecords = run("match", "--gpu", "vendor=nvidia", "--records", records.toString());
        assertEquals(2, badRecords.exit());
        assertTrue(badRecords.err().contains("[0](n1).gpus: expected a list of GPUs"), badRecords.err());
    }

    @Test
    void jsonAndYamlCarryTheSameAnswer() throws IOException {
        CommandRun json = run("match", sdl.toString(), "--records", records.toString(), "-o", "json");
        CommandRun yaml = run("match", sdl.toString(), "--records", records.toString(), "-o", "yaml");
        var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        var yamlMapper = new com.fasterxml.jackson.databind.ObjectMapper(
                new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());
        assertEquals(mapper.readTree(json.out()), yamlMapper.readTree(yaml.out()));
        assertEquals("n1", mapper.readTree(json.out()).at("/placements/0/assigned/0").asText());
    }

    @Test
    void inventoryExitsOneWhenANodeIsStale() {
        CommandRun fresh = run("inventory", "--records", records.toString(), "--now", "2026-05-01T12:00:00Z");
        assertEquals(0, fresh.exit(), fresh.err());
        assertTrue(fresh.out().contains("nvidia  rtx4090  24Gi  pcie   -    1      2     2            0       2"),
                fresh.out());
        CommandRun stale = run("inventory", "--records", records.toString(), "--now", "2026-05-01T12:30:00Z",
                "--stale-after", "10m");
        assertEquals(1, stale.exit());
        assertTrue(stale.out().contains("stale (last good pass 31m ago, more than 10m)"), stale.out());
        assertEquals(2, run("inventory", "--records", dir.resolve("none").toString()).exit());
        assertEquals(2, run("inventory").exit(), "--records is required");
    }
}
