package io.gpudetect.source;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A recorded host: a folder holding tool outputs by bundle file name ({@code nvidia-smi.xml}), a
 * {@code sys/} tree mirroring {@code /sys}, and optionally {@code bundle.json}. Nothing outside the
 * folder is ever read, even through a symbolic link inside it.
 */
public final class BundleSource implements Source {

    /** A manifest is three objects deep; nesting much deeper is not one, and must not exhaust the stack. */
    static final int MAX_MANIFEST_DEPTH = 32;
    /** What 'record' writes is a few kB; the stderr it keeps per tool is capped at 64 kB. */
    static final long MAX_MANIFEST_BYTES = 4L * 1024 * 1024;

    /** The parser of a manifest: jackson-core's limits, so that a hostile file is one line of error, not a crash. */
    private static JsonFactory manifestFactory() {
        return JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(MAX_MANIFEST_DEPTH)
                        .maxDocumentLength(MAX_MANIFEST_BYTES)
                        .maxStringLength((int) MAX_MANIFEST_BYTES)
                        .build())
                .build();
    }

    /**
     * {@code bundle.json} read member by member ({@link JsonMembers}; an object mapper cost a replay of a recorded
     * bundle ~60 ms: docs/performance.md, "Start-up and footprint tricks", row "bundle files read without databind").
     */
    private static BundleManifest readManifest(Path file) throws IOException {
        try (JsonParser p = manifestFactory().createParser(file.toFile())) {
            try {
                return manifest(p);
            } catch (JsonProcessingException e) {
                throw JsonMembers.plain(p, e);
            }
        }
    }

    /** The manifest the parser, at the start of the file, reads. */
    private static BundleManifest manifest(JsonParser p) throws IOException {
        p.nextToken();
        if (!JsonMembers.object(p, null)) {
            // The JSON literal null reads as no object at all.
            throw JsonMembers.wrong(p, null, "a JSON object");
        }
        String host = null;
        String recordedAt = null;
        String version = null;
        Map<String, BundleManifest.Run> commands = new TreeMap<>();
        for (String m = JsonMembers.nextMember(p); m != null; m = JsonMembers.nextMember(p)) {
            switch (m) {
                case "host" -> host = JsonMembers.text(p, m);
                case "recordedAt" -> recordedAt = JsonMembers.text(p, m);
                case "gpuDetectVersion" -> version = JsonMembers.text(p, m);
                case "commands" -> {
                    if (JsonMembers.object(p, m)) {
                        for (String bundleFile = JsonMembers.nextMember(p); bundleFile != null; bundleFile = JsonMembers.nextMember(p)) {
                            if (JsonMembers.object(p, "commands." + bundleFile)) {
                                commands.put(bundleFile, run(p, "commands." + bundleFile));
                            }
                        }
                    }
                }
                default -> JsonMembers.skip(p);
            }
        }
        JsonMembers.end(p);
        return new BundleManifest(host, recordedAt, version, commands);
    }

    /** One command's entry of the manifest, the parser inside its object. */
    private static BundleManifest.Run run(JsonParser p, String member) throws IOException {
        String command = null;
        String status = null;
        Integer exitCode = null;
        String stderr = null;
        String detail = null;
        Long durationMs = null;
        Boolean truncated = null;
        for (String m = JsonMembers.nextMember(p); m != null; m = JsonMembers.nextMember(p)) {
            String at = member + "." + m;
            switch (m) {
                case "command" -> command = JsonMembers.text(p, at);
                case "status" -> status = JsonMembers.text(p, at);
                case "exitCode" -> exitCode = JsonMembers.integer(p, at);
                case "stderr" -> stderr = JsonMembers.text(p, at);
                case "detail" -> detail = JsonMembers.text(p, at);
                case "durationMs" -> durationMs = JsonMembers.whole(p, at);
                case "truncated" -> truncated = JsonMembers.bool(p, at);
                default -> JsonMembers.skip(p);
            }
        }
        return new BundleManifest.Run(command, status, exitCode, stderr, detail, durationMs, truncated);
    }

    private final Path dir;
    private final Path realDir;
    private final BundleManifest manifest;

    private BundleSource(Path dir, Path realDir, BundleManifest manifest) {
        this.dir = dir;
        this.realDir = realDir;
        this.manifest = manifest;
    }

    /**
     * Opens a bundle that holds at least one of {@code toolFiles}, a {@code sys/} tree or {@code bundle.json};
     * fails with a one-line reason for a folder that holds none (empty, or the parent of bundle folders), that
     * cannot be read, or whose {@code bundle.json} is unusable.
     */
    public static BundleSource open(Path dir, List<String> toolFiles) throws BundleException {
        BundleSource bundle = open(dir);
        List<String> entries = entries(dir);
        if (holdsAnyOf(dir, toolFiles)) {
            return bundle;
        }
        List<String> bundles = new ArrayList<>();
        for (String entry : entries) {
            Path sub = dir.resolve(entry);
            if (Files.isDirectory(sub, LinkOption.NOFOLLOW_LINKS) && holdsAnyOf(sub, toolFiles)) {
                bundles.add(entry);
            }
        }
        if (!bundles.isEmpty()) {
            throw new BundleException(dir + " holds no bundle file but " + bundles.size() + " bundle folder"
                    + (bundles.size() == 1 ? "" : "s") + " (" + String.join(", ", bundles.subList(0, Math.min(3, bundles.size())))
                    + (bundles.size() > 3 ? ", ..." : "") + "); replay one of them: --replay " + dir.resolve(bundles.get(0)));
        }
        throw new BundleException(dir + (entries.isEmpty() ? " is empty" : " holds none of the files a bundle has")
                + " (expected one of " + String.join(", ", toolFiles) + ", sys/, " + BundleManifest.FILE_NAME
                + "); replay the folder 'gpu-detect record' wrote");
    }

    /** The names in a bundle folder; an unreadable folder is a one-line reason. */
    private static List<String> entries(Path dir) throws BundleException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new BundleException("cannot read bundle folder " + IoFailure.describe(e, dir));
        }
    }

    /**
     * Opens a folder as a bundle, whatever it holds; fails with a one-line reason when the folder or its
     * {@code bundle.json} is unusable. {@link #open(Path, List)} also refuses a folder without bundle files.
     */
    public static BundleSource open(Path dir) throws BundleException {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(dir, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw new BundleException(dir + " does not exist (expected a bundle folder written by 'gpu-detect record')");
        } catch (IOException e) {
            throw new BundleException("cannot read bundle folder " + IoFailure.describe(e, dir));
        }
        if (!attributes.isDirectory()) {
            throw new BundleException(dir + " is not a folder (expected a bundle written by 'gpu-detect record')");
        }
        Path realDir;
        try {
            realDir = dir.toRealPath();
        } catch (IOException e) {
            throw new BundleException("cannot read bundle folder " + IoFailure.describe(e, dir));
        }
        Path manifestFile = dir.resolve(BundleManifest.FILE_NAME);
        BundleManifest manifest = new BundleManifest(null, null, null, null);
        if (Files.isRegularFile(manifestFile)) {
            try {
                manifest = readManifest(manifestFile);
            } catch (JsonProcessingException e) {
                // One line, as JsonMembers.plain made it, at file:line:column as compilers and editors write a place.
                var loc = e.getLocation();
                throw new BundleException(manifestFile + (loc == null || loc.getLineNr() < 1 ? ""
                        : ":" + loc.getLineNr() + (loc.getColumnNr() < 1 ? "" : ":" + loc.getColumnNr()))
                        + ": not a valid bundle manifest: " + e.getOriginalMessage());
            } catch (IOException e) {
                throw new BundleException("cannot read " + IoFailure.ofFile(e, manifestFile));
            }
        }
        return new BundleSource(dir, realDir, manifest);
    }

    public Path dir() {
        return dir;
    }

    /** True when {@code dir} holds {@code bundle.json}, a {@code sys/} tree or one of {@code toolFiles}. */
    private static boolean holdsAnyOf(Path dir, List<String> toolFiles) {
        if (Files.exists(dir.resolve(BundleManifest.FILE_NAME)) || Files.isDirectory(dir.resolve("sys"))) {
            return true;
        }
        for (String file : toolFiles) {
            if (Files.exists(dir.resolve(file), LinkOption.NOFOLLOW_LINKS)) {
                return true;
            }
        }
        return false;
    }

    public BundleManifest manifest() {
        return manifest;
    }

    @Override
    public ToolResult run(ToolCommand command) {
        BundleManifest.Run run = manifest.commands().get(command.bundleFile());
        if (run != null && "timed-out".equals(run.status())) {
            return new ToolResult.TimedOut(Duration.ofMillis(run.durationMs() == null ? 0 : run.durationMs()),
                    readQuietly(command.bundleFile()));
        }
        if (run != null && "failed".equals(run.status())) {
            return new ToolResult.Failed(run.detail() == null ? "failed when recorded" : run.detail());
        }
        Path file = dir.resolve(command.bundleFile());
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            return new ToolResult.Absent(absentWhy(command, run));
        }
        try {
            Path real = inside(file);
            if (!Files.isRegularFile(real)) {
                // A named pipe or device would block the replay forever; a folder is no output either.
                return new ToolResult.Failed(command.bundleFile() + " in the bundle is not a regular file");
            }
            byte[] bytes;
            try (InputStream in = Files.newInputStream(real)) {
                bytes = in.readNBytes(LiveSource.DEFAULT_MAX_OUTPUT_BYTES + 1);
            }
            boolean truncated = bytes.length > LiveSource.DEFAULT_MAX_OUTPUT_BYTES;
            String text = new String(bytes, 0, Math.min(bytes.length, LiveSource.DEFAULT_MAX_OUTPUT_BYTES),
                    StandardCharsets.UTF_8);
            int exit = run != null && run.exitCode() != null ? run.exitCode() : 0;
            String stderr = run != null && run.stderr() != null ? run.stderr() : "";
            return new ToolResult.Completed(text, stderr, exit, truncated);
        } catch (IOException e) {
            return new ToolResult.Failed("cannot read " + IoFailure.ofFile(e, file));
        }
    }

    /**
     * Why the bundle holds no output of {@code command}, as the recording shows it, never as this machine sees it:
     * a tool the recorded host lacked ({@code record} wrote what it found when it looked), a file the bundle does
     * not hold; null (nothing to say) for a format {@code record} never writes (a pasted {@code nvidia-smi} table),
     * which its manifest lists as absent with no command: a recorded bundle lacks it by design.
     */
    private String absentWhy(ToolCommand command, BundleManifest.Run run) {
        String host = manifest.host() == null || manifest.host().isBlank() ? "the recorded host" : "host " + manifest.host();
        if (run != null && "absent".equals(run.status()) && run.command() != null) {
            // The detail is what the recording machine said at the time ("amd-smi is not installed or not on PATH"):
            // said again in the past, of the recorded host, as 'record' found it.
            String tool = run.command().split(" ", 2)[0];
            String detail = run.detail() == null ? "" : run.detail().startsWith(tool + " is ")
                    ? run.detail().substring(tool.length() + 4) : run.detail();
            return host + " had no " + tool + " when it was recorded" + (detail.isEmpty() ? "" : " (" + detail + ")");
        }
        if (run != null && "absent".equals(run.status()) && run.command() == null) {
            // What 'record' writes for a format it never runs ("nvidia-smi.txt is only read from a recorded bundle").
            return null;
        }
        return "the bundle has no " + command.bundleFile();
    }

    /**
     * Why a file or folder the bundle holds cannot be read (permission denied, not a regular file, a link out of
     * the bundle, a folder on the way that cannot be entered); empty when it can be, or is simply not there.
     * {@code path} is a bundle file name ({@code nvml.json}) or a host path ({@code /sys/bus/pci/devices}).
     */
    @Override
    public Optional<String> unreadable(String path) {
        Path p = map(path);
        try {
            if (attributes(p).isEmpty()) {
                return Optional.empty();
            }
            Path real = inside(p);
            if (Files.isDirectory(real)) {
                try (Stream<Path> s = Files.list(real)) {
                    s.findFirst();
                }
                return path.startsWith("/") ? Optional.empty()
                        : Optional.of(dir.relativize(p) + " in the bundle is a folder, not a file");
            }
            if (!Files.isRegularFile(real)) {
                return Optional.of(dir.relativize(p) + " in the bundle is not a regular file");
            }
            try (InputStream in = Files.newInputStream(real)) {
                in.read();
            }
            return Optional.empty();
        } catch (IOException e) {
            String why = describe(e);
            return Optional.of(why.contains(" in the bundle ") ? why : entry(p) + " in the bundle cannot be read: " + why);
        }
    }

    /**
     * The entry's attributes; empty when it, or a folder above it inside the bundle, does not exist. A folder above
     * it that cannot be entered (permission denied) or is a file is the failure of that folder, named: an unreadable
     * {@code sys/} is never read as a host without a PCI bus.
     */
    private Optional<BasicFileAttributes> attributes(Path p) throws IOException {
        try {
            return Optional.of(Files.readAttributes(p, BasicFileAttributes.class));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            // Which folder on the way stops it, from the bundle's own folder down.
            Path at = dir;
            for (Path part : dir.relativize(p)) {
                BasicFileAttributes a;
                try {
                    a = Files.readAttributes(at, BasicFileAttributes.class);
                } catch (NoSuchFileException missing) {
                    return Optional.empty();
                } catch (IOException failed) {
                    throw new IOException(entry(at) + " in the bundle cannot be read: " + IoFailure.reason(failed));
                }
                if (!a.isDirectory()) {
                    throw new IOException(entry(at) + " in the bundle is not a folder");
                }
                if (!Files.isReadable(at) || !Files.isExecutable(at)) {
                    throw new IOException(entry(at) + " in the bundle cannot be read: permission denied");
                }
                at = at.resolve(part);
            }
            throw new IOException(entry(p) + " in the bundle cannot be read: " + IoFailure.reason(e));
        }
    }

    /** A bundle entry as a person names it: {@code sys/bus}; the bundle's own folder by its path. */
    private String entry(Path p) {
        return p.equals(dir) ? dir.toString() : dir.relativize(p).toString();
    }

    /** An I/O failure's reason; one this class worded (it names the bundle entry) as it is. */
    private static String describe(IOException e) {
        return e.getMessage() != null && e.getMessage().contains(" in the bundle ") ? e.getMessage() : IoFailure.reason(e);
    }

    private String readQuietly(String name) {
        try {
            Path real = inside(dir.resolve(name));
            return Files.isRegularFile(real) ? Files.readString(real, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "";
        }
    }

    /** The real path of a bundle entry, refusing anything that resolves outside the bundle. */
    private Path inside(Path p) throws IOException {
        Path real = p.toRealPath();
        if (!real.startsWith(realDir)) {
            throw new IOException(dir.relativize(p) + " points outside the bundle");
        }
        return real;
    }

    private Path map(String hostPath) {
        String rel = hostPath.startsWith("/") ? hostPath.substring(1) : hostPath;
        Path p = dir.resolve(rel).normalize();
        return p.startsWith(dir.normalize()) ? p : dir.resolve("__outside__");
    }

    @Override
    public Optional<String> readFile(String path) throws IOException {
        return read(path, LiveSource.MAX_FILE_BYTES).map(bytes -> new String(bytes, StandardCharsets.UTF_8));
    }

    @Override
    public Optional<byte[]> readBytes(String path, int maxBytes) throws IOException {
        return read(path, Math.max(0, Math.min(maxBytes, LiveSource.MAX_FILE_BYTES)));
    }

    private Optional<byte[]> read(String path, int maxBytes) throws IOException {
        Path p = map(path);
        if (!Files.exists(p)) {
            return Optional.empty();
        }
        Path real = inside(p);
        if (!Files.isRegularFile(real)) {
            return Optional.empty();
        }
        try (InputStream in = Files.newInputStream(real)) {
            return Optional.of(in.readNBytes(maxBytes));
        }
    }

    @Override
    public List<String> list(String directory) throws IOException {
        Path p = map(directory);
        Optional<BasicFileAttributes> a = attributes(p);
        if (a.isEmpty() || !Files.isDirectory(p)) {
            return List.of();
        }
        inside(p);
        try (Stream<Path> s = Files.list(p)) {
            return s.map(x -> x.getFileName().toString()).sorted().toList();
        }
    }

    @Override
    public Optional<String> readLink(String path) throws IOException {
        Path p = map(path);
        if (!Files.isSymbolicLink(p)) {
            return Optional.empty();
        }
        return Optional.of(Files.readSymbolicLink(p).toString());
    }

    @Override
    public boolean exists(String path) {
        return Files.exists(map(path), LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    public String describe() {
        return "bundle " + dir;
    }

    @Override
    public boolean isRecorded() {
        return true;
    }
}
