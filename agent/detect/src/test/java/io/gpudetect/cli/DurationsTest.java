package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void readsANumberAndAUnit() {
        assertEquals(Duration.ofMillis(500), Durations.parse("500ms"));
        assertEquals(Duration.ofSeconds(5), Durations.parse("5s"));
        assertEquals(Duration.ofMinutes(2), Durations.parse(" 2m "));
        assertEquals(Duration.ofHours(1), Durations.parse("1h"));
        assertEquals(Duration.ofSeconds(90), Durations.parse("PT1M30S"));
    }

    @Test
    void refusesWhatIsNotADuration() {
        for (String bad : new String[] {"", "s", "5", "5x", "5 s", "-5s", "5sec", "ms5", "1.5s", "PT-5S",
                "99999999999999999999s", "9223372036854775807h"}) {
            assertNull(Durations.parse(bad), bad);
        }
    }

    /** The converters take zero or refuse it, one rule for every flag; here zero is zero however it is written. */
    @Test
    void zeroIsZeroHoweverWritten() {
        for (String zero : new String[] {"0", "00", "0s", "0ms", "0m", "0h", "PT0S"}) {
            assertEquals(Duration.ZERO, Durations.parse(zero), zero);
        }
    }

    /** Printed as the flags take them, so a value in a message can be given back to the flag as it stands. */
    @Test
    void formatsAsTheFlagsTakeThem() {
        assertEquals("10m", Durations.format(Duration.ofMinutes(10)));
        assertEquals("1m", Durations.format(Duration.ofSeconds(60)));
        assertEquals("90s", Durations.format(Duration.ofSeconds(90)));
        assertEquals("1h", Durations.format(Duration.ofHours(1)));
        assertEquals("500ms", Durations.format(Duration.ofMillis(500)));
        assertEquals("0s", Durations.format(Duration.ZERO));
        for (Duration d : new Duration[] {Duration.ofMinutes(10), Duration.ofSeconds(90), Duration.ofMillis(1500),
                Duration.ofHours(25)}) {
            assertEquals(d, Durations.parse(Durations.format(d)), d.toString());
        }
    }
}
