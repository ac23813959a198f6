package io.gpudetect.cli;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.render.InventoryDocument;
import io.gpudetect.render.InventoryTable;
import io.gpudetect.render.OutputFormat;
import io.gpudetect.source.BundleException;
import io.gpudetect.tables.TableException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gpu-detect}: finds every GPU on this host (or in a recorded bundle) and prints it. Exit
 * status 0 on success, with or without GPUs; 1 when the input cannot be used; 2 on a usage error.
 */
@Command(name = "gpu-detect", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false, usageHelpAutoWidth = true,
        description = "Finds every GPU on this host (NVIDIA, AMD, Intel and others) and describes each the same way.",
        subcommands = {
                RecordCommand.class,
                AgentCommand.class,
                MatchCommand.class,
                InventoryCommand.class,
                AkashCommand.class,
                NfdDirCommand.class},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:detection ran (with or without GPUs)", "1:the input could not be used (no bundle in the folder, unreadable bundle, a bundle no source of which answered, an output folder that cannot be written, a host whose PCI bus cannot be read)",
                "2:usage error, or an unexpected failure (one line names it)"})
public final class GpuDetectCommand implements Callable<Integer> {

    public static final int EXIT_OK = 0;
    public static final int EXIT_UNUSABLE_INPUT = 1;
    public static final int EXIT_USAGE = 2;
    /**
     * An unexpected failure (a bug, a class missing from an installation): one line that names it
     * ({@link #failureLine}), never a stack trace. The status of usage errors, as no caller can do more about it.
     */
    public static final int EXIT_FAILED = 2;
    /**
     * Not a status anyone sees: what {@link #main} answers, when started on the detection class path, to
     * arguments that only picocli reads. The launchers then start it again with every jar.
     */
    public static final int EXIT_NEEDS_EVERY_JAR = 120;
    /**
     * Set by the launchers ({@code -Dgpudetect.detectionClassPath=true}) when the class path holds only the
     * jars plain detection loads, without the Kubernetes client (docs/performance.md, "Start-up and footprint
     * tricks", row "a class path for plain detection"). picocli builds every subcommand, so it needs them all.
     */
    static final String DETECTION_CLASS_PATH = "gpudetect.detectionClassPath";

    @Spec
    CommandSpec spec;

    @Mixin
    DetectionOptions detection;

    @Mixin
    OutputOption output;

    @Option(names = {"-v", "--verbose"}, description = "Also print informational messages (tools not installed, ...).")
    boolean verbose;

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        int status;
        try {
            status = run(args, out, err, System.getenv(), Boolean.getBoolean(DETECTION_CLASS_PATH));
        } catch (RuntimeException | Error e) {
            // Only what fails before a command runs (building the command line itself) gets here.
            err.println(failureLine("gpu-detect", e));
            err.flush();
            status = EXIT_FAILED;
        }
        System.exit(status);
    }

    /**
     * Runs the command line: plain detection straight away when {@link PlainArguments} can read it (start-up
     * time, see there), everything else through picocli. {@code env} supplies option defaults.
     */
    public static int run(String[] args, PrintWriter out, PrintWriter err, Map<String, String> env) {
        return run(args, out, err, env, false);
    }

    /**
     * As {@link #run(String[], PrintWriter, PrintWriter, Map)}; with {@code detectionClassPathOnly}, arguments
     * for picocli print nothing and answer {@link #EXIT_NEEDS_EVERY_JAR}.
     */
    static int run(String[] args, PrintWriter out, PrintWriter err, Map<String, String> env,
                   boolean detectionClassPathOnly) {
        if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
            // Answered before picocli, in the words its --version prints: building the command line loads every
            // subcommand's classes, and the launchers then start a second JVM with every jar (docs/performance.md,
            // "--version without picocli").
            for (String line : new VersionProvider().getVersion()) {
                out.println(line);
            }
            out.flush();
            return 0;
        }
        Optional<PlainArguments> plain = PlainArguments.parse(args, env);
        if (plain.isEmpty() && detectionClassPathOnly) {
            return EXIT_NEEDS_EVERY_JAR;
        }
        if (plain.isPresent()) {
            PlainArguments a = plain.get();
            try {
                return detect(a.detectionOptions(), a.format(), a.verbose(), out, err);
            } catch (RuntimeException | Error e) {
                // What picocli's execution exception handler below does for the same failure.
                err.println(failureLine("gpu-detect", e));
                err.flush();
                return EXIT_FAILED;
            }
        }
        CommandLine cli = newCommandLine();
        cli.setOut(out);
        cli.setErr(err);
        return cli.execute(args);
    }

    /**
     * The command line with its error handling: a message and the usage hint for a usage error; for anything a
     * command did not expect, Errors included (a NoClassDefFoundError of a jar missing from an installation),
     * one line naming it and {@link #EXIT_FAILED}; never a stack trace.
     */
    public static CommandLine newCommandLine() {
        CommandLine cli = new CommandLine(new GpuDetectCommand());
        CopyableHelp.install(cli);
        // picocli hands only Exceptions to the execution exception handler and lets Errors out of execute(),
        // where the JVM would print their stack trace: they are wrapped here to take the same way.
        cli.setExecutionStrategy(parseResult -> {
            String misplaced = optionsBeforeCommand(parseResult);
            if (misplaced != null) {
                CommandLine sub = parseResult.subcommand().commandSpec().commandLine();
                sub.getErr().println(misplaced);
                sub.getErr().println("Try '" + sub.getCommandSpec().qualifiedName() + " --help' for more information.");
                sub.getErr().flush();
                return EXIT_USAGE;
            }
            try {
                return new CommandLine.RunLast().execute(parseResult);
            } catch (Error e) {
                CommandLine.ParseResult last = parseResult;
                while (last.subcommand() != null) {
                    last = last.subcommand();
                }
                throw new CommandLine.ExecutionException(last.commandSpec().commandLine(), String.valueOf(e), e);
            }
        });
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        cli.setParameterExceptionHandler((e, args) -> {
            CommandLine failed = e.getCommandLine();
            String command = failed.getCommandName().equals("gpu-detect") ? "gpu-detect"
                    : "gpu-detect " + failed.getCommandName();
            String mistyped = mistypedCommand(e);
            failed.getErr().println(command + ": " + (mistyped != null ? mistyped : e.getMessage()));
            failed.getErr().println("Try '" + failed.getCommandSpec().qualifiedName() + " --help' for more information.");
            return EXIT_USAGE;
        });
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            Throwable failure = e instanceof CommandLine.ExecutionException && e.getCause() != null ? e.getCause() : e;
            commandLine.getErr().println(failureLine(commandLine.getCommandSpec().qualifiedName(), failure));
            commandLine.getErr().flush();
            return EXIT_FAILED;
        });
        return cli;
    }

    /**
     * {@code 'recrod' is not a command; did you mean 'record'?}: the first unmatched word of the top-level command
     * that is no option, with picocli's suggestions; null for any other usage error.
     */
    static String mistypedCommand(CommandLine.ParameterException e) {
        if (!(e instanceof CommandLine.UnmatchedArgumentException unmatched)
                || e.getCommandLine().getCommandSpec().subcommands().isEmpty()
                || unmatched.getUnmatched().isEmpty() || unmatched.getUnmatched().get(0).startsWith("-")) {
            return null;
        }
        String word = unmatched.getUnmatched().get(0);
        List<String> commands = unmatched.getSuggestions().stream()
                .filter(e.getCommandLine().getCommandSpec().subcommands()::containsKey).toList();
        return "'" + word + "' is not a command" + (commands.isEmpty()
                ? " (commands: " + String.join(", ", e.getCommandLine().getCommandSpec().subcommands().keySet()) + ")"
                : "; did you mean " + String.join(" or ", commands.stream().map(c -> "'" + c + "'").toList()) + "?");
    }

    /**
     * Plain detection's options given before a command ({@code gpu-detect -o json record DIR}) would be read and
     * then ignored, as picocli runs only the command: they are refused, naming where they belong. Null when there
     * is no command or no such option; {@code --help} and {@code --version} are picocli's own, and answered.
     */
    static String optionsBeforeCommand(CommandLine.ParseResult parsed) {
        if (parsed.subcommand() == null || parsed.isUsageHelpRequested() || parsed.isVersionHelpRequested()) {
            return null;
        }
        List<String> given = parsed.matchedOptions().stream().map(o -> o.longestName()).distinct().toList();
        if (given.isEmpty()) {
            return null;
        }
        CommandLine.Model.CommandSpec sub = parsed.subcommand().commandSpec();
        List<String> own = given.stream().filter(o -> sub.findOption(o) != null).toList();
        boolean one = given.size() == 1;
        return "gpu-detect: " + String.join(", ", given) + " before '" + sub.name() + "' "
                + (one ? "is an option" : "are options") + " of plain gpu-detect, not of '" + sub.name() + "'"
                + (own.isEmpty() ? "" : "; give " + (one ? "it" : String.join(", ", own)) + " after the command: gpu-detect "
                + sub.name() + " " + own.get(0) + " ...");
    }

    /**
     * {@code gpu-detect agent: failed: NoClassDefFoundError io/fabric8/...}: what failed, in one line, for a
     * failure nothing expected (the class and the first line of its message; a stack trace says no more to a user).
     */
    public static String failureLine(String command, Throwable failure) {
        String message = failure.getMessage();
        if (message != null && message.indexOf('\n') >= 0) {
            message = message.substring(0, message.indexOf('\n'));
        }
        return command + ": failed: " + failure.getClass().getSimpleName()
                + (message == null || message.isBlank() ? "" : " " + message.strip());
    }

    @Override
    public Integer call() {
        return detect(detection, output.format(), verbose, spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    /** Plain {@code gpu-detect}: detect from the source and print the inventory; returns the exit status. */
    static int detect(DetectionOptions detection, OutputFormat format, boolean verbose, PrintWriter out,
                      PrintWriter err) {
        DetectionOptions.Input input;
        try {
            input = detection.input();
        } catch (BundleException | TableException e) {
            err.println("gpu-detect: " + e.getMessage());
            err.flush();
            return EXIT_UNUSABLE_INPUT;
        }
        Inventory inventory = detection.detectBeforeExit(input);
        switch (format) {
            case json -> out.print(InventoryDocument.json(inventory));
            case yaml -> out.print(InventoryDocument.yaml(inventory));
            default -> {
                // A pass that could not see the host has no table: its one line on stderr below says why.
                if (inventory.failure() == null) {
                    out.print(InventoryTable.render(inventory));
                }
                printDiagnostics(inventory, err, verbose);
            }
        }
        out.flush();
        if (inventory.failure() != null) {
            err.println("gpu-detect: " + inventory.failure());
            err.flush();
            return EXIT_UNUSABLE_INPUT;
        }
        return EXIT_OK;
    }

    static void printDiagnostics(Inventory inventory, PrintWriter err, boolean verbose) {
        for (Diagnostic d : inventory.diagnostics()) {
            if (verbose || d.severity() != Diagnostic.Severity.INFO) {
                err.println(d.oneLine());
            }
        }
        err.flush();
    }
}
