package io.gpudetect.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Random;
import org.junit.jupiter.api.Test;

class AgentLogTest {

    private static String quote(String s) {
        return AgentLog.appendQuoted(new StringBuilder(), s).toString();
    }

    @Test
    void aQuotedValueIsEscapedAsTheThreeReplacementsEscapedIt() {
        // AgentLog.appendQuoted escapes a character at a time: the same as escaping backslashes, then quotes, then
        // line ends, each through the whole value, as it was written before. Random values of the characters that
        // matter, and the cases where one escape's output meets the next one's input.
        assertEquals("\"a\\\\\\\"b\\\\n\\n\"", quote("a\\\"b\\n\n"));
        String alphabet = "ab \\\"\n=\u00e9\t";
        Random random = new Random(37);
        for (int i = 0; i < 5_000; i++) {
            StringBuilder s = new StringBuilder();
            for (int n = random.nextInt(12); n > 0; n--) {
                s.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String v = s.toString();
            String expected = v.matches("[-A-Za-z0-9_.:/+@]+") ? v
                    : '"' + v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + '"';
            assertEquals(expected, quote(v), v);
        }
    }

    @Test
    void valuesThatALogShipperCouldSplitAreQuoted() {
        assertEquals("node-1", quote("node-1"));
        assertEquals("gpu-detect.io/gpu.model:a@b+c_d", quote("gpu-detect.io/gpu.model:a@b+c_d"));
        assertEquals("\"\"", quote(""), "an empty value is quoted, so the key still has one");
        assertEquals("\"pass done\"", quote("pass done"));
        assertEquals("\"a=b\"", quote("a=b"));
        assertEquals("\"say \\\"hi\\\"\"", quote("say \"hi\""));
        assertEquals("\"two\\nlines\"", quote("two\nlines"));
        assertEquals("\"caf\u00e9\"", quote("caf\u00e9"), "only ASCII letters stand bare");
    }

    @Test
    void oneEventIsOneLogfmtLine() {
        StringWriter out = new StringWriter();
        new AgentLog(new PrintWriter(out), Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC))
                .info("pass done", "node", "node-1", "error", "none", "labels", "+2 -1");
        assertEquals("time=2026-01-01T00:00:00Z level=info msg=\"pass done\" node=node-1 error=none labels=\"+2 -1\""
                + System.lineSeparator(), out.toString());
    }

    @Test
    void theTimeIsWrittenAsInstantWritesIt() {
        // The hand-written timestamp against Instant.toString: the fraction's widths (none, 3, 6, 9 digits), the
        // first and last second of a minute, day, month and leap year, the ends of the range written by hand, and
        // the years beyond it, which Instant writes itself.
        String[] samples = {"1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000000001Z", "2026-11-29T05:41:03.100Z",
            "2026-11-29T05:41:03.120Z", "2026-11-29T05:41:03.123400Z", "2026-11-29T05:41:03.123456789Z",
            "2026-12-31T23:59:59.999999999Z", "2024-02-29T12:00:00Z", "2000-02-29T00:00:01Z", "2100-03-01T00:00:00Z",
            "1999-12-31T23:59:59Z", "9999-12-31T23:59:59.999Z", "+10000-01-01T00:00:00Z", "1969-12-31T23:59:59.5Z",
            "0001-01-01T00:00:00Z", "-0001-06-30T08:00:00Z"};
        for (String sample : samples) {
            Instant t = Instant.parse(sample);
            assertEquals(t.toString(), AgentLog.timestamp(new StringBuilder(), t).toString(), sample);
        }
        Random random = new Random(37);
        for (int i = 0; i < 20_000; i++) {
            Instant t = Instant.ofEpochSecond(random.nextLong() % 300_000_000_000L,
                    switch (i % 4) {
                        case 0 -> 0;
                        case 1 -> random.nextInt(1000) * 1_000_000;
                        case 2 -> random.nextInt(1_000_000) * 1000;
                        default -> random.nextInt(1_000_000_000);
                    });
            assertEquals(t.toString(), AgentLog.timestamp(new StringBuilder(), t).toString());
        }
    }
}
