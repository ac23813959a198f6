package io.gpudetect.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The tables compiled into the jar are exactly the upstream files kept in tables/ (refresh-tables.sh writes both). */
class ShippedTableTextTest {

    private static final Path TABLES = Path.of("..", "tables");

    @Test
    void amdgpuIdsIsTheFileInTables() throws IOException {
        assertEquals(Files.readString(TABLES.resolve("amdgpu.ids")), ShippedTableText.AMDGPU_IDS,
                "ShippedTableText.java is stale: run tables/refresh-tables.sh (or tables/table-text.py)");
    }

    @Test
    void akashGpusIsTheFileInTables() throws IOException {
        assertEquals(Files.readString(TABLES.resolve("akash-gpus.json")), ShippedTableText.AKASH_GPUS_JSON,
                "ShippedTableText.java is stale: run tables/refresh-tables.sh (or tables/table-text.py)");
    }
}
