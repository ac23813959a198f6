package io.gpudetect.record;

import oshi.SystemInfo;
import oshi.hardware.CentralProcessor;
import oshi.hardware.HardwareAbstractionLayer;
import oshi.software.os.OperatingSystem;

/**
 * Reads the host facts for the capacity record with OSHI. Read once at start: CPU, memory and kernel do
 * not change under a running agent, and OSHI's first call costs tens of milliseconds.
 */
public final class HostFactsReader {

    private HostFactsReader() {
    }

    /** This host's facts; fields OSHI cannot read are null, and nothing here throws. */
    public static GpuCapacitySpec.HostFacts read() {
        try {
            SystemInfo si = new SystemInfo();
            HardwareAbstractionLayer hw = si.getHardware();
            CentralProcessor cpu = hw.getProcessor();
            OperatingSystem os = si.getOperatingSystem();
            String osName = os.getFamily() + " " + os.getVersionInfo().getVersion();
            return new GpuCapacitySpec.HostFacts(cpu.getProcessorIdentifier().getName().strip(),
                    cpu.getPhysicalProcessorCount(), cpu.getLogicalProcessorCount(), hw.getMemory().getTotal(),
                    osName.strip(), os.getVersionInfo().getBuildNumber());
        } catch (RuntimeException | LinkageError e) {
            return new GpuCapacitySpec.HostFacts(null, null, null, null, null, null);
        }
    }
}
