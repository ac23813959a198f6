package io.gpudetect.match;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How Akash's Go SDL parser reads the scalars {@code match} needs, from their text as written: the GPU
 * {@code units} ({@code gpuQuantity}), a GPU's {@code ram} ({@code memoryQuantity}), a placement's {@code count}
 * (a {@code uint32} decoded by yaml.v3) and the SDL {@code version} (blang/semver's {@code ParseTolerant}).
 * Each rule, with the Go file and commit it comes from, is in {@code docs/match.md}.
 */
final class GoScalars {

    /** What the Go parser refuses, in words for a person; the caller adds the file, path and line. */
    static final class Refused extends Exception {
        Refused(String why) {
            super(why, null, false, false);
        }
    }

    static final BigInteger UINT64_LIMIT = BigInteger.ONE.shiftLeft(64);
    private static final long GI = 1L << 30;
    private static final String[] MEMORY_SUFFIXES = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

    /** Go's {@code strconv.ParseFloat} decimal syntax (no spaces, no underscores without a base prefix). */
    private static final Pattern GO_DECIMAL = Pattern.compile("[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?");
    /** Its hexadecimal form, which needs a {@code p} exponent (underscores between digits are not read here). */
    private static final Pattern GO_HEX = Pattern.compile(
            "[+-]?0[xX](?:[0-9a-fA-F]+\\.?[0-9a-fA-F]*|\\.[0-9a-fA-F]+)[pP][+-]?\\d+");
    private static final Pattern GO_SPECIAL = Pattern.compile("[+-]?(?i:inf|infinity)|(?i:nan)");
    /** yaml.v3's {@code yamlStyleFloat} (resolve.go), tried on a plain scalar that is no integer. */
    private static final Pattern YAML_FLOAT = Pattern.compile("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
    private static final Pattern SEMVER_PATCH = Pattern.compile(
            "(0|[1-9]\\d*)(?:-([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?(?:\\+([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?");

    private GoScalars() {
    }

    /**
     * {@code units} of a GPU: {@code strconv.ParseUint(text, 10, 64)} on the text as written, quoted or not
     * (node {@code sdl/units.go}, {@code gpuQuantity}): digits only, no sign, no spaces.
     */
    static BigInteger gpuUnits(String text) throws Refused {
        if (!text.matches("[0-9]+")) {
            throw new Refused("'" + text + "' is not a whole number of 0 or more (the network's parser reads the "
                    + "digits 0-9 alone: no sign, point, exponent or spaces)");
        }
        BigInteger n = new BigInteger(text);
        if (n.compareTo(UINT64_LIMIT) >= 0) {
            throw new Refused("'" + text + "' is out of range for the network's parser (at most 2^64-1)");
        }
        return n;
    }

    /**
     * A GPU's {@code ram}, as node {@code sdl/units.go} reads a {@code memoryQuantity} and {@code sdl/gpu.go} writes
     * it into the attribute key: an optional binary suffix {@code Ki Mi Gi Ti Pi Ei} (case as written), a number
     * {@code strconv.ParseFloat} accepts, times the suffix in float64, truncated to bytes; the key holds whole Gi,
     * rounded down ({@code 1500Mi} is {@code 1Gi}, {@code 0.5Gi} is {@code 0Gi}).
     *
     * @return whole Gi, rounded down
     */
    static long memoryGi(String text) throws Refused {
        String number = text;
        long unit = 1;
        for (int i = 0; i < MEMORY_SUFFIXES.length; i++) {
            if (text.endsWith(MEMORY_SUFFIXES[i])) {
                number = text.substring(0, text.length() - 2);
                unit = 1L << (10 * (i + 1));
                break;
            }
        }
        double value;
        if (GO_SPECIAL.matcher(number).matches()) {
            throw new Refused("'" + text + "': Inf and NaN give a size that depends on the machine the network's "
                    + "parser runs on; write a size such as 80Gi");
        } else if (GO_DECIMAL.matcher(number).matches() || GO_HEX.matcher(number).matches()) {
            value = Double.parseDouble(number);
            if (Double.isInfinite(value)) {
                throw new Refused("'" + text + "' is out of range for the network's parser (float64)");
            }
        } else {
            throw new Refused("'" + text + "' is not a memory size the network's parser reads: a number with one "
                    + "of the binary suffixes Ki Mi Gi Ti Pi Ei, such as 80Gi or 40960Mi (80G, 80GB, 80gi and 80 Gi "
                    + "are refused)");
        }
        value *= unit;
        if (value < 0) {
            throw new Refused("'" + text + "' is negative");
        }
        BigDecimal bytes = new BigDecimal(value);
        if (Double.isInfinite(value) || bytes.compareTo(new BigDecimal(UINT64_LIMIT)) >= 0) {
            throw new Refused("'" + text + "' is 2^64 bytes or more, which the network's parser turns into a size "
                    + "that depends on the machine it runs on");
        }
        return bytes.toBigInteger().divide(BigInteger.valueOf(GI)).longValueExact();
    }

    /**
     * A placement's {@code count} as yaml.v3 decodes a scalar into a {@code uint32} (node {@code sdl/v2.go},
     * {@code v2ServiceDeployment.Count}; yaml.v3 v3.0.1 {@code resolve.go} and {@code decode.go}): an integer in
     * Go's base-prefix syntax ({@code 0x10}, {@code 0o10}, {@code 010} octal, {@code 0b11}, underscores ignored)
     * or a float, truncated ({@code 1.5} is 1); a quoted string is refused; nothing is 0.
     *
     * @param text   the scalar as written, without quotes
     * @param quoted true when the scalar was written quoted (or as a block), which yaml.v3 reads as a string
     */
    static long yamlUint32(String text, boolean quoted) throws Refused {
        String plain = text.replace("_", "");
        if (quoted) {
            throw new Refused("'" + text + "' is a string; the network's parser reads a number here (write 2, not \"2\")");
        }
        BigInteger whole = goInteger(plain);
        if (whole == null && YAML_FLOAT.matcher(plain).matches()) {
            double value = Double.parseDouble(plain);
            if (value < 0) {
                throw new Refused("'" + text + "' is negative");
            }
            whole = new BigDecimal(value).toBigInteger();
        }
        if (whole == null) {
            throw new Refused("'" + text + "' is not a number (the network's parser reads it as a string)");
        }
        if (whole.signum() < 0) {
            throw new Refused("'" + text + "' is negative");
        }
        if (whole.bitLength() > 32) {
            throw new Refused("'" + text + "' is out of range (at most 4294967295)");
        }
        return whole.longValue();
    }

    /** {@code strconv.ParseInt(s, 0, 64)} with its base prefixes, widened to any size; null when it is none. */
    private static BigInteger goInteger(String s) {
        Matcher m = Pattern.compile("([+-]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)").matcher(s);
        if (!m.matches()) {
            return null;
        }
        String digits = m.group(2);
        BigInteger n;
        if (digits.length() > 1 && Character.isLetter(digits.charAt(1))) {
            int radix = switch (Character.toLowerCase(digits.charAt(1))) {
                case 'x' -> 16;
                case 'b' -> 2;
                default -> 8;
            };
            n = new BigInteger(digits.substring(2), radix);
        } else if (digits.startsWith("0")) {
            n = new BigInteger(digits, 8);
        } else {
            n = new BigInteger(digits);
        }
        return m.group(1).equals("-") ? n.negate() : n;
    }

    /** The SDL versions the network's parser reads. */
    enum SdlVersion { V2_0, V2_1 }

    /**
     * The {@code version} as node {@code sdl/sdl.go} reads it: {@code semver.ParseTolerant} (blang/semver v4.0.0:
     * spaces trimmed, a leading {@code v} dropped, {@code 2.0} read as {@code 2.0.0}), then 2.0.0 is version 2.0
     * and anything from 2.1.0 up is read as 2.1; anything else is an unsupported version.
     */
    static SdlVersion sdlVersion(String text) throws Refused {
        String s = text.strip();
        if (s.startsWith("v")) {
            s = s.substring(1);
        }
        String[] parts = s.split("\\.", 3);
        if (parts.length < 3) {
            if (parts[parts.length - 1].contains("+") || parts[parts.length - 1].contains("-")) {
                throw new Refused("'" + text + "' is not a version: a short version cannot carry a pre-release");
            }
            String[] padded = {"0", "0", "0"};
            System.arraycopy(parts, 0, padded, 0, parts.length);
            parts = padded;
        }
        Matcher patch = SEMVER_PATCH.matcher(parts[2]);
        if (!parts[0].matches("0|[1-9]\\d{0,8}") || !parts[1].matches("0|[1-9]\\d{0,8}") || !patch.matches()
                || patch.group(1).length() > 9) {
            throw new Refused("'" + text + "' is not a version such as \"2.0\" or \"2.1\"");
        }
        int major = Integer.parseInt(parts[0]);
        int minor = Integer.parseInt(parts[1]);
        int micro = Integer.parseInt(patch.group(1));
        boolean release = patch.group(2) == null;
        if (major == 2 && minor == 0 && micro == 0 && release) {
            return SdlVersion.V2_0;
        }
        int order = major != 2 ? Integer.compare(major, 2) : minor != 1 ? Integer.compare(minor, 1)
                : micro != 0 ? Integer.compare(micro, 0) : release ? 0 : -1;
        if (order >= 0) {
            return SdlVersion.V2_1;
        }
        throw new Refused("unsupported version '" + text + "'; the network reads 2.0 and 2.1 (and any later "
                + "version as 2.1)");
    }
}
