package io.gpudetect.agent;

import java.io.PrintWriter;
import java.time.Clock;

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
        StringBuilder b = new StringBuilder("time=").append(clock.instant()).append(" level=").append(level)
                .append(" msg=").append(quote(msg));
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            b.append(' ').append(keyValues[i]).append('=').append(quote(String.valueOf(keyValues[i + 1])));
        }
        synchronized (err) {
            err.println(b);
            err.flush();
        }
    }

    static String quote(String s) {
        if (bare(s)) {
            return s;
        }
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + '"';
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
