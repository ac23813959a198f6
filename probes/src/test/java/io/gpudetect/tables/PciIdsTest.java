package io.gpudetect.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PciIdsTest {

    /** --version prints the shipped copy's version read from its header alone: the same as the whole table's. */
    @Test
    void theShippedVersionFromTheHeaderIsTheWholeTablesVersion() {
        String version = PciIds.shippedVersion();
        assertEquals(PciIds.shipped().version(), version);
        assertTrue(version.matches("\\d{4}\\.\\d{2}\\.\\d{2}"), version);
    }

    private static final String SMALL = """
            #\tVersion: 2030.01.01
            10de  NVIDIA Corporation
            \t2684  AD102 [GeForce RTX 4090]
            \t\t1458 40bf  GV-N4090GAMING OC-24GD
            \tzzzz  not a device line
            1002  Advanced Micro Devices, Inc. [AMD/ATI]
            \t740f  Aldebaran/MI200 [Instinct MI210]
            C 03  Display controller
            \t00  VGA compatible controller
            """;

    @Test
    void namesDevicesSubsystemsAndVendors() {
        PciIds ids = PciIds.parse(SMALL);
        assertEquals("2030.01.01", ids.version());
        assertEquals("GeForce RTX 4090", ids.productName("10de", "2684").orElseThrow());
        assertEquals("AD102 [GeForce RTX 4090]", ids.device("10de", "2684").orElseThrow());
        assertEquals("GV-N4090GAMING OC-24GD", ids.subsystem("10de", "2684", "1458", "40bf").orElseThrow());
        assertEquals("Instinct MI210", ids.productName("1002", "740f").orElseThrow());
        assertTrue(ids.device("10de", "0000").isEmpty());
        assertTrue(ids.vendor("03").isEmpty(), "the class section is not read as vendors");
    }

    @Test
    void theShippedTableKnowsCommonCardsAndALaterHostTableWins() {
        PciIds shipped = PciIds.shipped();
        assertEquals("GeForce RTX 4090", shipped.productName("10de", "2684").orElseThrow());
        assertTrue(shipped.vendor("1a03").isPresent(), "ASPEED is named");
        // Held as bytes and decoded a vendor at a time: a name outside ASCII comes out as the file spells it (line
        // "15cf  Hilscher Gesellschaft f\u00fcr Systemautomation mbH" of the shipped pci.ids).
        assertEquals("Hilscher Gesellschaft f\u00fcr Systemautomation mbH", shipped.vendor("15cf").orElseThrow());
        PciIds newer = PciIds.parse(SMALL);
        assertSame(newer, shipped.newer(newer));
        assertSame(shipped, shipped.newer(PciIds.parse("#\tVersion: 2001.01.01\n10de  NVIDIA\n")));
    }

    @Test
    void fieldsAreSplitOnAnyRunOfWhitespaceAndShortLinesAreSkipped() {
        PciIds ids = PciIds.parse("""
                #\tVersion: 2030.01.01
                10DE \t NVIDIA Corporation \t
                \t2684\tAD102  [GeForce RTX 4090]
                \t\t1458\t40BF \t Gaming OC
                \t\t1458 40c0
                \t2685
                """);
        assertEquals("NVIDIA Corporation", ids.vendor("10de").orElseThrow());
        assertEquals("AD102  [GeForce RTX 4090]", ids.device("10de", "2684").orElseThrow());
        assertEquals("Gaming OC", ids.subsystem("10de", "2684", "1458", "40bf").orElseThrow());
        assertTrue(ids.subsystem("10de", "2684", "1458", "40c0").isEmpty(), "a subsystem line without a name");
        assertTrue(ids.device("10de", "2685").isEmpty(), "a device line without a name");
    }

    @Test
    void lookupsStayInsideTheirVendorAndDevice() {
        PciIds ids = PciIds.parse("""
                #	Version: 2030.01.01
                10de  NVIDIA Corporation
                	2330  GH100 [H100 SXM5 80GB]
                # a comment between a device and its subsystems
                		10de 16c1  H100 SXM5 80GB

                		10de 16c2  H100 SXM5 (second)
                	2331  GH100 [H100 PCIe]
                		1028 aaaa  only under 2331
                1002  Advanced Micro Devices, Inc. [AMD/ATI]
                	2331  not NVIDIA's
                """);
        assertEquals("H100 SXM5 80GB", ids.subsystem("10de", "2330", "10de", "16c1").orElseThrow());
        assertEquals("H100 SXM5 (second)", ids.subsystem("10DE", "2330", "10DE", "16C2").orElse(null),
                "past a comment and an empty line, ids in either case");
        assertTrue(ids.subsystem("10de", "2330", "1028", "aaaa").isEmpty(), "the next device's subsystem is not this one's");
        assertEquals("not NVIDIA's", ids.device("1002", "2331").orElseThrow());
        assertEquals("GH100 [H100 PCIe]", ids.device("10de", "2331").orElseThrow());
        assertTrue(ids.device("1002", "2330").isEmpty(), "a device of another vendor is not found under this one");
        assertTrue(ids.device("10de", "16c1").isEmpty(), "a subsystem id is not a device");
    }
    @Test
    void devicesAreFoundByTheStartOfTheirNameIncludingSharedEntries() {
        PciIds ids = PciIds.parse("""
                #\tVersion: 2030.01.01
                10de  NVIDIA Corporation
                \t20b0  GA100 [A100 SXM4 40GB]
                \t20b2  GA100 [A100 SXM4 80GB]
                \t26b1  AD102GL [L6000 / RTX 6000 Ada Generation]
                \t28b0  AD107GL [RTX 2000 / 2000E Ada Generation]
                \t28b8  AD107GLM [RTX 2000 Ada Generation Laptop GPU]
                1002  Advanced Micro Devices, Inc. [AMD/ATI]
                \t20b0  not NVIDIA's
                """);
        assertEquals(java.util.Map.of("20b0", "A100 SXM4 40GB", "20b2", "A100 SXM4 80GB"), ids.devicesNamedFrom("10de", "A100-SXM"),
                "nvidia-smi's hyphens are pci.ids' spaces");
        assertEquals(java.util.Map.of("28b0", "RTX 2000 Ada Generation", "28b8", "RTX 2000 Ada Generation Laptop GPU"),
                ids.devicesNamedFrom("10de", "RTX 2000 Ada Gene"));
        assertEquals(java.util.Map.of("26b1", "RTX 6000 Ada Generation"), ids.devicesNamedFrom("10de", "rtx 6000 ada"));
        assertTrue(ids.devicesNamedFrom("10de", "GeForce").isEmpty());
        assertEquals(java.util.List.of("RTX 2000 Ada Generation", "RTX 2000E Ada Generation"),
                PciIds.alternatives("RTX 2000 / 2000E Ada Generation"));
    }
}
