package io.gpudetect.cli;

import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** picocli's converter for {@link Durations}: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}, or ISO-8601 {@code PT5S}. */
public final class DurationConverter implements ITypeConverter<Duration> {

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
        return Durations.parse(value);
    }
}
