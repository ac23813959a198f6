package io.gpudetect.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MemorySizeTest {

    @ParameterizedTest(name = "{0} MiB (table {1}) -> {2}Gi")
    @CsvSource(nullValues = "-", value = {
            "81559, 80, 80",   // H100 80GB HBM3 as NVML reports it
            "81559, -, 80",
            "15360, 16, 16",   // Tesla T4
            "15360, -, 16",
            "40960, -, 40",
            "24564, -, 24",    // RTX 4090 / A5000
            "10989, -, 11",    // RTX 2080 Ti
            "1998, -, 2",      // GT 1030
            "97887, -, 96",    // RTX PRO 6000 Blackwell
            "143771, -, 141",  // H200
            "196592, -, 192",  // MI300X
            "-, 24, 24",       // no size reported: the table's
            "24564, 48, 24"})  // a table size far from the reading loses to the reading
    void roundsToTheMarketedSize(Long mib, Integer table, Integer expected) {
        assertEquals(expected, MemorySize.gi(mib, table));
    }
}
