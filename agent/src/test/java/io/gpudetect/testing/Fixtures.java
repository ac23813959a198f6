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
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The recorded bundles in {@code test-fixtures/}, read through the same BundleSource and Detector as production. */
public final class Fixtures {

    private Fixtures() {
    }

    public static Path root() {
        return Path.of(System.getProperty("gpudetect.fixtures", "../test-fixtures"));
    }

    public static Path host(String name) {
        return root().resolve("hosts").resolve(name);
    }

    public static Path testCase(String name) {
        return root().resolve("cases").resolve(name);
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
        Path src = testCase("sysfs_intel-igpu-beside-nvidia");
        try (Stream<Path> all = Files.walk(src)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path to = target.resolve(src.relativize(p).toString());
                if (Files.isSymbolicLink(p)) {
                    Files.createSymbolicLink(to, Files.readSymbolicLink(p));
                } else if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(p, to);
                }
            }
        }
        Path drm = Files.createDirectories(target.resolve("sys/class/drm"));
        for (String c : cards) {
            String[] nameAndDevice = c.split("=");
            Files.createSymbolicLink(drm.resolve(nameAndDevice[0]), Path.of("../../devices/pci0000:00/"
                    + nameAndDevice[1] + "/drm/" + nameAndDevice[0].replaceAll("-.*", "")));
        }
        return target;
    }

    /** Every bundle under hosts/ and cases/, sorted. */
    public static List<Path> allBundles() {
        List<Path> all = new ArrayList<>();
        for (String group : List.of("hosts", "cases")) {
            Path dir = root().resolve(group);
            if (Files.isDirectory(dir)) {
                try (Stream<Path> s = Files.list(dir)) {
                    s.filter(Files::isDirectory).sorted().forEach(all::add);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return all;
    }
}
