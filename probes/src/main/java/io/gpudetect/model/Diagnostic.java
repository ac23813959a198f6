package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * Something a probe wants a person to know: a missing tool, a timeout, a line it could not read.
 * Diagnostics travel with the result instead of being thrown, so one broken tool never hides what the
 * others saw. {@code file} and {@code line} point at the input (bundle file name or command) when known.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Diagnostic(Severity severity, String probe, String file, Integer line, String message) {

    public enum Severity {
        /** Worth knowing, nothing wrong: a tool that is not installed on this host. */
        INFO,
        /** Part of the input was unusable; the rest was read. */
        WARNING,
        /** The probe could not do its job: timeout, unreadable output, failed tool. */
        ERROR;

        @JsonValue
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static Diagnostic info(String probe, String file, String message) {
        return new Diagnostic(Severity.INFO, probe, file, null, message);
    }

    public static Diagnostic info(String probe, String file, Integer line, String message) {
        return new Diagnostic(Severity.INFO, probe, file, line, message);
    }

    public static Diagnostic warning(String probe, String file, Integer line, String message) {
        return new Diagnostic(Severity.WARNING, probe, file, line, message);
    }

    public static Diagnostic error(String probe, String file, Integer line, String message) {
        return new Diagnostic(Severity.ERROR, probe, file, line, message);
    }

    /** One line for a terminal: {@code error nvidia-smi-xml nvidia-smi.xml:12: expected ...}. */
    public String oneLine() {
        StringBuilder b = new StringBuilder(severity.id()).append(' ').append(probe);
        if (file != null) {
            b.append(' ').append(file);
            if (line != null) {
                b.append(':').append(line);
            }
        }
        return b.append(": ").append(message).toString();
    }
}
