package io.gpudetect.probe.nvidia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PowerLimits;
import io.gpudetect.probe.Fixtures;
import io.gpudetect.probe.ParsedOutput;
import org.junit.jupiter.api.Test;

/**
 * The power cap in force, the range it may be set in and its default, and the VBIOS version, as nvidia-smi
 * prints them in its XML ({@code power_readings} before driver 535, {@code gpu_power_readings} since), its
 * {@code -q} text and its CSV query. Expected values were read by hand from the recordings.
 */
class PowerLimitNvidiaSmiTest {

    @Test
    void theOldXmlPowerReadingsOfAnA10g() {
        ParsedOutput out = NvidiaSmiXmlParser.parse(Fixtures.host("a10g_515.105.01_v11", "nvidia-smi.xml"), "nvidia-smi.xml");

        Gpu g = out.gpus().get(0);
        assertEquals(300.0, g.powerLimitWatts());
        assertEquals(new PowerLimits(100.0, 300.0, 300.0), g.powerLimits());
        assertEquals("94.02.75.00.01", g.vbiosVersion());
    }

    @Test
    void theNewXmlGpuPowerReadingsNotTheModulesNotApplicableOnes() {
        // v13 prints gpu_power_readings (125 to 200 W) and then module_power_readings, all N/A on a GeForce.
        ParsedOutput out = NvidiaSmiXmlParser.parse(Fixtures.host("2x-geforce-rtx-2070_590.44.01_v13", "nvidia-smi.xml"),
                "nvidia-smi.xml");

        for (Gpu g : out.gpus()) {
            assertEquals(125.0, g.powerLimits().minWatts());
            assertEquals(200.0, g.powerLimits().maxWatts());
        }
        assertTrue(Fixtures.lines(out.diagnostics(), Diagnostic.Severity.WARNING).isEmpty(), out.diagnostics().toString());
    }

    @Test
    void aBoardWhoseCapCannotBeChangedHasMinimumEqualToMaximum() {
        Gpu g = NvidiaSmiXmlParser.parse(Fixtures.host("quadro-p2000_525.125.06_v12", "nvidia-smi.xml"), "x").gpus().get(0);
        assertEquals(75.0, g.powerLimits().minWatts());
        assertEquals(75.0, g.powerLimits().maxWatts());
    }

    @Test
    void theQueryTextOfAnH100Host() {
        ParsedOutput out = NvidiaSmiQueryTextParser.parse(
                Fixtures.host("8x-h100-80gb-hbm3_565.57.01_table-and-q", "nvidia-smi-q.txt"), "nvidia-smi-q.txt");

        assertEquals(8, out.gpus().size());
        for (Gpu g : out.gpus()) {
            assertEquals(700.0, g.powerLimitWatts());
            assertEquals(new PowerLimits(200.0, 700.0, 700.0), g.powerLimits());
            assertEquals("96.00.74.00.01", g.vbiosVersion());
        }
    }

    @Test
    void driver610NestsTheCapAndDefaultUnderGpuCeilingPowerLimit() {
        Gpu g = NvidiaSmiQueryTextParser.parse(
                Fixtures.host("geforce-rtx-2080-super_610.57.04_text-formats", "nvidia-smi-q.txt"), "q").gpus().get(0);

        assertEquals(250.0, g.powerLimitWatts());
        assertEquals(new PowerLimits(105.0, 350.0, 250.0), g.powerLimits());
    }

    @Test
    void theCsvQueryWithEveryField() {
        ParsedOutput out = NvidiaSmiCsvParser.parse(
                Fixtures.host("h100-80gb-hbm3_590.48.01_text-formats", "nvidia-smi-query.csv"), "nvidia-smi-query.csv");

        Gpu g = out.gpus().get(0);
        assertEquals(700.0, g.powerLimitWatts());
        assertEquals(new PowerLimits(200.0, 700.0, 700.0), g.powerLimits());
        assertEquals("96.00.A5.00.01", g.vbiosVersion());
    }

    @Test
    void notApplicableEverywhereIsNoRangeAndNoWarning() {
        String xml = """
                <?xml version="1.0" ?>
                <nvidia_smi_log><driver_version>550.54.15</driver_version><attached_gpus>1</attached_gpus>
                <gpu id="00000000:01:00.0"><product_name>GRID P4-1Q</product_name>
                <power_readings><power_limit>N/A</power_limit><default_power_limit>N/A</default_power_limit>
                <min_power_limit>N/A</min_power_limit><max_power_limit>N/A</max_power_limit></power_readings>
                <vbios_version>N/A</vbios_version></gpu></nvidia_smi_log>
                """;
        ParsedOutput out = NvidiaSmiXmlParser.parse(xml, "nvidia-smi.xml");

        assertNull(out.gpus().get(0).powerLimits());
        assertNull(out.gpus().get(0).vbiosVersion());
        assertTrue(Fixtures.lines(out.diagnostics(), Diagnostic.Severity.WARNING).isEmpty(), out.diagnostics().toString());
    }

    @Test
    void aRangeThatIsNoPowerIsAWarningWithItsLine() {
        String xml = "<?xml version=\"1.0\" ?>\n<nvidia_smi_log><driver_version>550.54.15</driver_version>\n"
                + "<gpu id=\"00000000:01:00.0\"><product_name>NVIDIA A10</product_name>\n<power_readings>\n"
                + "<min_power_limit>lots</min_power_limit>\n<max_power_limit>150.00 W</max_power_limit>\n"
                + "</power_readings></gpu></nvidia_smi_log>\n";
        ParsedOutput out = NvidiaSmiXmlParser.parse(xml, "nvidia-smi.xml");

        assertEquals(new PowerLimits(null, 150.0, null), out.gpus().get(0).powerLimits());
        Diagnostic d = out.diagnostics().stream().filter(x -> x.severity() == Diagnostic.Severity.WARNING).findFirst().orElseThrow();
        assertEquals(5, d.line());
        assertTrue(d.message().contains("min_power_limit"), d.message());
    }
}
