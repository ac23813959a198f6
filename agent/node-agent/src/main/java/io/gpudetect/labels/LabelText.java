package io.gpudetect.labels;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Turns tool text into label keys and values Kubernetes accepts: at most 63 characters matching
 * {@code [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?}. GPU Feature Discovery broke on product names with
 * {@code (} and on names over 63 characters; here every run of other characters becomes one separator, and
 * a name that is still too long keeps its first characters plus a hash of the whole name, so two long
 * names that differ only at the end still give two different values, the same ones on every pass.
 */
public final class LabelText {

    public static final int MAX_LENGTH = 63;
    private static final Pattern VALID = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?");
    private static final Pattern INVALID_RUN = Pattern.compile("[^-A-Za-z0-9_.]+");
    private static final Pattern EDGE = Pattern.compile("^[^A-Za-z0-9]+|[^A-Za-z0-9]+$");
    private static final int HASH_CHARS = 8;

    private LabelText() {
    }

    /** True when {@code s} may be a label value or the name part of a key (the empty string is a valid value). */
    public static boolean isValid(String s) {
        return s != null && s.length() <= MAX_LENGTH && VALID.matcher(s).matches();
    }

    /** A label value from free text, with {@code separator} for each run of other characters ({@code -} as GFD does). */
    public static String value(String raw, char separator) {
        if (raw == null) {
            return "unknown";
        }
        String cleaned = EDGE.matcher(INVALID_RUN.matcher(raw.strip()).replaceAll(String.valueOf(separator))).replaceAll("");
        if (cleaned.isEmpty()) {
            return "unknown";
        }
        return fit(cleaned, raw);
    }

    /** A label value with {@code -} as separator. */
    public static String value(String raw) {
        return value(raw, '-');
    }

    /** A lower-case word for a key segment ({@code ada-lovelace}, {@code rtx4090}). */
    public static String segment(String raw) {
        return value(raw == null ? null : raw.toLowerCase(Locale.ROOT));
    }

    /**
     * {@code prefix/name} with the name part made to fit; the prefix (a DNS subdomain we choose) is kept whole.
     */
    public static String key(String prefix, String name) {
        String fitted = name.length() <= MAX_LENGTH ? name : fit(name, name);
        return prefix + "/" + fitted;
    }

    /** Cuts {@code cleaned} to 63 characters, ending in {@code -} and 8 hex digits of the SHA-256 of {@code original}. */
    private static String fit(String cleaned, String original) {
        if (cleaned.length() <= MAX_LENGTH) {
            return cleaned;
        }
        String hash = sha256(original).substring(0, HASH_CHARS);
        String head = EDGE.matcher(cleaned.substring(0, MAX_LENGTH - HASH_CHARS - 1)).replaceAll("");
        return head + "-" + hash;
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
