package io.gpudetect.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.Partitioning;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.ProbeResult;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MergerTest {

    private static ProbeResult result(String probe, Gpu... gpus) {
        return new ProbeResult(probe, ProbeResult.Outcome.OK, List.of(gpus), List.of());
    }

    private static Gpu.Builder seen(String probe, String address) {
        return Gpu.builder(probe).vendor(Vendor.NVIDIA).pciAddress(address == null ? null : PciAddress.of(address));
    }

    @Test
    void oneCardSeenByTwoProbesIsOneGpuWithEachFieldFromTheFirstProbeThatHadIt() {
        List<Gpu> merged = Merger.merge(List.of(
                result("nvml", seen("nvml", "0000:01:00.0").name("NVIDIA H100 80GB HBM3").memoryMiB(81559L).build()),
                result("sysfs-pci", seen("sysfs-pci", "0000:01:00.0").name("GH100").pciDeviceId("2330")
                        .kernelDriver("nvidia").build())), Set.of());

        assertEquals(1, merged.size());
        Gpu gpu = merged.get(0);
        assertEquals("NVIDIA H100 80GB HBM3", gpu.name());
        assertEquals("nvml", gpu.sources().get("name"));
        assertEquals("2330", gpu.pciDeviceId());
        assertEquals("sysfs-pci", gpu.sources().get("pciDeviceId"));
        assertEquals("nvidia", gpu.kernelDriver());
    }

    @Test
    void aToolThatPrintsOnlyThePartitionModeLeavesTheModeListsToSysfs() {
        Partitioning smi = new Partitioning("cpx", true, null, List.of(), "nps1", null, null);
        Partitioning sysfs = new Partitioning("cpx", true, null, List.of(), "nps1", List.of("spx", "cpx"), List.of("nps1", "nps4"));
        List<Gpu> merged = Merger.merge(List.of(
                result("amd-smi", seen("amd-smi", "0000:05:00.0").partitioning(smi).build()),
                result("sysfs-pci", seen("sysfs-pci", "0000:05:00.0").partitioning(sysfs).build())), Set.of());
        assertEquals(sysfs, merged.get(0).partitioning());
        assertEquals("amd-smi", merged.get(0).sources().get("partitioning"), "the mode is still the higher probe's");

        Partitioning spx = new Partitioning("spx", false, null, List.of(), "nps1", List.of("spx", "cpx"), List.of());
        List<Gpu> disagree = Merger.merge(List.of(
                result("amd-smi", seen("amd-smi", "0000:05:00.0").partitioning(smi).build()),
                result("sysfs-pci", seen("sysfs-pci", "0000:05:00.0").partitioning(spx).build())), Set.of());
        assertEquals(smi, disagree.get(0).partitioning(), "two modes: nothing is taken from the one that lost");
    }

    @Test
    void theDomainKeepsCardsApart() {
        List<Gpu> merged = Merger.merge(List.of(result("sysfs-pci",
                seen("sysfs-pci", "0000:01:00.0").build(), seen("sysfs-pci", "0001:01:00.0").build())), Set.of());
        assertEquals(2, merged.size());
    }

    @Test
    void anAddresslessObservationJoinsTheCardWithItsUuid() {
        List<Gpu> merged = Merger.merge(List.of(
                result("nvidia-smi-xml",
                        seen("nvidia-smi-xml", "0000:01:00.0").uuid("GPU-aaaa").build(),
                        seen("nvidia-smi-xml", "0000:02:00.0").uuid("GPU-bbbb").build()),
                result("nvidia-smi-L", seen("nvidia-smi-L", null).uuid("GPU-BBBB").serial("s2").build())), Set.of());
        assertEquals(2, merged.size());
        assertEquals("s2", merged.get(1).serial());
        assertEquals(PciAddress.of("0000:02:00.0"), merged.get(1).pciAddress());
    }

    @Test
    void addresslessCardsPairInBusOrderWhenTheCountsMatch() {
        List<Gpu> merged = Merger.merge(List.of(
                result("nvidia-smi", seen("nvidia-smi", "0000:81:00.0").build(), seen("nvidia-smi", "0000:01:00.0").build()),
                result("nvidia-smi-L", seen("nvidia-smi-L", null).uuid("GPU-first").build(),
                        seen("nvidia-smi-L", null).uuid("GPU-second").build())), Set.of());
        assertEquals(2, merged.size());
        Gpu at01 = merged.stream().filter(g -> g.pciAddress().bus() == 1).findFirst().orElseThrow();
        assertEquals("GPU-first", at01.uuid());
    }

    @Test
    void addresslessCardsStayApartWhenTheCountsDoNotMatch() {
        List<Gpu> merged = Merger.merge(List.of(
                result("nvidia-smi", seen("nvidia-smi", "0000:01:00.0").build()),
                result("nvidia-smi-L", seen("nvidia-smi-L", null).uuid("GPU-1").build(),
                        seen("nvidia-smi-L", null).uuid("GPU-2").build())), Set.of());
        assertEquals(3, merged.size(), "a card counted twice is visible; one folded into another is not");
    }

    @Test
    void addresslessCardsOfAnotherVendorDoNotPairWithNvidiaCards() {
        List<Gpu> merged = Merger.merge(List.of(
                result("nvidia-smi", seen("nvidia-smi", "0000:01:00.0").build()),
                result("clinfo", Gpu.builder("clinfo").vendor(Vendor.INTEL).name("Intel(R) UHD Graphics 630").build())),
                        Set.of());
        assertEquals(2, merged.size());
    }

    @Test
    void aToolThatPrintsNoDomainJoinsTheCardInTheOtherDomain() {
        ProbeResult rocminfo = result("rocminfo", Gpu.builder("rocminfo").vendor(Vendor.AMD)
                .pciAddress(PciAddress.of("0000:c1:00.0")).architecture("gfx942").build());
        ProbeResult sysfs = result("sysfs-pci", Gpu.builder("sysfs-pci").vendor(Vendor.AMD)
                .pciAddress(PciAddress.of("0001:c1:00.0")).pciDeviceId("74a1").build());

        List<Gpu> merged = Merger.merge(List.of(rocminfo, sysfs), java.util.Set.of("rocminfo"));
        assertEquals(1, merged.size());
        assertEquals(PciAddress.of("0001:c1:00.0"), merged.get(0).pciAddress());
        assertEquals("gfx942", merged.get(0).architecture());
        assertEquals("rocminfo", merged.get(0).sources().get("architecture"));

        assertEquals(2, Merger.merge(List.of(rocminfo, sysfs),
                Set.of()).size(), "a tool that prints domains keeps them apart");
    }

    @Test
    void aDomainlessAddressStaysWhereItIsWhenTheSlotIsAmbiguous() {
        ProbeResult rocminfo = result("rocminfo", Gpu.builder("rocminfo").vendor(Vendor.AMD)
                .pciAddress(PciAddress.of("0000:c1:00.0")).build());
        ProbeResult sysfs = result("sysfs-pci",
                Gpu.builder("sysfs-pci").vendor(Vendor.AMD).pciAddress(PciAddress.of("0001:c1:00.0")).build(),
                Gpu.builder("sysfs-pci").vendor(Vendor.AMD).pciAddress(PciAddress.of("0002:c1:00.0")).build());
        assertEquals(3, Merger.merge(List.of(rocminfo, sysfs), java.util.Set.of("rocminfo")).size());
    }
}
