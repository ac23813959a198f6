package io.gpudetect.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people write them: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}, or ISO-8601 {@code PT5S}.
 * Apart from {@link DurationConverter} so that plain {@code gpu-detect} ({@link PlainArguments}) reads a
 * duration without loading picocli.
 */
final class Durations {

    private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m|h)");

    private Durations() {
    }

    /** The duration, or null when {@code value} is not one (or is zero, negative or too large). */
    static Duration parse(String value) {
        Matcher m = SIMPLE.matcher(value.strip());
        if (m.matches()) {
            try {
                long n = Long.parseLong(m.group(1));
                Duration d = switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    default -> Duration.ofHours(n);
                };
                return d.isZero() ? null : d;
            } catch (ArithmeticException | NumberFormatException e) {
                return null;
            }
        }
        try {
            Duration d = Duration.parse(value.strip());
            return d.isNegative() || d.isZero() ? null : d;
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }
}
