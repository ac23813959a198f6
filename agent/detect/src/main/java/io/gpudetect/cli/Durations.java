package io.gpudetect.cli;

import java.time.Duration;

/**
 * Durations as people write them: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}, or ISO-8601 {@code PT5S}.
 * Apart from {@link DurationConverter} so that plain {@code gpu-detect} ({@link PlainArguments}) reads a
 * duration without loading picocli.
 */
public final class Durations {

    private Durations() {
    }

    /**
     * The duration, or null when {@code value} is not one (or is negative or too large); zero however written
     * ({@code 0}, {@code 0s}, {@code PT0S}) is {@link Duration#ZERO}, for the converter to accept or refuse. Digits and a unit
     * are split by hand: every plain run reads its timeout here, and a regular expression's {@code \\d} spun
     * method handles at each start (docs/performance.md, "Start-up and footprint tricks", row "durations
     * without a regex").
     */
    static Duration parse(String value) {
        String v = value.strip();
        int digits = 0;
        while (digits < v.length() && v.charAt(digits) >= '0' && v.charAt(digits) <= '9') {
            digits++;
        }
        String unit = v.substring(digits);
        if (digits > 0 && unit.isEmpty() && v.chars().allMatch(c -> c == '0')) {
            return Duration.ZERO;
        }
        if (digits > 0 && (unit.equals("ms") || unit.equals("s") || unit.equals("m") || unit.equals("h"))) {
            try {
                long n = Long.parseLong(v.substring(0, digits));
                Duration d = switch (unit) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    default -> Duration.ofHours(n);
                };
                return d;
            } catch (ArithmeticException | NumberFormatException e) {
                return null;
            }
        }
        try {
            Duration d = Duration.parse(value.strip());
            return d.isNegative() ? null : d;
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }

    /**
     * {@code 10m}, {@code 90s}, {@code 500ms}: a duration as the flags take it, in the largest unit that holds it
     * whole (never {@code PT10M}, which a person has to decode).
     */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 1000 != 0) {
            return ms + "ms";
        }
        long s = ms / 1000;
        return s != 0 && s % 3600 == 0 ? s / 3600 + "h" : s != 0 && s % 60 == 0 ? s / 60 + "m" : s + "s";
    }
}
