package io.gpudetect.cli;

import io.gpudetect.sink.NfdFeaturesDir;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code gpu-detect nfd-dir --group=65532 /host/nfd-features.d}: prepares NFD's features folder for the
 * non-root agent ({@link NfdFeaturesDir}). The chart runs it in an init container, as root with
 * {@code CAP_CHOWN} only, before the agent starts with {@code --nfd-output=file}.
 */
@Command(name = "nfd-dir", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false,
        description = "Gives Node Feature Discovery's features.d folder to the agent's group (group-writable, "
                + "readable by all) so the non-root agent can write its features file there. Needs root with CAP_CHOWN.",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:the folder is ready", "1:it could not be prepared (missing, not a folder, not permitted)",
                "2:usage error"})
public final class NfdDirCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--group", required = true, paramLabel = "GID", description = "The agent's group id (runAsGroup).")
    int group;

    @Parameters(paramLabel = "DIR", description = "The features.d folder as mounted in this container.")
    Path dir;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            out.println("gpu-detect nfd-dir: " + NfdFeaturesDir.prepare(dir, group).summary());
            out.flush();
            return GpuDetectCommand.EXIT_OK;
        } catch (IOException e) {
            err.println("gpu-detect nfd-dir: " + e.getMessage());
            err.flush();
            return GpuDetectCommand.EXIT_UNUSABLE_INPUT;
        }
    }
}
