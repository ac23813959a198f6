package io.gpudetect.labels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class LabelTextTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "NVIDIA GeForce RTX 4090|NVIDIA-GeForce-RTX-4090",
            "Tesla T4|Tesla-T4",
            "NVIDIA A100-SXM4-40GB|NVIDIA-A100-SXM4-40GB",
            "NVIDIA RTX A6000 (48GB)|NVIDIA-RTX-A6000-48GB",
            "  (weird) name!  |weird-name",
            "AMD Instinct MI300X OAM|AMD-Instinct-MI300X-OAM",
            "535.86.05|535.86.05",
            "((()))|unknown"})
    void valuesAreSanitisedLikeGfdButSurviveParentheses(String raw, String expected) {
        assertEquals(expected, LabelText.value(raw));
        assertTrue(LabelText.isValid(LabelText.value(raw)));
    }

    @Test
    void longNamesKeepTheirStartAndAHashOfTheWholeName() {
        String a = "NVIDIA GeForce RTX 4090 (Founders Edition, 24GB GDDR6X) Engineering Sample Rev. B";
        String b = "NVIDIA GeForce RTX 4090 (Founders Edition, 24GB GDDR6X) Engineering Sample Rev. C";
        String va = LabelText.value(a);
        String vb = LabelText.value(b);
        assertEquals(63, va.length(), va);
        assertTrue(LabelText.isValid(va), va);
        assertTrue(va.startsWith("NVIDIA-GeForce-RTX-4090-Founders-Edition-24GB-GDDR6X"), va);
        assertNotEquals(va, vb, "names that differ only past character 63 still differ");
        assertEquals(va, LabelText.value(a), "the same name always gives the same value");
    }

    @Test
    void keysKeepThePrefixAndFitTheNamePart() {
        String key = LabelText.key("akash.network", "capabilities.gpu.vendor.nvidia.model.rtx4090.ram.24Gi.interface.pcie");
        String name = key.substring(key.indexOf('/') + 1);
        assertTrue(key.startsWith("akash.network/"));
        assertTrue(LabelText.isValid(name) && name.length() <= 63, name);
    }

    @Test
    void validityFollowsKubernetes() {
        assertTrue(LabelText.isValid(""));
        assertTrue(LabelText.isValid("a.b-c_d"));
        assertFalse(LabelText.isValid("-a"));
        assertFalse(LabelText.isValid("a("));
        assertFalse(LabelText.isValid("x".repeat(64)));
    }
}
