package io.gpudetect.cli;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.probe.ProbeSettings;
import io.gpudetect.probe.Probes;
import io.gpudetect.source.BundleException;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.LiveSource;
import io.gpudetect.source.Source;
import io.gpudetect.tables.AkashTableReader;
import io.gpudetect.tables.TableException;
import io.gpudetect.tables.Tables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Where detection reads from, shared by every command that detects either this host or a recorded bundle: {@code
 * --replay} and this host's options ({@link HostOptions}).
 */
public final class DetectionOptions {

    @Option(names = "--replay", paramLabel = "DIR",
            description = "Detect from a recorded bundle folder (written by 'gpu-detect record') instead of this host.")
    Path replay;

    @Mixin
    HostOptions host;

    /** For picocli, which sets the fields. */
    public DetectionOptions() {
    }

    DetectionOptions(Path replay, Duration timeout, Path hostRoot, Path driverRoot, String akashTable, String pathVariable) {
        this.replay = replay;
        this.host = new HostOptions(timeout, hostRoot, driverRoot, akashTable, pathVariable);
    }

    AkashTableReader akashTableReader() {
        return host.akashTableReader();
    }

    String akashTable() {
        return host.akashTable();
    }

    public Tables tables(Source source) throws TableException {
        return host.tables(source);
    }

    public ProbeSettings probeSettings() {
        return host.probeSettings();
    }

    /**
     * The source to detect from; a bundle that cannot be opened, a folder that holds no bundle file, or a
     * {@code --host-root} that is no folder, is a one-line error for the user.
     */
    public Source source() throws BundleException {
        if (replay != null) {
            return BundleSource.open(replay, Probes.bundleFiles(Probes.defaults(probeSettings())));
        }
        Path hostRoot = host.hostRoot;
        if (!Files.isDirectory(hostRoot)) {
            // Said as what it is, before a pass that would find no PCI bus under it and blame a /sys not mounted.
            throw new BundleException("--host-root " + hostRoot + ": "
                    + (Files.exists(hostRoot) ? "not a folder" : "no such folder"));
        }
        return live();
    }

    /** What one detection reads: the source and the id tables for it. */
    public record Input(Source source, Tables tables) {
    }

    /** {@link #source} and {@link #tables} for it, each with its one-line error. */
    public Input input() throws BundleException, TableException {
        Source source = source();
        return new Input(source, tables(source));
    }

    /** One detection with the default probes under these options' settings; NVML is shut down after it. */
    public Inventory detect(Input input) {
        return host.detect(input);
    }

    /** As {@link HostOptions#detectBeforeExit}. */
    public Inventory detectBeforeExit(Input input) {
        return host.detectBeforeExit(input);
    }

    public LiveSource live() {
        return host.live();
    }
}
