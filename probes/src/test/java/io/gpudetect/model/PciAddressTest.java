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

    /**
     * The form the agent writes ({@code 0000:17:00.0}) is read by hand, without the pattern (issue 37): on text of that
     * shape, with every kind of character in every place, it reads what the pattern reads, and refuses what it refuses.
     */
    @org.junit.jupiter.api.Test
    void readsTheWrittenFormAsThePatternDoes() {
        java.util.regex.Pattern form = java.util.regex.Pattern.compile("(?:([0-9a-fA-F]{1,8})[:.])?"
                + "([0-9a-fA-F]{1,2}|[fF]{6}[89a-fA-F][0-9a-fA-F]):([0-9a-fA-F]{1,2})[.:]([0-7])");
        String chars = "0123456789abcdefABCDEFgG:. -\u0663\uff11\uff41";
        java.util.Random random = new java.util.Random(37);
        int read = 0;
        for (int n = 0; n < 50_000; n++) {
            char[] t = "0000:00:00.0".toCharArray();
            for (int i = 0; i < t.length; i++) {
                // Mostly the right kind of character in each place, so that most texts are addresses and the rest
                // differ from one in one place or two.
                if (random.nextInt(8) == 0) {
                    t[i] = chars.charAt(random.nextInt(chars.length()));
                } else if (t[i] == '0') {
                    // A device is at most 1f: its first digit mostly 0 or 1.
                    String digits = i == 11 ? "01234567" : i == 8 ? "01" : "0123456789abcdefABCDEF";
                    t[i] = digits.charAt(random.nextInt(digits.length()));
                }
            }
            String text = new String(t);
            java.util.regex.Matcher m = form.matcher(text.trim());
            String expected = null;
            if (m.matches()) {
                try {
                    expected = new PciAddress(m.group(1) == null ? 0 : (int) Long.parseLong(m.group(1), 16),
                            (int) (Long.parseLong(m.group(2), 16) & 0xff), Integer.parseInt(m.group(3), 16),
                            Integer.parseInt(m.group(4))).toString();
                } catch (IllegalArgumentException e) {
                    expected = null;
                }
            }
            assertEquals(expected, PciAddress.parse(text).map(PciAddress::toString).orElse(null), text);
            read += expected == null ? 0 : 1;
        }
        assertTrue(read > 10_000 && read < 45_000, "both addresses and others were tried: " + read);
    }

    @org.junit.jupiter.api.Test
    void sortsByDomainThenBus() {
        PciAddress a = PciAddress.of("0000:81:00.0");
        PciAddress b = PciAddress.of("0001:01:00.0");
        assertTrue(a.compareTo(b) < 0);
    }
}
