package io.gpudetect.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ModelSlugTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "NVIDIA GeForce RTX 4090 | rtx4090",
            "GeForce RTX 2080 Ti | rtx2080ti",
            "NVIDIA GeForce RTX 2080 SUPER | rtx2080s",
            "NVIDIA A100-SXM4-40GB | a100",
            "NVIDIA H100 80GB HBM3 | h100",
            "NVIDIA H100 PCIe | h100",
            "Tesla T4 | t4",
            "Quadro P2000 | p2000",
            "NVIDIA RTX A6000 | rtxa6000",
            "NVIDIA RTX 4000 SFF Ada Generation | rtx4000sada",
            "NVIDIA GeForce RTX 3060 Laptop GPU | rtx3060m",
            "AMD Instinct MI300X | mi300x",
            "AMD Instinct MI100 | mi100",
            "Radeon Instinct MI50 32GB | mi50",
            "AMD INSTINCT MI250 (MCM) OAM AC MBA | mi250",
            "AMD Instinct MI300X VF | mi300x",
            "AMD Instinct MI308X OAM | mi308x",
            "AMD Instinct MI300A | mi300a",
            "AMD Radeon RX 6700 XT | rx6700xt",
            "AMD Radeon VII | radeonvii",
            "Intel(R) Arc(TM) A770 Graphics | arca770",
            "Intel(R) Data Center GPU Max 1550 | datacentermax1550"})
    void followsAkashNamingRules(String name, String slug) {
        assertEquals(slug, ModelSlug.fromName(name));
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
            "APPLE | Apple M4 Pro | m4-pro",
            "ARM | Mali-LODX r0p0 | mali-g610",
            "ARM | Mali-G52 r1p0 | mali-g52",
            "ARM | Mali-TODX | mali-g710",
            "INTEL | Intel(R) HD Graphics | hd-graphics",
            "INTEL | Intel(R) UHD Graphics 770 | uhd770",
            "INTEL | Intel(R) Iris(R) Xe Graphics | iris-xe-graphics",
            "INTEL | Intel(R) Arc(TM) A770 Graphics | arca770",
            "QUALCOMM | QUALCOMM Adreno(TM) 740 | adreno-740",
            "IMAGINATION | PowerVR B-Series BXE-4-32 | powervr-b-series-bxe-4-32",
            "NVIDIA | NVIDIA GeForce RTX 4090 | rtx4090",
            "AMD | AMD Instinct MI300X | mi300x"})
    void readableSlugsOutsideAkashsLines(io.gpudetect.model.Vendor vendor, String name, String slug) {
        assertEquals(slug, ModelSlug.forProduct(vendor, name));
    }

    @org.junit.jupiter.api.Test
    void hasNoSlugForNoName() {
        assertEquals(null, ModelSlug.fromName("  "));
        assertEquals(null, ModelSlug.fromName("NVIDIA Corporation"));
    }
}
