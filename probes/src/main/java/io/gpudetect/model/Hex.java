package io.gpudetect.model;

/**
 * Lower-case hex with leading zeros, as PCI ids and addresses are written. By hand rather than with
 * {@code String.format("%04x")}: the first format call in a process costs milliseconds (its pattern and
 * locale data), and a one-shot {@code gpu-detect} pays it at every start.
 */
public final class Hex {

    private Hex() {
    }

    /** {@code value} (not negative) in at least {@code digits} lower-case hex digits. */
    public static String padded(long value, int digits) {
        StringBuilder sb = new StringBuilder(Math.max(digits, 16));
        append(sb, value, digits);
        return sb.toString();
    }

    static void append(StringBuilder sb, long value, int digits) {
        String hex = Long.toHexString(value);
        for (int i = hex.length(); i < digits; i++) {
            sb.append('0');
        }
        sb.append(hex);
    }
}
