package io.gpudetect.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A whole bundle folder as one fuzz input, so that the fuzzer can change any file of it: sections that
 * start with a line {@code === relative/path}, the rest of the section being the file's bytes, or
 * {@code === relative/path -> target} for a symbolic link (sysfs is made of them; a target may point
 * anywhere, out of the bundle too, which the bundle must refuse). A path may go below {@code sys/};
 * unusable paths (absolute, {@code ..}, odd characters) are skipped, since a real bundle cannot hold
 * them either. {@link #of} and {@code test-fixtures/tools/make-fuzz-seeds.py} write a bundle folder in this
 * form.
 */
final class BundleText {

    static final String HEADER = "=== ";
    private static final Pattern SECTION = Pattern.compile("(?m)^=== ([^\\n]*)\\n?");
    private static final String LINK = " -> ";
    private static final Pattern SAFE_PATH = Pattern.compile("[A-Za-z0-9_.:+-]+(/[A-Za-z0-9_.:+-]+){0,15}");
    private static final int MAX_FILES = 64;
    /** tmpfs when there is one: a fuzzer writes thousands of bundles a second. */
    private static final Path SCRATCH = Files.isDirectory(Path.of("/dev/shm")) && Files.isWritable(Path.of("/dev/shm"))
            ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));

    private BundleText() {
    }

    /** A bundle folder in this form: every file and link under it, in path order (what the seeds were made of). */
    static byte[] of(Path dir) {
        StringBuilder text = new StringBuilder();
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted().toList()) {
                String name = dir.relativize(p).toString();
                if (Files.isSymbolicLink(p)) {
                    text.append(HEADER).append(name).append(LINK).append(Files.readSymbolicLink(p)).append('\n');
                } else if (Files.isRegularFile(p)) {
                    text.append(HEADER).append(name).append('\n')
                            .append(new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1)).append('\n');
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Writes the bundle into a fresh folder; the caller deletes it with {@link #delete}. */
    static Path write(byte[] input) {
        // ISO-8859-1 maps each byte to one char and back, so file contents keep their exact bytes.
        String text = new String(input, StandardCharsets.ISO_8859_1);
        Path dir;
        try {
            dir = Files.createTempDirectory(SCRATCH, "fuzz-bundle-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Matcher m = SECTION.matcher(text);
        boolean found = m.find();
        int files = 0;
        while (found && files < MAX_FILES) {
            String name = m.group(1);
            int start = m.end();
            found = m.find();
            // The line break before the next header separates sections; it is not part of the file.
            int end = found ? Math.max(start, m.start() - 1) : text.length();
            int arrow = name.indexOf(LINK);
            if (arrow > 0) {
                String target = name.substring(arrow + LINK.length());
                name = name.substring(0, arrow);
                if (usable(name) && !target.isEmpty() && linkQuietly(dir.resolve(name), target)) {
                    files++;
                }
            } else if (usable(name) && writeQuietly(dir.resolve(name), text.substring(start, end))) {
                files++;
            }
        }
        return dir;
    }

    /**
     * False when the path cannot be made: a name that is a file in one section and a folder in
     * another, which no real bundle can hold either.
     */
    private static boolean writeQuietly(Path file, String content) {
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, content.getBytes(StandardCharsets.ISO_8859_1));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean linkQuietly(Path link, String target) {
        try {
            Files.createDirectories(link.getParent());
            Files.createSymbolicLink(link, Path.of(target));
            return true;
        } catch (IOException | RuntimeException e) {
            // InvalidPathException for a NUL in the target: no file system can hold such a link.
            return false;
        }
    }

    private static boolean usable(String name) {
        return SAFE_PATH.matcher(name).matches()
                && Stream.of(name.split("/")).noneMatch(p -> p.equals(".") || p.equals(".."));
    }

    static void delete(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
