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
    void refusesWhatIsNotAPositiveDuration() {
        for (String bad : new String[] {"", "s", "5", "5x", "5 s", "-5s", "0s", "PT0S", "5sec", "ms5", "1.5s", "PT-5S",
                "99999999999999999999s", "9223372036854775807h"}) {
            assertNull(Durations.parse(bad), bad);
        }
    }
}
