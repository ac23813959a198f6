package io.gpudetect.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProductListTest {

    @Test
    void shortListsAreWrittenOut() {
        ProductList navi = ProductList.parse("Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]");
        assertEquals("Navi 21", navi.chip());
        assertEquals(List.of("Radeon RX 6800", "Radeon RX 6800 XT", "Radeon RX 6900 XT"), navi.products());
        assertEquals(List.of("GeForce RTX 4060 Max-Q", "GeForce RTX 4060 Mobile"),
                ProductList.parse("AD107M [GeForce RTX 4060 Max-Q / Mobile]").products());
        assertEquals(List.of("RTX 2000 Ada Generation", "RTX 2000E Ada Generation"),
                ProductList.parse("AD107GL [RTX 2000 / 2000E Ada Generation]").products());
        assertEquals(List.of("Instinct MI250X", "Instinct MI250"), ProductList.parse("Aldebaran/MI200 [Instinct MI250X/MI250]").products());
        assertEquals(List.of("Radeon Pro VII", "Radeon Instinct MI50 32GB"),
                ProductList.parse("Vega 20 [Radeon Pro VII/Radeon Instinct MI50 32GB]").products());
        assertEquals(List.of("AMD Instinct MI60", "AMD Instinct MI50"), ProductList.parse("AMD Instinct MI60 / MI50").products());
    }

    @Test
    void aPlainNameIsOneProductAndNoList() {
        ProductList plain = ProductList.parse("NVIDIA A100-SXM4-80GB");
        assertNull(plain.chip());
        assertFalse(plain.isList());
        assertTrue(ProductList.parse("Aldebaran/MI200 [Instinct MI250X]").isList(), "a chip and its product");
    }

    @Test
    void driverDetailsAreCutAndTheirGfxTargetKept() {
        assertEquals("AMD Radeon Graphics",
                ModelSlug.withoutDriverDetails("AMD Radeon Graphics (radeonsi, gfx1151, LLVM 19.1.7, DRM 3.63, 6.14.0-1)"));
        assertEquals("gfx1151", ModelSlug.gfxTargetInDriverDetails("AMD Radeon Graphics (radeonsi, gfx1151, LLVM 19.1.7, DRM 3.63, ...)"));
        assertEquals("AMD Radeon RX 5500 XT", ModelSlug.withoutDriverDetails("AMD Radeon RX 5500 XT (navi14, LLVM 15.0.7, DRM 3.52, 6.1.0"));
        assertEquals("Intel(R) Arc(TM) A770 Graphics", ModelSlug.withoutDriverDetails("Intel(R) Arc(TM) A770 Graphics"),
                "trademarks are not details");
        assertEquals("NVIDIA GeForce RTX 4060 Ti (16GB)", ModelSlug.withoutDriverDetails("NVIDIA GeForce RTX 4060 Ti (16GB)"));
    }
}
