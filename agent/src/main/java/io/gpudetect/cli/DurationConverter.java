package io.gpudetect.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Durations as people write them: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}, or ISO-8601 {@code PT5S}. */
public final class DurationConverter implements ITypeConverter<Duration> {

    private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        Duration d = parse(value);
        if (d == null) {
            throw new TypeConversionException("'" + value + "' is not a duration (expected e.g. 500ms, 5s, 2m, 1h)");
        }
        return d;
    }

    /** The duration, or null when {@code value} is not one (or is zero, negative or too large). */
    public static Duration parse(String value) {
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
