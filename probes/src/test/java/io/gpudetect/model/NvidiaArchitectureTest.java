package io.gpudetect.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Expected values from CUDA's compute capability table (CUDA C Programming Guide), nvml.h's
 * {@code nvmlDeviceArchitecture_t} and the chip codes of pci.ids.
 */
class NvidiaArchitectureTest {

    @Test
    void computeCapabilities() {
        assertEquals(Optional.of(NvidiaArchitecture.KEPLER), NvidiaArchitecture.ofComputeCapability("3.7"));
        assertEquals(Optional.of(NvidiaArchitecture.VOLTA), NvidiaArchitecture.ofComputeCapability("7.2"));
        assertEquals(Optional.of(NvidiaArchitecture.TURING), NvidiaArchitecture.ofComputeCapability("7.5"));
        assertEquals(Optional.of(NvidiaArchitecture.AMPERE), NvidiaArchitecture.ofComputeCapability("8.7"));
        assertEquals(Optional.of(NvidiaArchitecture.ADA_LOVELACE), NvidiaArchitecture.ofComputeCapability("8.9"));
        assertEquals(Optional.of(NvidiaArchitecture.HOPPER), NvidiaArchitecture.ofComputeCapability("9.0"));
        assertEquals(Optional.of(NvidiaArchitecture.BLACKWELL), NvidiaArchitecture.ofComputeCapability("10.0"));
        assertEquals(Optional.of(NvidiaArchitecture.BLACKWELL), NvidiaArchitecture.ofComputeCapability("11.0"));
        assertEquals(Optional.of(NvidiaArchitecture.BLACKWELL), NvidiaArchitecture.ofComputeCapability("12.1"));
        assertEquals(Optional.of(NvidiaArchitecture.RUBIN), NvidiaArchitecture.ofComputeCapability(13, 0));
        assertTrue(NvidiaArchitecture.ofComputeCapability("4.0").isEmpty(), "there was no 4.x");
        assertTrue(NvidiaArchitecture.ofComputeCapability("x.y").isEmpty());
    }

    @Test
    void nvmlValuesAndChipCodes() {
        assertEquals(Optional.of(NvidiaArchitecture.KEPLER), NvidiaArchitecture.ofNvml(2));
        assertEquals(Optional.of(NvidiaArchitecture.HOPPER), NvidiaArchitecture.ofNvml(9));
        assertEquals(Optional.of(NvidiaArchitecture.BLACKWELL), NvidiaArchitecture.ofNvml(10));
        assertEquals("Orin", NvidiaArchitecture.ofNvml(11).orElseThrow().printed());
        assertTrue(NvidiaArchitecture.ofNvml(0).isEmpty(), "0 is no value of nvml.h's enum");
        assertTrue(NvidiaArchitecture.ofNvml(0xffffffffL).isEmpty(), "NVML_DEVICE_ARCH_UNKNOWN");
        assertEquals("Ada Lovelace", NvidiaArchitecture.ofChipPrefix("AD").orElseThrow().printed());
        assertEquals("ada-lovelace", NvidiaArchitecture.ofChipPrefix("AD").orElseThrow().gfdFamily());
        assertTrue(NvidiaArchitecture.ofChipPrefix("XX").isEmpty());
    }
}
