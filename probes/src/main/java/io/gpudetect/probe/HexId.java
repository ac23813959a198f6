package io.gpudetect.probe;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PCI ids as the model keeps them (4 lower-case hex digits; 2 for a revision), from the spellings tools
 * print: {@code 0x73df}, {@code 0x834}, {@code 73DF}, {@code 29663(0x73df)} (rocminfo), plain decimals
 * in sysfs {@code kfd} properties.
 */
public final class HexId {

    private static final Pattern HEX = Pattern.compile("(?i)^(?:0x)?([0-9a-f]{1,8})$");
    private static final Pattern PAREN_HEX = Pattern.compile("(?i)\\(0x([0-9a-f]{1,8})\\)");

    private HexId() {
    }

    /** A 16-bit id as 4 hex digits; null when the text is not hex or does not fit 16 bits. */
    public static String id16(String text) {
        return pad(text, 4, 0xffff);
    }

    /** An 8-bit revision as 2 hex digits; null when the text is not hex or does not fit 8 bits. */
    public static String revision(String text) {
        return pad(text, 2, 0xff);
    }

    /** A decimal number (sysfs kfd properties print ids in decimal) as 4 hex digits. */
    public static String id16FromDecimal(String text) {
        Long v = parseLong(text);
        return v == null || v < 0 || v > 0xffff ? null : String.format("%04x", v);
    }

    /** The hex number in {@code 29663(0x73df)}, rocminfo's way of printing ids. */
    public static String id16FromParenthesised(String text) {
        if (text == null) {
            return null;
        }
        Matcher m = PAREN_HEX.matcher(text);
        return m.find() ? id16(m.group(1)) : null;
    }

    private static String pad(String text, int digits, long max) {
        if (text == null) {
            return null;
        }
        Matcher m = HEX.matcher(text.strip());
        if (!m.matches()) {
            return null;
        }
        long v = Long.parseLong(m.group(1), 16);
        if (v > max) {
            return null;
        }
        return String.format("%0" + digits + "x", v);
    }

    /** A decimal integer, or null. */
    public static Long parseLong(String text) {
        if (text == null) {
            return null;
        }
        try {
            return Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** An integer at the start of {@code text} ({@code 40}, {@code 128(0x80)}), or null. */
    public static Integer leadingInt(String text) {
        if (text == null) {
            return null;
        }
        Matcher m = Pattern.compile("^\\s*(\\d{1,9})").matcher(text);
        return m.find() ? Integer.valueOf(m.group(1)) : null;
    }
}
