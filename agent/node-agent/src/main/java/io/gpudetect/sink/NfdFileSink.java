package io.gpudetect.sink;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.SortedMap;

/**
 * The labels as a Node Feature Discovery {@code features.d} file ({@code key=value} lines) for NFD's worker
 * to publish, instead of patching the node. Written atomically (temporary file, then rename) and only when
 * the content changes, so NFD never reads half a file; readable by all (mode 0644), since NFD's worker runs
 * as another user and the file holds nothing secret.
 */
public final class NfdFileSink implements Sink<NfdFileSink.Held, NfdFileSink.FileChange> {

    private final Path file;

    public NfdFileSink(Path file) {
        this.file = file;
    }

    /** The file's new content; null when the file is kept as it is, for {@code reason}. */
    public record FileChange(Path file, String content, String reason) implements Change {
        @Override
        public boolean writes() {
            return content != null;
        }

        @Override
        public String summary() {
            return writes() ? "write " + file : "none";
        }

        @Override
        public String preview() {
            return writes() ? "# would write " + file + "\n" + content : "";
        }
    }

    /** The file's content as read; null when there is no file (or the pass is incomplete and it was not read). */
    public record Held(String content) {
    }

    public static String render(SortedMap<String, String> labels) {
        StringBuilder b = new StringBuilder("# Written by gpu-detect; rewritten after every complete pass.\n");
        labels.forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
        return b.toString();
    }

    @Override
    public String name() {
        return "nfd-file";
    }

    @Override
    public Held read(DesiredState desired) throws IOException {
        return new Held(desired.complete() && Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.UTF_8)
                : null);
    }

    @Override
    public FileChange decide(Held current, DesiredState desired) {
        if (!desired.complete()) {
            return new FileChange(file, null, "pass incomplete: features file kept");
        }
        String content = render(desired.labels());
        if (content.equals(current.content())) {
            return new FileChange(file, null, "features file up to date");
        }
        return new FileChange(file, content, null);
    }

    /** Writes the file; a file is no API request, so this returns 0. */
    @Override
    public int apply(FileChange change) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path tmp = Files.createTempFile(parent, ".gpu-detect", ".tmp");
        Files.writeString(tmp, change.content(), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return 0;
    }
}
