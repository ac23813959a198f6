package io.gpudetect.source;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * This host: runs tools with a time limit and a cap on what is read, and reads files under a root
 * ({@code /} normally; the folder where a container mounts the host's {@code /sys} otherwise).
 */
public final class LiveSource implements Source {

    /** A tool that prints more than this is cut off: a runaway tool must not exhaust the heap. */
    public static final int DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
    /** Sysfs attributes are a few bytes, the host's pci.ids about 1.4 MB; nothing we read is larger. */
    public static final int MAX_FILE_BYTES = 4 * 1024 * 1024;
    /**
     * A sysfs attribute answers in microseconds; one that has not answered in this time is stuck on a
     * device that no longer responds (a GPU fallen off the bus can hang reads of its config space).
     */
    public static final Duration DEFAULT_FILE_READ_TIMEOUT = Duration.ofSeconds(2);
    /**
     * How many host paths keep their {@code Path} ({@link #resolve}): more than a steady pass reads on an 8-GPU server
     * (its DRM cards' links, each non-NVIDIA GPU's config and RAS counts, the modules' versions: a few dozen, ~100 for
     * eight AMD GPUs), few enough that the paths a full detection reads once (thousands) keep ~100 KiB at most (an
     * estimate: ~400 bytes a path, its text, its {@code Path} and {@code File}).
     */
    static final int RESOLVED_KEPT = 256;
    /** The loaded kernel modules' folders: read on the caller's thread ({@link #read}). */
    private static final String MODULES = "/sys/module/";
    /** How long a tool gets to exit after SIGTERM before it is killed outright. */
    private static final Duration GRACE = Duration.ofMillis(500);
    /** The file type bits of {@code unix:mode} that mark a named pipe. */
    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;

    private final Path root;
    private final ToolSearch tools;
    private final Duration timeout;
    private final int maxOutputBytes;
    private final Duration fileReadTimeout;
    /**
     * Reads files on its own threads so that a read that never returns cannot hold up the pass. Idle
     * threads end after a few seconds, and are daemons, so a source needs no closing.
     */
    private final FileReaders fileReaders = new FileReaders();
    /** Each folder's last listing ({@link #list}): the folders the probes list, a few dozen on a GPU server. */
    private final Map<String, Listing> listings = new ConcurrentHashMap<>();
    /**
     * The {@code Path} of each host path last asked for, the most recently used {@link #RESOLVED_KEPT} of them
     * ({@link #resolve}); guarded by itself.
     */
    private final LinkedHashMap<String, Resolved> resolved = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Resolved> eldest) {
            return size() > RESOLVED_KEPT;
        }
    };

    public LiveSource(Path root, Duration timeout, int maxOutputBytes) {
        this(root, ToolSearch.systemPath(), timeout, maxOutputBytes, DEFAULT_FILE_READ_TIMEOUT);
    }

    public LiveSource(Path root, Duration timeout, int maxOutputBytes, Duration fileReadTimeout) {
        this(root, ToolSearch.systemPath(), timeout, maxOutputBytes, fileReadTimeout);
    }

    /** @param tools where tools are looked for (the driver root's, then {@code PATH}) */
    public LiveSource(Path root, ToolSearch tools, Duration timeout, int maxOutputBytes) {
        this(root, tools, timeout, maxOutputBytes, DEFAULT_FILE_READ_TIMEOUT);
    }

    public LiveSource(Path root, ToolSearch tools, Duration timeout, int maxOutputBytes, Duration fileReadTimeout) {
        this.root = root;
        this.tools = tools;
        this.timeout = timeout;
        this.maxOutputBytes = maxOutputBytes;
        this.fileReadTimeout = fileReadTimeout;
    }

    public static LiveSource of(Duration timeout) {
        return new LiveSource(Path.of("/"), timeout, DEFAULT_MAX_OUTPUT_BYTES);
    }

    public Duration timeout() {
        return timeout;
    }

    @Override
    public ToolResult run(ToolCommand command) {
        if (!command.runsOnLiveHost()) {
            return new ToolResult.Absent(command.bundleFile() + " is only read from a recorded bundle");
        }
        Optional<ToolSearch.Located> tool = tools.locate(command.argv().get(0));
        if (tool.isEmpty()) {
            return new ToolResult.Absent(command.argv().get(0) + " is not installed or not on PATH"
                    + (tools.driverRoot() == null ? "" : " nor under the driver root " + tools.driverRoot()));
        }
        List<String> argv = new java.util.ArrayList<>(command.argv());
        argv.set(0, tool.get().executable().toString());
        Process process;
        try {
            ProcessBuilder builder = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.PIPE);
            builder.environment().putAll(tool.get().environment());
            process = builder.start();
            process.getOutputStream().close();
        } catch (IOException e) {
            return new ToolResult.Failed(tool.get().executable() + " could not be started: " + e.getMessage());
        }
        CappedReader out = CappedReader.start(process.getInputStream(), maxOutputBytes, "stdout");
        CappedReader err = CappedReader.start(process.getErrorStream(), 64 * 1024, "stderr");
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                kill(process);
                return new ToolResult.TimedOut(timeout, out.text(GRACE));
            }
            return new ToolResult.Completed(out.text(GRACE), err.text(GRACE), process.exitValue(), out.truncated());
        } catch (InterruptedException e) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return new ToolResult.Failed("interrupted while waiting for " + command.commandLine());
        }
    }

    private static void kill(Process process) throws InterruptedException {
        // Children first: a shell wrapper that dies leaves its child holding our pipes open. The list is
        // kept, because once the parent is gone its orphans are no longer its descendants.
        java.util.List<ProcessHandle> children = new java.util.ArrayList<>(process.descendants().toList());
        children.forEach(ProcessHandle::destroy);
        process.destroy();
        if (!process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
            process.descendants().forEach(children::add);
            process.destroyForcibly();
            process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS);
        }
        // A child that ignored SIGTERM outlives a parent that obeyed it.
        children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }

    /**
     * The {@code Path} of a host path under the root. A steady pass of the agent asks for the same few dozen paths
     * every time, in the interpreter, where making a {@code Path} from text (the text checked and encoded, then joined
     * to the root's) was most of a link read: ~10-20 us against ~7 for the {@code readlink} itself
     * (docs/performance.md, "The steady pass on a real server's sysfs, again"). So the most recently used paths keep
     * theirs; a path names the same file under the same root for as long as the source lives.
     */
    Path resolve(String hostPath) {
        return resolved(hostPath).path;
    }

    private Resolved resolved(String hostPath) {
        synchronized (resolved) {
            Resolved r = resolved.get(hostPath);
            if (r == null) {
                r = new Resolved(root.resolve(hostPath.startsWith("/") ? hostPath.substring(1) : hostPath));
                resolved.put(hostPath, r);
            }
            return r;
        }
    }

    /** A host path's {@code Path} under the root, and its {@code File} once asked for (as {@code java.io} reads it). */
    private static final class Resolved {
        final Path path;
        /** Made on first use; two threads making it at once make equal ones. */
        private File file;

        Resolved(Path path) {
            this.path = path;
        }

        File file() {
            File f = file;
            if (f == null) {
                f = path.toFile();
                file = f;
            }
            return f;
        }
    }

    /**
     * Reads at most {@link #MAX_FILE_BYTES} of a file, giving up after the file read timeout with an
     * {@link IOException} naming the file. Anything that is not a directory is read, named pipes and
     * devices included, because a sysfs attribute that blocks looks like a regular file.
     */
    @Override
    public Optional<String> readFile(String path) throws IOException {
        return read(path, MAX_FILE_BYTES).map(bytes -> new String(bytes, StandardCharsets.UTF_8));
    }

    /** Like {@link #readFile}, with the same time limit, for at most {@code maxBytes} (and {@link #MAX_FILE_BYTES}). */
    @Override
    public Optional<byte[]> readBytes(String path, int maxBytes) throws IOException {
        return read(path, Math.max(0, Math.min(maxBytes, MAX_FILE_BYTES)));
    }

    private Optional<byte[]> read(String path, int maxBytes) throws IOException {
        Resolved r = resolved(path);
        File f = r.file();
        // java.io's checks: each one stat, as Files.exists and Files.isDirectory make, for half their cost in the
        // interpreter.
        if (!f.exists() || f.isDirectory()) {
            return Optional.empty();
        }
        if (path.startsWith(MODULES)) {
            // A module's attributes (its version, its state) are the kernel's own strings, not a device's registers:
            // nothing there waits on hardware. The agent reads the nvidia module's version at every steady pass, and
            // handing the read to the file-read thread and waiting for it was ~0.1 ms of the interpreted pass
            // thread, six times the read (docs/performance.md, "The steady pass on a real server's sysfs").
            // FileInputStream: a fifth of Files.newInputStream's cost for a few bytes, in the interpreter.
            try (InputStream in = new FileInputStream(f)) {
                return Optional.of(FileReaders.readAtMost(in, maxBytes));
            } catch (FileNotFoundException e) {
                if (!f.exists()) {
                    return Optional.empty();   // unloaded since
                }
                throw e;
            }
        }
        try {
            return fileReaders.read(f, maxBytes, fileReadTimeout.toNanos());
        } catch (TimeoutException e) {
            releaseBlockedPipe(r.path);
            throw new IOException(path + ": no answer within " + fileReadTimeout.toMillis()
                    + " ms; the read was abandoned (a device that hangs on read, or a named pipe)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while reading " + path);
        }
    }

    /**
     * A thread blocked opening a named pipe waits for a writer; opening the pipe for writing, and closing
     * it at once, lets that thread see the end of the file and finish. Only done for pipes: opening a
     * sysfs attribute for writing is never right, and a thread stuck in a device read cannot be freed.
     */
    private static void releaseBlockedPipe(Path p) {
        try {
            Object mode = Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            if (mode instanceof Integer m && (m & S_IFMT) == S_IFIFO) {
                Files.newOutputStream(p, StandardOpenOption.WRITE).close();
            }
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException ignored) {
            // Not a pipe, or no unix view: the reading thread stays blocked; it is a daemon.
        }
    }

    /**
     * Answers the entries of a folder, sorted. The agent lists the PCI bus at every steady pass, in the interpreter,
     * and sorting a real server's bus (300 functions, names alike for their first 5-8 characters) took ~2.5 ms of
     * the pass thread there, against ~0.2 ms to name the entries (docs/performance.md, "The steady pass on a real
     * server's sysfs"). So the last listing of each folder is kept as the kernel answered it: the same names in the
     * same order (sysfs answers a folder that did not change in the same order) answer the same sorted list, the very
     * object, which the fingerprint's comparison then passes at once. A folder that changed, or that the kernel
     * answers in another order, is sorted again. {@code File.list} names the entries in one native call (a
     * directory stream makes two {@code Path}s of each); it answers null, without saying why, for what it could not
     * list: the stream then says why.
     */
    @Override
    public List<String> list(String directory) throws IOException {
        Listing last = listings.get(directory);
        File folder = last != null ? last.folder() : resolve(directory).toFile();
        String[] listed = folder.list();
        if (listed == null) {
            listings.remove(directory);
            return listSayingWhy(resolve(directory));
        }
        if (last != null && sameNames(listed, last.asListed())) {
            return last.sorted();
        }
        String[] sorted = listed.clone();
        Arrays.sort(sorted);
        List<String> names = Collections.unmodifiableList(Arrays.asList(sorted));
        listings.put(directory, new Listing(folder, listed, names));
        return names;
    }

    /** The same names in the same order: {@code Arrays.equals} without its {@code Objects.equals} call a name. */
    private static boolean sameNames(String[] listed, String[] last) {
        if (listed.length != last.length) {
            return false;
        }
        for (int i = 0; i < listed.length; i++) {
            if (!listed[i].equals(last[i])) {
                return false;
            }
        }
        return true;
    }

    /** What a folder held when it was last listed, in the kernel's order and sorted. */
    private record Listing(File folder, String[] asListed, List<String> sorted) {
    }

    /** A folder {@code File.list} could not list: nothing when it is none, else the reason it cannot be read. */
    private static List<String> listSayingWhy(Path p) throws IOException {
        if (!Files.isDirectory(p)) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(p)) {
            for (Path entry : entries) {
                names.add(entry.getFileName().toString());
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            return List.of();
        }
        Collections.sort(names);
        return Collections.unmodifiableList(names);
    }

    @Override
    public Optional<String> readLink(String path) throws IOException {
        Path p = resolve(path);
        try {
            // Read first, asked after: the agent reads each GPU's driver link at every steady pass, and a link that
            // is there (the usual case) then costs one call instead of two.
            return Optional.of(Files.readSymbolicLink(p).toString());
        } catch (IOException e) {
            if (!Files.isSymbolicLink(p)) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @Override
    public boolean exists(String path) {
        // java.io's stat follows links: what it finds is there. What it does not find may still be a link to nothing,
        // which only NIO's lstat tells; that lstat answers a path that is there with a set of attributes (~10 us in
        // the interpreter: the agent asks for /sys/class/drm at every pass) and one that is not with an exception.
        Resolved r = resolved(path);
        return r.file().exists() || Files.exists(r.path, LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    public String describe() {
        return root.toString().equals("/") ? "this host" : "this host (root " + root + ")";
    }

    @Override
    public boolean isRecorded() {
        return false;
    }

    @Override
    public boolean consultsOnlyWhatIsNeeded() {
        return true;
    }

    /** Drains a stream on its own thread, keeping at most {@code cap} bytes and discarding the rest. */
    private static final class CappedReader {
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private final Thread thread;
        private volatile boolean truncated;

        private CappedReader(InputStream in, int cap, String name) {
            thread = new Thread(() -> drain(in, cap), "tool-" + name);
            thread.setDaemon(true);
        }

        static CappedReader start(InputStream in, int cap, String name) {
            CappedReader r = new CappedReader(in, cap, name);
            r.thread.start();
            return r;
        }

        private void drain(InputStream in, int cap) {
            byte[] buf = new byte[8192];
            try (in) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    synchronized (kept) {
                        int room = cap - kept.size();
                        if (room > 0) {
                            kept.write(buf, 0, Math.min(room, n));
                        }
                        if (n > room) {
                            truncated = true;
                        }
                    }
                }
            } catch (IOException ignored) {
                // The process was killed or closed its end; what was read so far is kept.
            }
        }

        String text(Duration wait) throws InterruptedException {
            thread.join(wait.toMillis());
            synchronized (kept) {
                return kept.toString(StandardCharsets.UTF_8);
            }
        }

        boolean truncated() {
            return truncated;
        }
    }
}
