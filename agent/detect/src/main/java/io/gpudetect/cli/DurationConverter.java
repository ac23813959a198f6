package io.gpudetect.cli;

import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** picocli's converter for {@link Durations}: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}, or ISO-8601 {@code PT5S}. */
public final class DurationConverter implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        Duration d = Durations.parse(value);
        if (d == null) {
            throw new TypeConversionException("'" + value + "' is not a duration (expected e.g. 500ms, 5s, 2m, 1h)");
        }
        return d;
    }
}
