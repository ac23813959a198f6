package io.gpudetect.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.GpuInterface;
import io.gpudetect.testing.SharedData;
import org.junit.jupiter.api.Test;

/** Akash's gpus.json as the normaliser reads it: the shared copy of provider-configs' table, and the format's edges. */
class AkashGpusTest {

    @Test
    void providerConfigsTableNamesTheCardsWeBidWith() {
        AkashGpus akash = SharedData.akashGpus();
        assertTrue(akash.present());
        assertEquals("h100", akash.lookup("10de", "2330").orElseThrow().model());
        assertEquals(GpuInterface.SXM, akash.lookup("10de", "2330").orElseThrow().interfaceType());
        assertEquals(80, akash.lookup("10de", "2330").orElseThrow().memoryGi());
        assertEquals("mi60", akash.lookup("1002", "66a1").orElseThrow().model());
    }

    @Test
    void idsAreLowerCasedScalarsReadAsTheirTextAndUnknownFieldsPassedOver() throws TableException {
        AkashGpus akash = AkashGpus.parse("""
                {"10DE": {"name": "nvidia", "devices": {"20B0": {"name": "a100", "memory_size": 80, "interface": {"x": 1},
                  "subsystems": {"1234": {"name": "other"}}}}}, "1002": null}
                """, "test");
        AkashGpus.Entry a100 = akash.lookup("10de", "20b0").orElseThrow();
        assertEquals(new AkashGpus.Entry("nvidia", "a100", null, null), a100);
        assertTrue(akash.lookup("10de", "1234").isEmpty());
    }

    @Test
    void aTableNotInTheFormatIsOneLineNamingWhereNotASilentSkip() {
        TableException notObject = assertThrows(TableException.class,
                () -> AkashGpus.parse("{\"10de\": {\"devices\": {\"2330\": \"h100\"}}}", "gpus.json"));
        assertEquals("gpus.json: device 10de/2330: expected an object at line 1 (Akash's devices/pcie/gpus.json)",
                notObject.getMessage());
        TableException syntax = assertThrows(TableException.class, () -> AkashGpus.parse("{\n\"10de\": {,\n", "gpus.json"));
        assertTrue(syntax.getMessage().startsWith("gpus.json: not a JSON GPU table ("), syntax.getMessage());
        assertFalse(syntax.getMessage().contains("\n"), syntax.getMessage());
    }

    @Test
    void anAbsentTableAnswersNothingAndSaysWhy() {
        AkashGpus none = AkashGpus.absent("--akash-table none");
        assertFalse(none.present());
        assertEquals("--akash-table none", none.origin());
        assertTrue(none.lookup("10de", "2330", "1234").isEmpty());
    }

    @Test
    void interfacesAreFoldedAsAkashDoes() {
        assertEquals(GpuInterface.SXM, GpuInterface.fromId("SXM5"));
        assertEquals(GpuInterface.PCIE, GpuInterface.fromId("PCIe"));
        assertNull(GpuInterface.fromId(null));
    }
}
