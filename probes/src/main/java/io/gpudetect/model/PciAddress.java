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
            Pattern.compile("(?:([0-9a-fA-F]{1,8})[:.])?([0-9a-fA-F]{1,2}|[fF]{6}[89a-fA-F][0-9a-fA-F]):([0-9a-fA-F]{1,2})[.:]([0-7])");

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
        String t = text.trim();
        PciAddress written = asWritten(t);
        if (written != null) {
            return Optional.of(written);
        }
        Matcher m = FORM.matcher(t);
        if (!m.matches()) {
            return Optional.empty();
        }
        try {
            int domain = m.group(1) == null ? 0 : (int) Long.parseLong(m.group(1), 16);
            // AMD's OpenCL runtime prints a bus of 0x80 and above sign-extended from a signed char
            // ("0000:ffffffc3:00.0" for bus c3): the byte is the bus.
            int bus = (int) (Long.parseLong(m.group(2), 16) & 0xff);
            return Optional.of(new PciAddress(domain, bus, Integer.parseInt(m.group(3), 16), Integer.parseInt(m.group(4))));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * {@code t} in the form {@link #toString} writes ({@code 0000:17:00.0}, either case), read without the pattern;
     * null for any other text, and for an address out of range, both left to the pattern. A records file of 5,000
     * nodes holds some 40,000 addresses, each read two or three times (the record, its hand-out, its offer): the
     * pattern's matcher and groups were a thirtieth of reading it (issue 37).
     */
    private static PciAddress asWritten(String t) {
        if (t.length() != 12 || t.charAt(4) != ':' || t.charAt(7) != ':' || t.charAt(10) != '.') {
            return null;
        }
        int domain = hex(t, 0, 4);
        int bus = hex(t, 5, 7);
        int device = hex(t, 8, 10);
        int function = t.charAt(11) - '0';
        if (domain < 0 || bus < 0 || device < 0 || device > 0x1f || function < 0 || function > 7) {
            return null;
        }
        return new PciAddress(domain, bus, device, function);
    }

    /**
     * The hex number in {@code t[from, to)}; -1 when a character is no ASCII hex digit (as the pattern's
     * {@code [0-9a-fA-F]}: {@code Character.digit} would take other scripts' digits too).
     */
    private static int hex(String t, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            char c = t.charAt(i);
            int d;
            if (c >= '0' && c <= '9') {
                d = c - '0';
            } else if (c >= 'a' && c <= 'f') {
                d = c - 'a' + 10;
            } else if (c >= 'A' && c <= 'F') {
                d = c - 'A' + 10;
            } else {
                return -1;
            }
            n = n * 16 + d;
        }
        return n;
    }

    @JsonCreator
    public static PciAddress of(String text) {
        return parse(text).orElseThrow(() -> new IllegalArgumentException("not a PCI address: " + text));
    }

    @JsonValue
    @Override
    public String toString() {
        // As String.format("%04x:%02x:%02x.%x", ...) writes it, by hand: the agent's steady pass names every GPU's
        // address, and the formatter was a twelfth of that pass in the interpreter (docs/performance.md, "A steady
        // pass that changes nothing").
        StringBuilder b = new StringBuilder(12);
        hex(b, domain, 4).append(':');
        hex(b, bus, 2).append(':');
        hex(b, device, 2).append('.');
        return hex(b, function, 1).toString();
    }

    /** {@code value} in lower-case hex (unsigned), left-padded with zeros to at least {@code width} digits. */
    private static StringBuilder hex(StringBuilder b, int value, int width) {
        String digits = Integer.toHexString(value);
        for (int i = digits.length(); i < width; i++) {
            b.append('0');
        }
        return b.append(digits);
    }

    /** Numeric order: domain, bus, device, function (as the text sorts for domains of up to 4 digits). */
    @Override
    public int compareTo(PciAddress o) {
        int c = Integer.compareUnsigned(domain, o.domain);
        if (c == 0) {
            c = Integer.compare(bus, o.bus);
        }
        if (c == 0) {
            c = Integer.compare(device, o.device);
        }
        return c != 0 ? c : Integer.compare(function, o.function);
    }

    /** Bus order with cards that have no address last. */
    public static int compareNullsLast(PciAddress a, PciAddress b) {
        return a == null ? (b == null ? 0 : 1) : b == null ? -1 : a.compareTo(b);
    }

    // equals and hashCode written out: a record's generated ones are linked through method handles on first
    // use, at every start of a one-shot run, and addresses are the merge's map keys. Measured:
    // docs/performance.md, "Start-up and footprint tricks", row "PciAddress equals and hashCode".
    @Override
    public boolean equals(Object o) {
        return o instanceof PciAddress p
                && domain == p.domain && bus == p.bus && device == p.device && function == p.function;
    }

    @Override
    public int hashCode() {
        return ((domain * 31 + bus) * 31 + device) * 31 + function;
    }
}
