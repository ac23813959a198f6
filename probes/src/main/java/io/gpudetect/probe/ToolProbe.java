package io.gpudetect.probe;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.source.Source;
import io.gpudetect.source.ToolCommand;
import io.gpudetect.source.ToolResult;
import java.util.ArrayList;
import java.util.List;

/**
 * A probe that runs one tool and parses its text: everything that can go wrong around the parser
 * (tool missing, hung, failing, printing binary or nothing) is handled here once, the same way for
 * every tool.
 */
public record ToolProbe(String name, ToolCommand command, ToolOutputParser parser, ProbeRole role,
                        boolean printsPciDomain) implements Probe {

    /** A tool whose PCI addresses, where it prints any, include the domain. */
    public ToolProbe(String name, ToolCommand command, ToolOutputParser parser, ProbeRole role) {
        this(name, command, parser, role, true);
    }

    /**
     * Written out, as {@code PciAddress}'s are: a pass keys its results by probe, and a record's generated
     * {@code hashCode} links through {@code ObjectMethods}, which spins some twenty method-handle forms at every
     * start. Measured: docs/performance.md, "Start-up and footprint tricks", row "probes hashed without ObjectMethods".
     */
    @Override
    public int hashCode() {
        return name.hashCode() * 31 + command.bundleFile().hashCode();
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof ToolProbe t && name.equals(t.name) && command.bundleFile().equals(t.command.bundleFile())
                && command.argv().equals(t.command.argv()) && parser == t.parser && role == t.role
                && printsPciDomain == t.printsPciDomain;
    }

    @Override
    public boolean runsOnLiveHost() {
        return command.runsOnLiveHost();
    }

    @Override
    public ProbeResult probe(Source source) {
        String file = command.bundleFile();
        ToolResult result = source.run(command);
        if (result instanceof ToolResult.Absent absent) {
            return ProbeResult.absent(name, absent.reason() == null ? null
                    : Diagnostic.info(name, file, absent.reason()));
        }
        if (result instanceof ToolResult.TimedOut timedOut) {
            return ProbeResult.failed(name, Diagnostic.error(name, file, null,
                    what() + " did not finish within " + seconds(timedOut.limit().toMillis()) + " and was killed"));
        }
        if (result instanceof ToolResult.Failed failed) {
            return ProbeResult.failed(name, Diagnostic.error(name, file, null, failed.reason()));
        }
        ToolResult.Completed done = (ToolResult.Completed) result;
        List<Diagnostic> notes = new ArrayList<>();
        String text = done.stdout();
        if (done.exitCode() != 0) {
            String reason = what() + " exited with status " + done.exitCode() + firstLine(done.stderr(), text);
            if (text.isBlank() || looksLikeError(text)) {
                return ProbeResult.failed(name, Diagnostic.error(name, file, null, reason));
            }
            notes.add(Diagnostic.warning(name, file, null, reason + "; reading its output anyway"));
        }
        if (text.isBlank()) {
            return ProbeResult.failed(name, Diagnostic.error(name, file, null, "empty output, expected " + what() + " output"));
        }
        if (text.indexOf('\0') >= 0) {
            return ProbeResult.failed(name, Diagnostic.error(name, file, null,
                    "binary data (NUL bytes), expected the text " + what() + " prints"));
        }
        if (done.truncated()) {
            notes.add(Diagnostic.warning(name, file, null, "output was cut off at the size limit; the rest was not read"));
        }
        // Bundles are often made from output pasted into a report: prompts, quoting and fences come off first.
        PastedText.Cleaned pasted = PastedText.clean(text);
        for (String note : pasted.notes()) {
            notes.add(Diagnostic.info(name, file, note));
        }
        text = pasted.text();
        ParsedOutput parsed;
        try {
            parsed = parser.parse(text, file, pasted.commands());
        } catch (RuntimeException e) {
            return ProbeResult.failed(name, FieldLimits.bound(Diagnostic.error(name, file, null,
                    "could not read " + what() + " output: " + e)));
        }
        for (Diagnostic d : parsed.diagnostics()) {
            notes.add(FieldLimits.bound(d));
        }
        FieldLimits.Bounded bounded = FieldLimits.apply(parsed.gpus(), name, file);
        notes.addAll(bounded.diagnostics());
        return ProbeResult.of(name, bounded.gpus(), notes);
    }

    private String what() {
        return command.runsOnLiveHost() ? "'" + command.commandLine() + "'" : command.bundleFile();
    }

    private static String seconds(long ms) {
        return ms % 1000 == 0 ? (ms / 1000) + " s" : ms + " ms";
    }

    private static boolean looksLikeError(String text) {
        String t = text.strip();
        return t.lines().count() <= 3;
    }

    private static String firstLine(String stderr, String stdout) {
        String s = stderr == null || stderr.isBlank() ? stdout : stderr;
        if (s == null || s.isBlank()) {
            return "";
        }
        String line = s.strip().lines().findFirst().orElse("");
        return ": " + (line.length() > 200 ? line.substring(0, 200) + "..." : line);
    }
}
