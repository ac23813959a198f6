package io.gpudetect.probe.nvidia;

import io.gpudetect.tables.MemorySize;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reading the values nvidia-smi prints, in all its output forms: {@code N/A}, {@code [N/A]},
 * {@code [Not Supported]}, {@code [GPU requires reset]}, sizes with units, ids packed as
 * {@code 0x268410DE}. Shared by the XML, text and CSV parsers so that every form reads the same.
 */
public final class NvidiaValues {

    /** A megawatt: no card draws that; a bigger number is garbage. */
    public static final double MAX_PLAUSIBLE_WATTS = 1_000_000;

    public static final long MAX_PLAUSIBLE_MIB = MemorySize.MAX_PLAUSIBLE_MIB;

    private static final Pattern SIZE = Pattern.compile("(?i)^\\s*(\\d+(?:\\.\\d+)?)\\s*(mib|mb|gib|gb|kib|kb)?\\s*$");
    private static final Pattern WATTS = Pattern.compile("(?i)^\\s*(\\d+(?:\\.\\d+)?)\\s*w?\\s*$");
    private static final Pattern DRIVER_VERSION = Pattern.compile("^\\d+(\\.\\d+){1,3}$");
    private static final Pattern UUID = Pattern.compile(
            "(?i)^(GPU-|MIG-(GPU-)?)[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}(/\\d+/\\d+)?$");
    private static final Pattern PACKED_ID = Pattern.compile("(?i)^(?:0x)?([0-9a-f]{8})$");

    private NvidiaValues() {
    }

    /** True for the words nvidia-smi prints instead of a value. */
    public static boolean isPlaceholder(String v) {
        if (v == null) {
            return true;
        }
        String s = v.strip();
        if (s.isEmpty()) {
            return true;
        }
        String l = s.toLowerCase(Locale.ROOT);
        return l.equals("n/a") || l.equals("[n/a]") || l.startsWith("[not supported") || l.equals("not supported")
                || l.startsWith("[unknown") || l.equals("unknown error") || l.contains("requires reset")
                || l.equals("[redacted]") || l.startsWith("[insufficient permissions") || l.equals("none")
                || l.equals("unknown") || l.contains("gpu is lost");
    }

    /** True for values that mean the GPU itself is in trouble, not that a field is unsupported. */
    public static boolean signalsLostGpu(String v) {
        if (v == null) {
            return false;
        }
        String l = v.toLowerCase(Locale.ROOT);
        return l.contains("requires reset") || l.contains("unknown error") || l.contains("gpu is lost");
    }

    /** A value, or null for a placeholder. */
    public static String value(String v) {
        return isPlaceholder(v) ? null : v.strip();
    }

    /** MiB from {@code 24564 MiB}, {@code 24564}, {@code 24 GiB}; null for a placeholder; throws on garbage. */
    public static Long mib(String v) {
        if (isPlaceholder(v)) {
            return null;
        }
        Matcher m = SIZE.matcher(v);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + v.strip() + "' is not a size (expected a number of MiB, like '24564 MiB')");
        }
        double n = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "mib" : m.group(2).toLowerCase(Locale.ROOT);
        double mib = switch (unit) {
            case "gib", "gb" -> n * 1024;
            case "kib", "kb" -> n / 1024;
            default -> n;
        };
        // Math.round saturates at Long.MAX_VALUE: a garbage number would become 8 EiB of VRAM.
        if (!(mib <= MAX_PLAUSIBLE_MIB)) {
            throw new IllegalArgumentException("'" + v.strip() + "' is not a plausible GPU memory size (more than "
                    + MAX_PLAUSIBLE_MIB / (1024 * 1024) + " TiB)");
        }
        return Math.round(mib);
    }

    /** Watts from {@code 450.00 W}; null for a placeholder; throws on garbage. */
    public static Double watts(String v) {
        if (isPlaceholder(v)) {
            return null;
        }
        Matcher m = WATTS.matcher(v);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + v.strip() + "' is not a power (expected watts, like '450.00 W')");
        }
        double watts = Double.parseDouble(m.group(1));
        if (!(watts <= MAX_PLAUSIBLE_WATTS)) {
            // Also keeps Infinity, which JSON cannot hold, out of the inventory.
            throw new IllegalArgumentException("'" + v.strip() + "' is not a plausible power limit (more than "
                    + (long) MAX_PLAUSIBLE_WATTS + " W)");
        }
        return watts;
    }

    /**
     * A PCIe generation ({@code 5}) or lane count ({@code 16x}, {@code x16}, {@code 16}) as nvidia-smi prints them;
     * null for a placeholder; throws on anything else, a generation or width of 0 (no link) or over 32 included.
     */
    public static Integer pcieLink(String v) {
        if (isPlaceholder(v)) {
            return null;
        }
        String t = v.strip().toLowerCase(java.util.Locale.ROOT);
        if (t.endsWith("x")) {
            t = t.substring(0, t.length() - 1);
        } else if (t.startsWith("x")) {
            t = t.substring(1);
        }
        if (!t.matches("\\d{1,2}") || Integer.parseInt(t) < 1 || Integer.parseInt(t) > 32) {
            throw new IllegalArgumentException("'" + v.strip() + "' is not a PCIe generation or link width (1 to 32, like '5' or '16x')");
        }
        return Integer.parseInt(t);
    }

    /** A whole number, not negative, or null for a placeholder; throws on garbage. */
    public static Long count(String v) {
        if (isPlaceholder(v)) {
            return null;
        }
        long n;
        try {
            n = Long.parseLong(v.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + v.strip() + "' is not a whole number");
        }
        if (n < 0) {
            throw new IllegalArgumentException("'" + v.strip() + "' is negative (expected a count)");
        }
        return n;
    }

    /** A count that fits an int (ids, multiprocessors), or null for a placeholder; throws on garbage. */
    public static Integer smallCount(String v) {
        Long n = count(v);
        if (n != null && n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("'" + v.strip() + "' is too large (expected a small whole number)");
        }
        return n == null ? null : n.intValue();
    }

    /**
     * Splits a packed PCI id ({@code 268410DE}: device then vendor; {@code 40BF1458}: subsystem device then
     * subsystem vendor) into {@code [high, low]} 4-digit lower-case ids. Null for a placeholder or an id of
     * zeros (masked by the person who recorded it); throws on garbage.
     */
    public static String[] packedId(String v) {
        if (isPlaceholder(v)) {
            return null;
        }
        Matcher m = PACKED_ID.matcher(v.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + v.strip() + "' is not a packed PCI id (expected 8 hex digits, like 0x268410DE)");
        }
        String hex = m.group(1).toLowerCase(Locale.ROOT);
        String high = hex.substring(0, 4);
        String low = hex.substring(4);
        return new String[] {high.equals("0000") ? null : high, low.equals("0000") ? null : low};
    }

    /** {@code Enabled} / {@code Disabled} as a boolean, null for anything else. */
    public static Boolean enabled(String v) {
        if (v == null) {
            return null;
        }
        String s = v.strip().toLowerCase(Locale.ROOT);
        return s.equals("enabled") ? Boolean.TRUE : s.equals("disabled") ? Boolean.FALSE : null;
    }

    /** Serials and UUIDs masked with zeros by the person who recorded them carry no information. */
    public static String identifier(String v) {
        String s = value(v);
        if (s == null || s.replaceAll("[-0]", "").isEmpty() || s.equalsIgnoreCase("GPU-00000000-0000-0000-0000-000000000000")) {
            return null;
        }
        return s;
    }

    /** A driver version ({@code 535.86.05}, {@code 610.62}); null for a placeholder; throws on anything else. */
    public static String driverVersion(String v) {
        String s = value(v);
        if (s == null) {
            return null;
        }
        if (!DRIVER_VERSION.matcher(s).matches()) {
            throw new IllegalArgumentException("'" + s + "' is not a driver version (expected numbers and dots, like 535.86.05)");
        }
        return s;
    }

    /**
     * A GPU or MIG UUID ({@code GPU-27b94a00-ed54-5c24-b1fd-1054085de32a}, {@code MIG-GPU-.../1/0} before R470);
     * null for a placeholder or a masked one; throws on anything else.
     */
    public static String uuid(String v) {
        String s = identifier(v);
        if (s == null) {
            return null;
        }
        if (!UUID.matcher(s).matches()) {
            throw new IllegalArgumentException("'" + s + "' is not a UUID (expected GPU- or MIG- and 32 hex digits, like GPU-27b94a00-ed54-5c24-b1fd-1054085de32a)");
        }
        return s;
    }
}
