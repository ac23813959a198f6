package io.gpudetect.testing;

import io.gpudetect.inventory.Detector;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.probe.Probes;
import io.gpudetect.source.BundleException;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.Source;
import io.gpudetect.tables.Tables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * The bundles the tests replay, read through the same BundleSource and Detector as production: the hand-made
 * cases in {@code test-fixtures/}, and the real recordings, which are tool output published by others and so
 * never committed: they are read from the workspace's shared set, {@code shared/fixtures/} in a folder above
 * the module (or the folder {@code GPU_DETECT_SHARED} names). A test that needs them runs without them only as
 * skipped, with one line saying what is missing.
 */
public final class Fixtures {

    /** The list a case keeps of the real recordings it builds on ({@link #testCase}). */
    public static final String SHARED_FILES = "shared-files.txt";

    private Fixtures() {
    }

    public static Path root() {
        return Path.of(System.getProperty("gpudetect.fixtures", "../test-fixtures"));
    }

    /** The shared set's {@code fixtures} folder, when this workspace has it ({@code GPU_DETECT_SHARED}, else above). */
    public static Optional<Path> shared() {
        return io.gpudetect.probe.Fixtures.shared();
    }

    /** A file or folder of the shared set; skips the calling test, with one line, where it is absent. */
    public static Path sharedOrSkip(String relative) {
        Optional<Path> p = shared().map(s -> s.resolve(relative)).filter(Files::exists);
        Assumptions.assumeTrue(p.isPresent(), () -> "skipped: needs shared/fixtures/" + relative
                + " (the shared recordings), not found above " + root().toAbsolutePath().normalize()
                + " or in GPU_DETECT_SHARED");
        return p.get();
    }

    /** A recorded host's raw bundle, from the shared set. */
    public static Path host(String name) {
        return sharedOrSkip("hosts/" + name);
    }

    /** Every recorded host's raw bundle, sorted; skips the calling test where the shared set is absent. */
    public static List<Path> hosts() {
        return folders(sharedOrSkip("hosts"));
    }

    /** The names of the recorded hosts we hold a reviewed result for ({@code hosts/<host>/expected.json}). */
    public static List<String> recordedHostNames() {
        return folders(root().resolve("hosts")).stream().map(p -> p.getFileName().toString()).toList();
    }

    /** The hand-made cases' folders, as committed (replay them through {@link #testCase}). */
    public static List<Path> caseFolders() {
        return folders(root().resolve("cases"));
    }

    /** The bundles gpu-detect recorded itself on hardware we ran: ours, so they are in the project. */
    public static List<Path> liveBundles() {
        return folders(root().resolve("live-bundles"));
    }

    /**
     * A hand-made case, ready to replay. Where it builds on real recordings, its {@value #SHARED_FILES} says
     * how, one line each: {@code <file in the bundle> <path under shared/fixtures/>} copies a recording in,
     * {@code <file in the bundle> edit <text> => <replacement>} then changes one place in it (the text must be
     * there). The case is then replayed from a copy in {@code target/} with those files added.
     */
    public static Path testCase(String name) {
        Path dir = root().resolve("cases").resolve(name);
        Path list = dir.resolve(SHARED_FILES);
        if (!Files.isRegularFile(list)) {
            return dir;
        }
        try {
            Path copy = Path.of("target", "assembled-cases", name).toAbsolutePath();
            copyTree(dir, copy);
            List<String> lines = Files.readAllLines(list);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).strip();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                String where = list + ":" + (i + 1) + ": ";
                String[] parts = line.split("\\s+", 3);
                if (parts.length == 2) {
                    Files.copy(sharedOrSkip(parts[1]), copy.resolve(parts[0]), StandardCopyOption.REPLACE_EXISTING);
                } else if (parts.length == 3 && parts[1].equals("edit") && parts[2].contains(" => ")) {
                    String[] change = parts[2].split(" => ", 2);
                    String text = Files.readString(copy.resolve(parts[0]));
                    if (!text.contains(change[0])) {
                        throw new IllegalStateException(where + parts[0] + " does not hold '" + change[0] + "'");
                    }
                    Files.writeString(copy.resolve(parts[0]), text.replace(change[0], change[1]));
                } else {
                    throw new IllegalStateException(where + "expected '<file> <path under shared/fixtures/>' or "
                            + "'<file> edit <text> => <replacement>', got: " + line);
                }
            }
            return copy;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code hosts/NAME} (a shared recording) or {@code cases/NAME} (a hand-made case), ready to replay. */
    public static Path bundle(String groupAndName) {
        String name = groupAndName.substring(groupAndName.indexOf('/') + 1);
        return groupAndName.startsWith("hosts/") ? host(name) : testCase(name);
    }

    /** A detection over a bundle as {@code gpu-detect --replay} runs it, with the shared Akash table (skipped without it). */
    public static Inventory detect(Path bundle) {
        try {
            return detect(BundleSource.open(bundle));
        } catch (BundleException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A detection over any source with the shared Akash table, given as --akash-table gives it; skipped without it. */
    public static Inventory detect(Source source) {
        // Read when the first card is named, once: a bundle without GPUs needs no table.
        java.util.function.Supplier<io.gpudetect.tables.AkashGpus> akash = new java.util.function.Supplier<>() {
            private io.gpudetect.tables.AkashGpus table;

            @Override
            public io.gpudetect.tables.AkashGpus get() {
                return table != null ? table : (table = SharedData.akashGpus());
            }
        };
        return new Detector(Probes.defaults()).detect(source, Tables.forSource(source, akash));
    }

    /**
     * A copy in {@code target} of the hand-made case {@code sysfs_intel-igpu-beside-nvidia} (an Intel UHD 770 at
     * 0000:00:02.0 beside an RTX 3090 at 0000:01:00.0) with {@code /sys/class/drm} links added, each given as
     * {@code name=device path under /sys/devices/pci0000:00} ({@code card1=0000:00:01.0/0000:01:00.0}).
     */
    public static Path sysfsWithDrm(Path target, String... cards) throws IOException {
        copyTree(testCase("sysfs_intel-igpu-beside-nvidia"), target);
        Path drm = Files.createDirectories(target.resolve("sys/class/drm"));
        for (String c : cards) {
            String[] nameAndDevice = c.split("=");
            Files.createSymbolicLink(drm.resolve(nameAndDevice[0]), Path.of("../../devices/pci0000:00/"
                    + nameAndDevice[1] + "/drm/" + nameAndDevice[0].replaceAll("-.*", "")));
        }
        return target;
    }

    /**
     * Every bundle: the shared recordings where this workspace has them, then every hand-made case (those
     * that need a shared recording only where it is there), sorted within each group.
     */
    public static List<Path> allBundles() {
        List<Path> all = new ArrayList<>();
        shared().map(s -> s.resolve("hosts")).filter(Files::isDirectory).ifPresent(h -> all.addAll(folders(h)));
        for (Path c : folders(root().resolve("cases"))) {
            if (shared().isPresent() || !Files.exists(c.resolve(SHARED_FILES))) {
                all.add(testCase(c.getFileName().toString()));
            }
        }
        return all;
    }

    private static List<Path> folders(Path dir) {
        return io.gpudetect.probe.Fixtures.folders(dir);
    }

    /** A copy of a bundle folder, links kept as links; what {@code to} held before is replaced. */
    private static void copyTree(Path from, Path to) throws IOException {
        if (Files.exists(to)) {
            try (Stream<Path> old = Files.walk(to)) {
                for (Path p : old.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path copy = to.resolve(from.relativize(p).toString());
                if (Files.isSymbolicLink(p)) {
                    Files.createSymbolicLink(copy, Files.readSymbolicLink(p));
                } else if (Files.isDirectory(p)) {
                    Files.createDirectories(copy);
                } else {
                    Files.copy(p, copy);
                }
            }
        }
    }
}
