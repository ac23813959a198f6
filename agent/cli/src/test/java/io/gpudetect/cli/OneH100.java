package io.gpudetect.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The smallest bundle detection names a GPU from: {@code nvidia-smi -q -x} of one H100 80GB HBM3 (driver 550.54.15),
 * as {@code nvidia-smi.xml}. Shared by the command-line tests that need "a bundle with one GPU" and nothing more.
 */
final class OneH100 {

    static final String NVIDIA_SMI_XML = """
            <?xml version="1.0" ?>
            <!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
            <nvidia_smi_log><driver_version>550.54.15</driver_version><attached_gpus>1</attached_gpus>
            <gpu id="00000000:01:00.0"><product_name>NVIDIA H100 80GB HBM3</product_name>
            <pci><pci_device_id>0x233010DE</pci_device_id></pci>
            <fb_memory_usage><total>81559 MiB</total></fb_memory_usage></gpu></nvidia_smi_log>
            """;

    private OneH100() {
    }

    /** Writes {@code dir}/nvidia-smi.xml, making {@code dir} first if needed; returns {@code dir}. */
    static Path bundle(Path dir) throws IOException {
        Files.writeString(Files.createDirectories(dir).resolve("nvidia-smi.xml"), NVIDIA_SMI_XML);
        return dir;
    }
}
