package io.gpudetect.probe.nvidia;

import java.util.Arrays;
import java.util.List;

/**
 * The fields of one GPU that both forms of {@code nvidia-smi -q} print, each under the names the text and the XML
 * give it. A name is a path of entries joined by {@code /}; where a field moved between drivers, its names are
 * listed newest first, split by {@code |}.
 */
enum SmiField {
    PRODUCT_NAME("Product Name", "product_name"),
    ARCHITECTURE("Product Architecture", "product_architecture"),
    SERIAL("Serial Number", "serial"),
    UUID("GPU UUID", "uuid"),
    BOARD_PART_NUMBER("Board Part Number", "board_part_number"),
    PCI_DEVICE_ID("PCI/Device Id", "pci/pci_device_id"),
    PCI_SUBSYSTEM_ID("PCI/Sub System Id", "pci/pci_sub_system_id"),
    MEMORY_TOTAL("FB Memory Usage/Total", "fb_memory_usage/total"),
    /** R525+ and schema v12+ first; driver 610's text nests the cap under a ceiling beside a "GPU Base Power". */
    POWER_LIMIT("GPU Power Readings/Current Power Limit | Power Readings/Power Limit"
            + " | GPU Power Readings/GPU Ceiling Power Limit/Current Power Limit",
            "gpu_power_readings/current_power_limit | power_readings/power_limit"),
    /** The section holding the power cap's range and default: the first of these present. */
    POWER_READINGS("GPU Power Readings | Power Readings", "gpu_power_readings | power_readings"),
    MIN_POWER_LIMIT("Min Power Limit", "min_power_limit"),
    MAX_POWER_LIMIT("Max Power Limit", "max_power_limit"),
    DEFAULT_POWER_LIMIT("Default Power Limit | GPU Ceiling Power Limit/Default Power Limit", "default_power_limit"),
    VBIOS_VERSION("VBIOS Version", "vbios_version"),
    LINK_GENERATION("PCI/GPU Link Info/PCIe Generation/Current", "pci/pci_gpu_link_info/pcie_gen/current_link_gen"),
    MAX_LINK_GENERATION("PCI/GPU Link Info/PCIe Generation/Max", "pci/pci_gpu_link_info/pcie_gen/max_link_gen"),
    LINK_WIDTH("PCI/GPU Link Info/Link Width/Current", "pci/pci_gpu_link_info/link_widths/current_link_width"),
    MAX_LINK_WIDTH("PCI/GPU Link Info/Link Width/Max", "pci/pci_gpu_link_info/link_widths/max_link_width"),
    MIG_CURRENT("MIG Mode/Current", "mig_mode/current_mig"),
    MIG_PENDING("MIG Mode/Pending", "mig_mode/pending_mig"),
    MIG_DEVICES("MIG Devices", "mig_devices"),
    MIG_DEVICE("MIG Device", "mig_device"),
    GPU_INSTANCE_ID("GPU Instance ID", "gpu_instance_id"),
    COMPUTE_INSTANCE_ID("Compute Instance ID", "compute_instance_id"),
    MULTIPROCESSORS("Device Attributes/Shared/Multiprocessor count", "device_attributes/shared/multiprocessor_count"),
    MIG_UUID("UUID", "uuid"),
    ECC_AGGREGATE("ECC Errors/Aggregate", "ecc_errors/aggregate"),
    /** Each counter a driver has had (old, R525+, R580+); a GPU's uncorrected errors are their sum. */
    UNCORRECTED_ECC("Double Bit/Total | SRAM Uncorrectable | DRAM Uncorrectable | SRAM Uncorrectable Parity"
            + " | SRAM Uncorrectable SEC-DED",
            "double_bit/total | sram_uncorrectable | dram_uncorrectable | sram_uncorrectable_parity"
            + " | sram_uncorrectable_secded"),
    RETIREMENT_PENDING("Retired Pages/Pending Page Blacklist | Retired Pages/Pending", "retired_pages/pending_retirement"),
    REMAPPING_PENDING("Remapped Rows/Pending", "remapped_rows/remapping_pending");

    private final List<String[]> text;
    private final List<String[]> xml;

    SmiField(String text, String xml) {
        this.text = paths(text);
        this.xml = paths(xml);
    }

    /** The paths this field has had in one form, newest first. */
    List<String[]> paths(SmiGpuMapping.Form form) {
        return form == SmiGpuMapping.Form.TEXT ? text : xml;
    }

    /** The one name of a field that has a single name of one step in each form. */
    String entryName(SmiGpuMapping.Form form) {
        return paths(form).get(0)[0];
    }

    private static List<String[]> paths(String names) {
        return Arrays.stream(names.split("\\|")).map(p -> Arrays.stream(p.split("/")).map(String::strip)
                .toArray(String[]::new)).toList();
    }
}
