package io.gpudetect.fuzz;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.gpudetect.tables.PciIds;
import java.nio.charset.StandardCharsets;

/**
 * A host's pci.ids is read on a live host when newer than ours: any text must give a table (malformed
 * lines skipped), and lookups in it must answer.
 */
class PciIdsFuzzTest {

    @FuzzTest
    void table(byte[] input) {
        PciIds ids = PciIds.parse(new String(input, StandardCharsets.UTF_8));
        assertNotNull(ids.version());
        ids.productName("10de", "2684");
        ids.subsystem("10de", "2684", "10de", "16f3");
        ids.vendor("1002");
        ids.newer(PciIds.parse("# Version: 2000.01.01\n"));
    }
}
