package io.gpudetect.probe.nvidia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.Partition;
import io.gpudetect.probe.ParsedOutput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Details of the XML form that the replayed recordings do not show one by one. */
class NvidiaSmiXmlParserTest {

    private static ParsedOutput parse(int schema, String gpuBody) {
        String xml = "<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v" + schema + ".dtd\">\n"
                + "<nvidia_smi_log>\n<driver_version>535.86.05</driver_version>\n<gpu id=\"00000000:01:00.0\">\n"
                + gpuBody + "\n</gpu>\n</nvidia_smi_log>\n";
        return NvidiaSmiXmlParser.parse(xml, "nvidia-smi.xml");
    }

    private static Gpu only(ParsedOutput out) {
        assertEquals(1, out.gpus().size(), out.diagnostics().toString());
        return out.gpus().get(0);
    }

    @ParameterizedTest(name = "v{0}: {1}")
    @CsvSource(delimiter = '|', value = {
            "10|<double_bit><device_memory>2</device_memory><total>3</total></double_bit>|3",
            "11|<sram_uncorrectable>1</sram_uncorrectable><dram_uncorrectable>4</dram_uncorrectable>|5",
            "12|<sram_uncorrectable>0</sram_uncorrectable><dram_uncorrectable>0</dram_uncorrectable>|0",
            "13|<sram_uncorrectable_parity>2</sram_uncorrectable_parity><sram_uncorrectable_secded>1</sram_uncorrectable_secded><dram_uncorrectable>1</dram_uncorrectable>|4"})
    void aggregateUncorrectedEccIsSummedUnderEachSchemasNames(int schema, String aggregate, long expected) {
        Gpu gpu = only(parse(schema, "<ecc_errors><volatile><dram_uncorrectable>99</dram_uncorrectable></volatile>"
                + "<aggregate>" + aggregate + "</aggregate></ecc_errors>"));

        assertEquals(expected, gpu.health().eccUncorrectedErrors());
        assertEquals(expected == 0 ? Health.Status.OK : Health.Status.DEGRADED, gpu.health().status());
    }

    @Test
    void eccNotSupportedIsNoCountAndNoProblem() {
        Gpu gpu = only(parse(12, "<ecc_errors><aggregate><sram_uncorrectable>N/A</sram_uncorrectable>"
                + "<dram_uncorrectable>N/A</dram_uncorrectable></aggregate></ecc_errors>"));

        assertNull(gpu.health().eccUncorrectedErrors());
        assertEquals(Health.Status.OK, gpu.health().status());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "0x268410DE, 0x40BF1458, 2684, 10de, 40bf, 1458",
            "0x20B010de, 0x134F10DE, 20b0, 10de, 134f, 10de",
            "268410DE, 0x00000000, 2684, 10de, ,"})
    void packedIdsSplitIntoDeviceAndVendor(String device, String subsystem, String dev, String ven, String subDev, String subVen) {
        Gpu gpu = only(parse(12, "<pci><pci_bus_id>00000000:01:00.0</pci_bus_id><pci_device_id>" + device
                + "</pci_device_id><pci_sub_system_id>" + subsystem + "</pci_sub_system_id></pci>"));

        assertEquals(dev, gpu.pciDeviceId());
        assertEquals(ven, gpu.pciVendorId());
        assertEquals(subDev, gpu.pciSubsystemDeviceId());
        assertEquals(subVen, gpu.pciSubsystemVendorId());
    }

    @Test
    void powerLimitIsReadUnderTheOldAndTheNewName() {
        assertEquals(250.0, only(parse(11, "<power_readings><power_limit>250.00 W</power_limit></power_readings>")).powerLimitWatts());
        assertEquals(450.0, only(parse(12, "<gpu_power_readings><current_power_limit>450.00 W</current_power_limit>"
                + "<default_power_limit>480.00 W</default_power_limit></gpu_power_readings>")).powerLimitWatts());
        // v12 keeps an empty legacy element beside the new one on some drivers: the new one wins.
        assertEquals(300.0, only(parse(12, "<power_readings><power_limit>N/A</power_limit></power_readings>"
                + "<gpu_power_readings><current_power_limit>300.00 W</current_power_limit></gpu_power_readings>")).powerLimitWatts());
    }

    @Test
    void migInstancesKeepTheirIdsMemoryProcessorsAndUuid() {
        Gpu gpu = only(parse(12, "<mig_mode><current_mig>Enabled</current_mig><pending_mig>Disabled</pending_mig></mig_mode>"
                + "<mig_devices>"
                + "<mig_device><index>0</index><gpu_instance_id>1</gpu_instance_id><compute_instance_id>0</compute_instance_id>"
                + "<device_attributes><shared><multiprocessor_count>14</multiprocessor_count></shared></device_attributes>"
                + "<fb_memory_usage><total>9856 MiB</total></fb_memory_usage>"
                + "<uuid>MIG-6f5b7ff7-4b1d-5a40-9c4b-29c3ac3f0d8a</uuid></mig_device>"
                + "<mig_device><index>1</index><gpu_instance_id>13</gpu_instance_id><compute_instance_id>0</compute_instance_id>"
                + "<fb_memory_usage><total>4864 MiB</total></fb_memory_usage></mig_device>"
                + "</mig_devices>"));

        assertEquals(Boolean.TRUE, gpu.partitioning().enabled());
        assertEquals(Boolean.FALSE, gpu.partitioning().pendingEnabled());
        assertEquals(2, gpu.partitioning().instances().size());
        Partition first = gpu.partitioning().instances().get(0);
        assertEquals(new Partition(null, 1, 0, 9856L, 14, "MIG-6f5b7ff7-4b1d-5a40-9c4b-29c3ac3f0d8a"), first);
        assertEquals(new Partition(null, 13, 0, 4864L, null, null), gpu.partitioning().instances().get(1));
    }

    @Test
    void migNotSupportedMeansNoPartitioning() {
        assertNull(only(parse(11, "<mig_mode><current_mig>N/A</current_mig><pending_mig>N/A</pending_mig></mig_mode>"
                + "<mig_devices>None</mig_devices>")).partitioning());
    }

    @Test
    void aGarbageValueIsAWarningWithItsLine() {
        ParsedOutput out = parse(12, "<fb_memory_usage>\n<total>lots</total>\n</fb_memory_usage>");

        Diagnostic d = out.diagnostics().get(0);
        assertEquals(Diagnostic.Severity.WARNING, d.severity());
        assertEquals(7, d.line());
        assertTrue(d.message().contains("'lots' is not a size"), d.message());
        assertNull(only(out).memoryMiB());
    }

    @Test
    void anEntityIsNeverExpanded() {
        String xml = "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/hostname\">]>"
                + "<nvidia_smi_log><driver_version>&e;</driver_version></nvidia_smi_log>";
        ParsedOutput out = NvidiaSmiXmlParser.parse(xml, "nvidia-smi.xml");

        assertTrue(out.gpus().isEmpty());
        assertEquals(Diagnostic.Severity.ERROR, out.diagnostics().get(0).severity());
    }
}
