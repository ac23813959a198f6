package io.gpudetect.record;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpudetect.testing.CommandRun;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code match --gpu} with {@code driver>=}, {@code cuda>=}, {@code pcie>=} and {@code link=full} against capacity
 * records: the H100 recording's record as the agent writes it (driver 580.159.04, CUDA 13.0, gen5 x16 of gen5 x16 in
 * its nvidia-smi.xml), a hand-written record of a card at x8, and one from an agent older than these fields.
 */
class MatchDriverCudaLinkTest {

    @TempDir
    Path dir;

    private Path h100Record() throws Exception {
        return BundleRecords.file(dir, "h100.json", BundleRecords.json("h100-node", BundleRecords.spec(BundleRecords.h100())));
    }

    /** The verdict's reason on the one node, or "can serve". */
    private static String reason(CommandRun r) throws Exception {
        JsonNode verdict = new ObjectMapper().readTree(r.out()).get("placements").get(0).get("nodes").get(0);
        return verdict.get("canServe").asBoolean() ? "can serve" : verdict.get("reason").asText();
    }

    private static CommandRun match(Path records, String request) {
        return CommandRun.of("match", "--records", records.toString(), "--gpu", request, "-o", "json");
    }

    @Test
    void theH100ServesWhatItsDriverAndLinkReach() throws Exception {
        Path records = h100Record();
        CommandRun fits = match(records, "vendor=nvidia,model=h100,driver>=550.54,cuda>=12.8,pcie>=gen5x16,link=full");
        assertEquals(0, fits.exit(), fits.out() + fits.err());
        assertEquals("can serve", reason(fits));
        assertEquals("can serve", reason(match(records, "vendor=nvidia,driver>=580.159.04,cuda>=13")),
                "equal versions reach the floor; 13 is 13.0");
    }

    @Test
    void aDriverOrCudaBelowTheFloorSaysBothVersions() throws Exception {
        Path records = h100Record();
        CommandRun driver = match(records, "vendor=nvidia,driver>=580.159.10");
        assertEquals(1, driver.exit());
        assertEquals("driver 580.159.04 below 580.159.10", reason(driver), "04 is 4: numbers, not text");
        assertEquals("CUDA 13.0 below 13.1", reason(match(records, "vendor=nvidia,cuda>=13.1")));
        assertEquals("GPU 0000:00:06.0 link gen5 at most, gen6 asked", reason(match(records, "vendor=nvidia,pcie>=gen6")));
    }

    @Test
    void aLinkOnFewerLanesThanTheCardHasFailsLinkFullAndPcieX16() throws Exception {
        Path records = BundleRecords.file(dir, "x8.yaml", """
                - metadata: {name: n1}
                  spec:
                    gpus:
                    - {vendor: nvidia, model: h100, memoryGi: 80, interface: pcie, pciAddress: "0000:1b:00.0", driverVersion: 550.90.07, pcieLink: {currentGen: 4, maxGen: 5, currentWidth: 8, maxWidth: 16}}
                    - {vendor: nvidia, model: h100, memoryGi: 80, interface: pcie, pciAddress: "0000:3d:00.0", driverVersion: 550.90.07, pcieLink: {currentGen: 5, maxGen: 5, currentWidth: 16, maxWidth: 16}}
                """);
        assertEquals("can serve", reason(match(records, "vendor=nvidia,link=full")), "one GPU asked, one whole link");
        assertEquals("too few GPUs: 1 matching GPU (h100 80Gi pcie), 2 asked per replica; GPU 0000:1b:00.0 link x8 of x16",
                reason(match(records, "vendor=nvidia,link=full,count=2")));
        assertEquals("too few GPUs: 1 matching GPU (h100 80Gi pcie), 2 asked per replica; GPU 0000:1b:00.0 link x8 of "
                + "x16, x16 asked", reason(match(records, "vendor=nvidia,pcie>=x16,count=2")));
        assertEquals("can serve", reason(match(records, "vendor=nvidia,pcie>=gen5x8,count=2")));
    }

    @Test
    void aRecordFromAnOlderAgentFailsEveryFloorSayingSoAndPassesWithoutOne() throws Exception {
        Path records = BundleRecords.file(dir, "old.yaml", """
                - metadata: {name: n1}
                  spec:
                    gpus:
                    - {vendor: nvidia, model: h100, memoryGi: 80, interface: sxm, pciAddress: "0000:1b:00.0"}
                """);
        assertEquals("can serve", reason(match(records, "vendor=nvidia,model=h100")));
        assertEquals("driver version not published (agent too old?)", reason(match(records, "vendor=nvidia,driver>=550.54")));
        assertEquals("CUDA version not published (agent too old?)", reason(match(records, "vendor=nvidia,cuda>=12.8")));
        assertEquals("PCIe link width not published (agent too old?)", reason(match(records, "vendor=nvidia,link=full")));
        assertEquals("PCIe link generation not published (agent too old?)",
                reason(match(records, "vendor=nvidia,pcie>=gen4x16")));
    }

    @Test
    void badFloorsAreRefusedWithWhatWasExpected() throws Exception {
        Path records = h100Record();
        for (String[] c : new String[][] {
                {"vendor=nvidia,driver=550", "driver is a minimum: write driver>=550"},
                {"vendor=nvidia,driver>=r550", "driver 'r550' is not a version of dotted numbers; expected e.g. driver>=550.54"},
                {"vendor=amd,cuda>=12.8", "cuda is a version of NVIDIA's driver stack: it needs vendor=nvidia (for AMD, rocm>=VERSION)"},
                {"vendor=nvidia,pcie>=gen4x3", "pcie 'gen4x3' is not a link; expected e.g. pcie>=gen4x16, pcie>=gen5 or pcie>=x16"},
                {"vendor=nvidia,link=x16", "link 'x16' is not full; link=full asks for a link on every lane the GPU has"}}) {
            CommandRun r = CommandRun.of("match", "--records", records.toString(), "--gpu", c[0]);
            assertEquals(2, r.exit(), c[0]);
            assertEquals("gpu-detect match: --gpu[0]: " + c[1], r.err().strip(), c[0]);
        }
    }
}
