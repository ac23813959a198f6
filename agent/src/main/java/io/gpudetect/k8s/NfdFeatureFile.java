package io.gpudetect.k8s;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.SortedMap;

/**
 * Writes the labels to a Node Feature Discovery {@code features.d} file ({@code key=value} lines) for NFD's
 * worker to publish, instead of patching the node. Written atomically (temporary file, then rename) and
 * only when the content changes, so NFD never reads half a file.
 */
public final class NfdFeatureFile {

    private final Path file;

    public NfdFeatureFile(Path file) {
        this.file = file;
    }

    public Path file() {
        return file;
    }

    public static String render(SortedMap<String, String> labels) {
        StringBuilder b = new StringBuilder("# Written by gpu-detect; rewritten after every complete pass.\n");
        labels.forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
        return b.toString();
    }

    /** Writes the file; returns false when it already held exactly this content. */
    public boolean write(SortedMap<String, String> labels) throws IOException {
        String content = render(labels);
        if (Files.isRegularFile(file) && Files.readString(file, StandardCharsets.UTF_8).equals(content)) {
            return false;
        }
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path tmp = Files.createTempFile(parent, ".gpu-detect", ".tmp");
        Files.writeString(tmp, content, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return true;
    }
}
