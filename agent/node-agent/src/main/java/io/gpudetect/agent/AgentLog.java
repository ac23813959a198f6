package io.gpudetect.agent;

import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;

/**
 * Structured log lines for stderr, one event per line in logfmt: {@code time=... level=info msg="pass done"
 * gpus=2}. Values with spaces or quotes are quoted, so a log shipper can split every line the same way.
 */
public final class AgentLog {

    private final PrintWriter err;
    private final Clock clock;

    public AgentLog(PrintWriter err, Clock clock) {
        this.err = err;
        this.clock = clock;
    }

    public void info(String msg, Object... keyValues) {
        log("info", msg, keyValues);
    }

    public void warn(String msg, Object... keyValues) {
        log("warn", msg, keyValues);
    }

    public void error(String msg, Object... keyValues) {
        log("error", msg, keyValues);
    }

    private void log(String level, String msg, Object... keyValues) {
        StringBuilder b = new StringBuilder(160).append("time=");
        appendQuoted(timestamp(b, clock.instant()).append(" level=").append(level).append(" msg="), msg);
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            appendQuoted(b.append(' ').append(keyValues[i]).append('='), String.valueOf(keyValues[i + 1]));
        }
        // One write of the whole line, its end included, as println would end it: println writes the text and the
        // line separator in two trips through the writer's layers, in the agent's interpreter, at every pass.
        String line = b.append(System.lineSeparator()).toString();
        synchronized (err) {
            err.write(line);
            err.flush();
        }
    }

    /** 9999-12-31T23:59:59Z: the last second {@link #timestamp} writes by hand. */
    private static final long LAST_HAND_WRITTEN = 253_402_300_799L;

    /**
     * Appends {@code t} exactly as {@link Instant#toString()} writes it ({@code 2026-11-29T05:41:03.123456Z}: the
     * fraction in as many groups of three digits as it needs, none when it is 0), written by hand for the years
     * 1970 to 9999. {@code Instant.toString} goes through {@code DateTimeFormatter}, a quarter of the samples in the
     * {@code pass done} line in the agent's interpreter (docs/performance.md, "The pass thread"); other instants still
     * go through it.
     */
    static StringBuilder timestamp(StringBuilder b, Instant t) {
        long seconds = t.getEpochSecond();
        if (seconds < 0 || seconds > LAST_HAND_WRITTEN) {
            return b.append(t);
        }
        long days = seconds / 86_400;
        int secondOfDay = (int) (seconds % 86_400);
        // The civil date of a day count since 1970-01-01 (H. Hinnant's days_from_civil, inverted), in eras of 400 years.
        long z = days + 719_468;
        long era = z / 146_097;
        int dayOfEra = (int) (z - era * 146_097);
        int yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
        int dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        int mp = (5 * dayOfYear + 2) / 153;
        int day = dayOfYear - (153 * mp + 2) / 5 + 1;
        int month = mp < 10 ? mp + 3 : mp - 9;
        long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
        digits(b, (int) year, 4).append('-');
        digits(b, month, 2).append('-');
        digits(b, day, 2).append('T');
        digits(b, secondOfDay / 3600, 2).append(':');
        digits(b, secondOfDay / 60 % 60, 2).append(':');
        digits(b, secondOfDay % 60, 2);
        int nanos = t.getNano();
        if (nanos > 0) {
            b.append('.');
            if (nanos % 1_000_000 == 0) {
                digits(b, nanos / 1_000_000, 3);
            } else if (nanos % 1000 == 0) {
                digits(b, nanos / 1000, 6);
            } else {
                digits(b, nanos, 9);
            }
        }
        return b.append('Z');
    }

    private static final int[] POWERS_OF_TEN = {1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000};

    /** The last {@code width} (1 to 9) decimal digits of {@code value} (not negative), zeros in front. */
    private static StringBuilder digits(StringBuilder b, int value, int width) {
        for (int scale = POWERS_OF_TEN[width - 1]; scale > 0; scale /= 10) {
            b.append((char) ('0' + value / scale % 10));
        }
        return b;
    }

    /**
     * Appends {@code s} bare where it may stand so, else in quotes with its backslashes, quotes and line ends escaped.
     * Into the line's builder, a character at a time: three {@code String.replace}s and a concatenation made four
     * strings a value, about a fifth of the {@code pass done} line's time in the agent's interpreter
     * (docs/performance.md, "The steady pass on a real server's sysfs").
     */
    static StringBuilder appendQuoted(StringBuilder b, String s) {
        if (bare(s)) {
            return b.append(s);
        }
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\') {
                b.append("\\\\");
            } else if (c == '"') {
                b.append("\\\"");
            } else if (c == '\n') {
                b.append("\\n");
            } else {
                b.append(c);
            }
        }
        return b.append('"');
    }

    /**
     * Whether {@code s} may stand unquoted: one or more of {@code [-A-Za-z0-9_.:/+@]}. A loop, not a regular
     * expression: every pass logs a line of some ten values, in the agent's interpreter.
     */
    private static boolean bare(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '_' || c == '.' || c == ':' || c == '/' || c == '+' || c == '@';
            if (!plain) {
                return false;
            }
        }
        return true;
    }
}
