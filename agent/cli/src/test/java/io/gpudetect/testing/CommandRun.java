package io.gpudetect.testing;

import io.gpudetect.cli.GpuDetectCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.function.Consumer;
import picocli.CommandLine;

/** One run of the whole {@code gpu-detect} command line, in process: its exit status and what it printed. */
public record CommandRun(int exit, String out, String err) {

    public static CommandRun of(String... args) {
        return of(cli -> { }, args);
    }

    /** @param setUp changes the command line before it runs (a cluster's client settings, for one) */
    public static CommandRun of(Consumer<CommandLine> setUp, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = GpuDetectCommand.newCommandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        setUp.accept(cli);
        return new CommandRun(cli.execute(args), out.toString(), err.toString());
    }
}
