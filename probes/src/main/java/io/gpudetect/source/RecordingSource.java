package io.gpudetect.source;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A live host that writes down everything the probes asked of it, producing a bundle that
 * {@link BundleSource} replays: each tool's output under its bundle file name, each file read under
 * {@code sys/...} at its real location, each symbolic link listed as the same link. Running the
 * normal probes through it is what {@code gpu-detect record} does, so a bundle holds exactly what
 * detection reads.
 */
public final class RecordingSource implements Source {

    private final LiveSource live;
    private final Path dir;
    private final Map<String, BundleManifest.Run> runs = new TreeMap<>();
    private final java.util.List<String> writeErrors = new java.util.ArrayList<>();
    private final boolean everySource;

    /** A recording of what a live pass consults: the sources its probe plan needs. */
    public RecordingSource(LiveSource live, Path dir) {
        this(live, dir, false);
    }

    /** @param everySource consult every source, needed or not (a bug report about the plan itself) */
    public RecordingSource(LiveSource live, Path dir, boolean everySource) {
        this.live = live;
        this.dir = dir;
        this.everySource = everySource;
    }

    @Override
    public ToolResult run(ToolCommand command) {
        if (!command.runsOnLiveHost()) {
            // Noted in the manifest too, so that a replay explains the missing file in the same words.
            ToolResult result = live.run(command);
            if (result instanceof ToolResult.Absent absent) {
                synchronized (runs) {
                    runs.put(command.bundleFile(), new BundleManifest.Run(null, "absent", null, null, absent.reason(), null, null));
                }
            }
            return result;
        }
        long start = System.nanoTime();
        ToolResult result = live.run(command);
        long ms = Duration.ofNanos(System.nanoTime() - start).toMillis();
        String line = command.commandLine();
        BundleManifest.Run run;
        if (result instanceof ToolResult.Completed c) {
            write(command.bundleFile(), c.stdout());
            run = new BundleManifest.Run(line, "completed", c.exitCode(), c.stderr(), null, ms,
                    c.truncated() ? Boolean.TRUE : null);
        } else if (result instanceof ToolResult.TimedOut t) {
            write(command.bundleFile(), t.partialStdout());
            run = new BundleManifest.Run(line, "timed-out", null, null,
                    "killed after " + t.limit().toMillis() + " ms", ms, null);
        } else if (result instanceof ToolResult.Absent a) {
            run = new BundleManifest.Run(line, "absent", null, null, a.reason(), ms, null);
        } else {
            run = new BundleManifest.Run(line, "failed", null, null, ((ToolResult.Failed) result).reason(), ms, null);
        }
        synchronized (runs) {
            runs.put(command.bundleFile(), run);
        }
        return result;
    }

    /** Writes a file the caller produced itself (the NVML snapshot, for example) into the bundle. */
    public void writeBundleFile(String name, String content) {
        write(name, content);
    }

    private void write(String relative, String content) {
        write(relative, content.getBytes(StandardCharsets.UTF_8));
    }

    private void write(String relative, byte[] content) {
        try {
            Path target = dir.resolve(relative);
            Files.createDirectories(target.getParent());
            Files.write(target, content);
        } catch (IOException e) {
            synchronized (writeErrors) {
                writeErrors.add(IoFailure.describe(e, dir.resolve(relative)));
            }
        }
    }

    @Override
    public Optional<String> readFile(String path) throws IOException {
        Optional<String> content = live.readFile(path);
        if (content.isPresent()) {
            // Written at the real location so that links recorded by list() lead to it.
            Path real = live.resolve(path).toRealPath();
            write(relativeToRoot(real), content.get());
        }
        return content;
    }

    /** Records the bytes read, as read: a replay then sees the same (possibly shortened) file. */
    @Override
    public Optional<byte[]> readBytes(String path, int maxBytes) throws IOException {
        Optional<byte[]> content = live.readBytes(path, maxBytes);
        if (content.isPresent()) {
            Path real = live.resolve(path).toRealPath();
            write(relativeToRoot(real), content.get());
        }
        return content;
    }

    private String relativeToRoot(Path real) {
        Path root = live.resolve("/").toAbsolutePath().normalize();
        return root.relativize(real).toString();
    }

    @Override
    public List<String> list(String directory) throws IOException {
        List<String> names = live.list(directory);
        for (String name : names) {
            String child = directory.endsWith("/") ? directory + name : directory + "/" + name;
            Optional<String> link = live.readLink(child);
            if (link.isPresent()) {
                recordLink(child, link.get());
            }
        }
        return names;
    }

    @Override
    public Optional<String> readLink(String path) throws IOException {
        Optional<String> link = live.readLink(path);
        if (link.isPresent()) {
            recordLink(path, link.get());
        }
        return link;
    }

    private void recordLink(String hostPath, String target) {
        try {
            Path linkPath = dir.resolve(hostPath.substring(1));
            Files.createDirectories(linkPath.getParent());
            if (!Files.exists(linkPath, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                Files.createSymbolicLink(linkPath, Path.of(target));
            }
        } catch (IOException | UnsupportedOperationException e) {
            synchronized (writeErrors) {
                writeErrors.add(hostPath + ": " + e.getMessage());
            }
        }
    }

    @Override
    public boolean exists(String path) {
        return live.exists(path);
    }

    @Override
    public String describe() {
        return live.describe() + ", recording to " + dir;
    }

    @Override
    public boolean isRecorded() {
        return false;
    }

    @Override
    public boolean consultsOnlyWhatIsNeeded() {
        return !everySource;
    }

    /** Writes {@code bundle.json}; returns the problems met while writing the bundle (empty when none). */
    public List<String> finish(String host, String version) throws IOException {
        BundleManifest manifest;
        synchronized (runs) {
            manifest = new BundleManifest(host, Instant.now().toString(), version, runs);
        }
        Files.createDirectories(dir);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(dir.resolve(BundleManifest.FILE_NAME).toFile(), manifest);
        synchronized (writeErrors) {
            return List.copyOf(writeErrors);
        }
    }
}
