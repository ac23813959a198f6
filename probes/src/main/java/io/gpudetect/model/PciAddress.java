package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A PCI function address, domain included: {@code 0000:3b:00.0}. Tools print it in several widths
 * ({@code 00000000:3B:00.0} from nvidia-smi, {@code 3b:00.0} from lspci without {@code -D}); all parse
 * to the same value so that the inventory can merge what different tools saw of one card.
 */
public record PciAddress(int domain, int bus, int device, int function) implements Comparable<PciAddress> {

    private static final Pattern FORM =
            Pattern.compile("(?:([0-9a-fA-F]{1,8})[:.])?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})[.:]([0-7])");

    public PciAddress {
        if (domain < 0 || bus < 0 || bus > 0xff || device < 0 || device > 0x1f || function < 0 || function > 7) {
            throw new IllegalArgumentException("PCI address out of range");
        }
    }

    /** Parses any common spelling; empty when the text holds no PCI address. */
    public static Optional<PciAddress> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        Matcher m = FORM.matcher(text.trim());
        if (!m.matches()) {
            return Optional.empty();
        }
        try {
            int domain = m.group(1) == null ? 0 : (int) Long.parseLong(m.group(1), 16);
            return Optional.of(new PciAddress(domain, Integer.parseInt(m.group(2), 16),
                    Integer.parseInt(m.group(3), 16), Integer.parseInt(m.group(4))));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    @JsonCreator
    public static PciAddress of(String text) {
        return parse(text).orElseThrow(() -> new IllegalArgumentException("not a PCI address: " + text));
    }

    @JsonValue
    @Override
    public String toString() {
        return String.format("%04x:%02x:%02x.%x", domain, bus, device, function);
    }

    @Override
    public int compareTo(PciAddress o) {
        return toString().compareTo(o.toString());
    }
}
