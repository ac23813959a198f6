package io.gpudetect.testing;

import io.gpudetect.inventory.Detector;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.probe.Probes;
import io.gpudetect.source.BundleException;
import io.gpudetect.source.BundleSource;
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

    public static Inventory detect(Path bundle) {
        try {
            return new Detector(Probes.defaults()).detect(BundleSource.open(bundle));
        } catch (BundleException e) {
            throw new IllegalStateException(e);
        }
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
