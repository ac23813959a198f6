package io.gpudetect.cli;

import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * picocli's converter for {@link Durations}: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}, or ISO-8601 {@code PT5S}.
 * One rule for zero on every duration flag: where the help says what 0 does ({@code --refresh 0}, {@code
 * --startup-jitter 0}: {@link ZeroTurnsOff}), any zero ({@code 0}, {@code 0s}) does it; everywhere else a zero is
 * refused with that reason, never read as "no limit".
 */
public final class DurationConverter implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        Duration d = parse(value);
        if (d.isZero()) {
            throw new TypeConversionException("'" + value + "' is no time; give more than 0 (e.g. 500ms, 5s, 2m, 1h)");
        }
        return d;
    }

    /** A duration, zero included; a word that is none is refused. */
    static Duration parse(String value) {
        Duration d = Durations.parse(value);
        if (d == null) {
            throw new TypeConversionException("'" + value + "' is not a duration (expected e.g. 500ms, 5s, 2m, 1h)");
        }
        return d;
    }

    /** For a flag whose help says what 0 does: a duration or zero however written. */
    public static final class ZeroTurnsOff implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return parse(value);
        }
    }
}
