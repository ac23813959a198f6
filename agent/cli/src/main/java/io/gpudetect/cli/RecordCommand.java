package io.gpudetect.cli;

import io.gpudetect.probe.pci.DrmCards;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.render.InventoryDocument;
import io.gpudetect.source.IoFailure;
import io.gpudetect.source.RecordingSource;
import io.gpudetect.tables.TableException;
import io.gpudetect.tables.Tables;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code gpu-detect record DIR}: detects on this host as a live pass does (the same probe plan) and writes what
 * the probes read into a bundle folder, with {@code bundle.json} and the detection result ({@code
 * detected.json}, whose {@code probes} say which sources were consulted and why others were skipped) beside it.
 */
@Command(name = "record", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Detect as a live pass does and copy what the probes read into DIR, to attach to a bug report "
                + "or replay with --replay DIR.")
public final class RecordCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** This host's options only: record reads this host, so it has no {@code --replay} to refuse. */
    @Mixin
    HostOptions host;

    @Option(names = "--every-source",
            description = "Consult every source, needed or not (by default only what the probe plan needs, as a live pass).")
    boolean everySource;

    @Parameters(paramLabel = "DIR", description = "Folder to write the bundle to (created; must be empty if it exists).")
    Path dir;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (Files.exists(dir) && (!Files.isDirectory(dir) || !isEmpty(dir))) {
            err.println("gpu-detect record: " + dir + " exists and is not an empty folder; choose a new folder");
            return GpuDetectCommand.EXIT_USAGE;
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            err.println("gpu-detect record: cannot write " + IoFailure.describe(e, dir));
            return GpuDetectCommand.EXIT_UNUSABLE_INPUT;
        }
        try {
            // A folder that exists but cannot be written (owned by root, on a read-only mount) is found out
            // before every tool runs, with the system's own reason.
            Files.delete(Files.createTempFile(dir, ".record-", ".tmp"));
        } catch (IOException e) {
            err.println("gpu-detect record: cannot write " + dir + ": " + IoFailure.reason(e));
            return GpuDetectCommand.EXIT_UNUSABLE_INPUT;
        }
        RecordingSource recording = new RecordingSource(host.live(), dir, everySource);
        Tables tables;
        try {
            // The host's id tables are read around the recording, not through it: a bundle holds what the host's
            // tools and sysfs said, not copies of pci.ids or amdgpu.ids (a replay uses the jar's tables anyway).
            tables = host.tables(host.live());
        } catch (TableException e) {
            err.println("gpu-detect record: " + e.getMessage());
            return GpuDetectCommand.EXIT_UNUSABLE_INPUT;
        }
        Inventory inventory = host.detect(new DetectionOptions.Input(recording, tables));
        // What Akash's operator starts from: recorded so that gpu-detect akash --replay can judge DRM nodes.
        DrmCards.read(recording);
        List<String> problems;
        try {
            problems = new ArrayList<>(recording.finish(hostName(), VersionProvider.version()));
            Files.writeString(dir.resolve("detected.json"), InventoryDocument.json(inventory));
        } catch (IOException e) {
            err.println("gpu-detect record: cannot write " + IoFailure.describe(e, dir));
            return GpuDetectCommand.EXIT_UNUSABLE_INPUT;
        }
        for (String p : problems) {
            err.println("gpu-detect record: could not write " + p);
        }
        out.println("Recorded " + inventory.realGpus().size() + " GPU(s) into " + dir
                + "; replay with: gpu-detect --replay " + dir);
        out.flush();
        if (inventory.failure() != null) {
            err.println("gpu-detect record: " + inventory.failure());
            return GpuDetectCommand.EXIT_UNUSABLE_INPUT;
        }
        return problems.isEmpty() ? GpuDetectCommand.EXIT_OK : GpuDetectCommand.EXIT_UNUSABLE_INPUT;
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.findAny().isEmpty();
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
