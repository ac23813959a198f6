package io.gpudetect.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PciAddressTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "00000000:3B:00.0, 0000:3b:00.0",   // nvidia-smi
            "0000:3b:00.0, 0000:3b:00.0",       // sysfs, lspci -D
            "3b:00.0, 0000:3b:00.0",            // lspci without -D
            "0001:c1:00.1, 0001:c1:00.1",       // a second PCI domain stays apart
            "10000:01:00.0, 10000:01:00.0",     // VMD domains are wider than 4 digits
            "0000:01:1f.7, 0000:01:1f.7"})
    void readsEverySpellingToTheSameAddress(String text, String expected) {
        assertEquals(expected, PciAddress.parse(text).orElseThrow().toString());
    }

    @org.junit.jupiter.api.Test
    void isWrittenAsTheFormatterWritesIt() {
        int[] domains = {0, 1, 0xc1, 0xffff, 0x10000, 0xfffff};
        for (int domain : domains) {
            for (int bus : new int[] {0, 0x3b, 0xff}) {
                for (int device : new int[] {0, 0x1f}) {
                    for (int function : new int[] {0, 7}) {
                        assertEquals(String.format("%04x:%02x:%02x.%x", domain, bus, device, function),
                                new PciAddress(domain, bus, device, function).toString());
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "N/A", "0000:3g:00.0", "0000:01:20.0", "0000:01:00.8", "01:00", "GPU-1234"})
    void rejectsWhatIsNotAnAddress(String text) {
        assertTrue(PciAddress.parse(text).isEmpty(), text);
    }

    @org.junit.jupiter.api.Test
    void sortsByDomainThenBus() {
        PciAddress a = PciAddress.of("0000:81:00.0");
        PciAddress b = PciAddress.of("0001:01:00.0");
        assertTrue(a.compareTo(b) < 0);
    }
}
