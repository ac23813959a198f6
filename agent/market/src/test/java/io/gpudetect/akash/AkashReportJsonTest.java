package io.gpudetect.akash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.match.InvalidInputException;
import io.gpudetect.match.KubeNode;
import io.gpudetect.probe.pci.DrmCards;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The JSON report written as it is made, to the command's own output, which it must leave open. */
class AkashReportJsonTest {

    @Test
    void writesTheReportAndLeavesTheOutputOpen() throws InvalidInputException {
        AkashGpuTable table = AkashGpuTable.parse("{\"10de\": {\"name\": \"nvidia\", \"devices\": {}}}", "gpus.json");
        AkashForecast forecast = AkashForecast.of("records.yaml", table, List.of(new NodeInput("n1", List.of(),
                new DrmCards.NotKnown("no record"), null, "no record", KubeNode.named("n1"), "no status",
                "records.yaml", null)), null, null);
        boolean[] closed = {false};
        StringWriter out = new StringWriter() {
            @Override
            public void close() {
                closed[0] = true;
            }
        };
        out.write("before\n");
        AkashReport.json(forecast, out);
        assertFalse(closed[0], "the report closed the command's output");
        assertEquals("before\n" + AkashReport.json(forecast), out.toString());
        assertTrue(out.toString().endsWith("}\n"), out.toString());
        assertTrue(out.toString().contains("\"node\" : \"n1\""), out.toString());
    }
}
