package io.gpudetect.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * OSHI's host facts on this machine's real {@code /proc}, checked against what {@code /proc} itself says:
 * plausible values, not exact ones (a container may see the host's CPUs and memory).
 */
class HostFactsReaderTest {

    @org.junit.jupiter.api.Test
    void factsAgreeWithProc() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/meminfo")), "needs Linux /proc");
        GpuCapacitySpec.HostFacts facts = HostFactsReader.read();

        assertNotNull(facts.cpuModel());
        assertFalse(facts.cpuModel().isBlank());
        assertEquals(facts.cpuModel().strip(), facts.cpuModel());

        List<String> cpuinfo = Files.readAllLines(Path.of("/proc/cpuinfo"));
        long processors = cpuinfo.stream().filter(l -> l.startsWith("processor")).count();
        assertTrue(facts.cpuCores() >= 1 && facts.cpuCores() <= facts.cpuThreads(), facts.toString());
        assertTrue(facts.cpuThreads() <= 4096, facts.toString());
        if (processors > 0) {
            assertEquals(processors, facts.cpuThreads().longValue(), "logical CPUs as /proc/cpuinfo lists them");
        }
        assertTrue(facts.cpuThreads() >= Runtime.getRuntime().availableProcessors(),
                "the JVM cannot see more CPUs than the host has: " + facts);

        long memTotalKiB = Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal:"))
                .map(l -> Long.parseLong(l.replaceAll("\\D", ""))).findFirst().orElseThrow();
        double ratio = facts.memoryBytes() / (memTotalKiB * 1024.0);
        assertTrue(ratio > 0.99 && ratio < 1.01, "memory " + facts.memoryBytes() + " vs MemTotal " + memTotalKiB + " KiB");
        assertTrue(facts.memoryBytes() > Runtime.getRuntime().maxMemory() / 4, "more memory than a quarter of the heap");

        assertNotNull(facts.os());
        assertTrue(facts.os().length() > 0);
        String release = Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip();
        assertNotNull(facts.kernel(), facts.toString());
        assertTrue(facts.kernel().contains(release) || release.contains(facts.kernel()),
                "kernel " + facts.kernel() + " vs osrelease " + release);
        System.out.println("HOSTFACTS " + facts);
    }
}
