package io.gpudetect.bench;

import io.gpudetect.inventory.Detector;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.probe.Probes;
import io.gpudetect.source.BundleSource;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * By hand and from {@code bench/run.sh}, not a test: the time of one detection pass (every default probe,
 * merge, normalise) over a recorded host, as the agent runs it every interval: the first pass in a fresh JVM
 * (tables parsed, classes loaded) and the median of later ones.
 * Usage: {@code DetectionPassBenchmark BUNDLE [ROUNDS=200]}; prints {@code RESULT} lines.
 */
public final class DetectionPassBenchmark {

    private DetectionPassBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Path bundle = Path.of(args[0]);
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        Detector detector = new Detector(Probes.defaults());
        long t = System.nanoTime();
        // Akash's table from ../shared, read once as a command reads it once: the pass is what is timed.
        io.gpudetect.tables.AkashGpus akash = io.gpudetect.testing.SharedData.akashGpus();
        Inventory first = detector.detect(BundleSource.open(bundle), io.gpudetect.tables.Tables.shipped(() -> akash));
        long firstNs = System.nanoTime() - t;
        long[] ns = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            long s = System.nanoTime();
            Inventory inventory = detector.detect(BundleSource.open(bundle), io.gpudetect.tables.Tables.shipped(() -> akash));
            ns[i] = System.nanoTime() - s;
            if (inventory.gpus().size() != first.gpus().size()) {
                throw new IllegalStateException("passes disagree: " + inventory.gpus().size() + " vs " + first.gpus().size());
            }
        }
        Arrays.sort(ns);
        System.out.printf("%s: %d GPUs, first pass %.1f ms, then median %.2f ms, p90 %.2f ms over %d passes%n",
                bundle.getFileName(), first.gpus().size(), firstNs / 1e6, ns[rounds / 2] / 1e6, ns[rounds * 9 / 10] / 1e6, rounds);
        System.out.printf("RESULT detection_gpus %d%n", first.gpus().size());
        System.out.printf("RESULT detection_first_pass_ms %.1f%n", firstNs / 1e6);
        System.out.printf("RESULT detection_pass_median_ms %.2f%n", ns[rounds / 2] / 1e6);
    }
}
