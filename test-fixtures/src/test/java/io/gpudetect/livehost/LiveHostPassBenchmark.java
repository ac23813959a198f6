package io.gpudetect.livehost;

import com.sun.management.OperatingSystemMXBean;
import io.gpudetect.inventory.Detector;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.inventory.SteadyStateDetector;
import io.gpudetect.probe.ProbeSettings;
import io.gpudetect.probe.Probes;
import io.gpudetect.source.LiveSource;
import io.gpudetect.source.Source;
import io.gpudetect.source.ToolCommand;
import io.gpudetect.source.ToolResult;
import io.gpudetect.tables.Tables;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * By hand and from {@code bench/run.sh}, not a test: what one agent pass costs on a live NVIDIA host (8x A100
 * through the stand-in NVML, every vendor tool installed and failing as on a host without its GPU, as on a
 * mining image), three ways: every source consulted (a pass without a probe plan), a full detection by the
 * plan, and a steady-state pass (host unchanged). For each: median wall time, process CPU time per pass (all
 * threads and the NVML thread included, child processes not) and processes started per pass.
 * Usage: {@code LiveHostPassBenchmark FAKE_NVML_DIR [ROUNDS=200]} where FAKE_NVML_DIR holds
 * {@code usr/lib64/libnvidia-ml.so.1}; prints {@code RESULT} lines.
 */
public final class LiveHostPassBenchmark {

    private LiveHostPassBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Path library = Path.of(args[0]).resolve("usr/lib64/libnvidia-ml.so.1");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        Path dir = Files.createTempDirectory("live-host-bench");
        FakeHost host = new FakeHost(dir).everyToolFailingWithoutItsGpu().nvml("8xa100-mig", library);
        int[] buses = {0x07, 0x0f, 0x47, 0x4e, 0x87, 0x90, 0xb7, 0xbd};
        for (int bus : buses) {
            host.function(String.format("0000:%02x:00.0", bus), "10de", "20b2", "0x030200", "a1", "nvidia");
        }
        Files.createDirectories(host.root.resolve("sys/module/nvidia"));
        Files.writeString(host.root.resolve("sys/module/nvidia/version"), "550.54.15\n");
        ProbeSettings settings = ProbeSettings.defaults().withDriverRoot(host.driverRoot());
        Tables tables = io.gpudetect.testing.SharedData.replayTables();
        LiveSource live = host.source();

        Detector detector = new Detector(Probes.defaults(settings));
        Source everySource = new EverySource(live);
        measure("every-source", () -> detector.detect(everySource, tables), host, rounds);
        measure("planned", () -> detector.detect(live, tables), host, rounds);
        SteadyStateDetector steady = new SteadyStateDetector(Probes.defaults(settings), live, tables,
                Duration.ofDays(1), Clock.systemUTC());
        steady.detect();
        measure("steady", steady::detect, host, rounds);
        if (steady.fullDetections() != 1) {
            throw new IllegalStateException("the steady-state passes detected in full " + steady.fullDetections() + " times");
        }
    }

    private static void measure(String name, Supplier<Inventory> pass, FakeHost host, int rounds) throws IOException {
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        for (int i = 0; i < Math.min(20, rounds); i++) {
            pass.get();
        }
        int callsBefore = host.calls().size();
        long[] wall = new long[rounds];
        long cpuBefore = os.getProcessCpuTime();
        int gpus = -1;
        for (int i = 0; i < rounds; i++) {
            long t = System.nanoTime();
            Inventory inventory = pass.get();
            wall[i] = System.nanoTime() - t;
            gpus = inventory.gpus().size();
        }
        double cpuMs = (os.getProcessCpuTime() - cpuBefore) / 1e6 / rounds;
        double processes = (host.calls().size() - callsBefore) / (double) rounds;
        Arrays.sort(wall);
        System.out.printf("%-13s %d GPUs: median %.2f ms wall, p90 %.2f ms, %.2f ms CPU per pass, %.1f processes per pass%n",
                name, gpus, wall[rounds / 2] / 1e6, wall[rounds * 9 / 10] / 1e6, cpuMs, processes);
        System.out.printf("RESULT pass_%s_wall_ms %.2f%n", name.replace('-', '_'), wall[rounds / 2] / 1e6);
        System.out.printf("RESULT pass_%s_cpu_ms %.2f%n", name.replace('-', '_'), cpuMs);
        System.out.printf("RESULT pass_%s_processes %.1f%n", name.replace('-', '_'), processes);
    }

    /** The live host, consulted as a pass without a probe plan consults it: every source, needed or not. */
    private record EverySource(LiveSource live) implements Source {
        @Override public ToolResult run(ToolCommand command) { return live.run(command); }
        @Override public Optional<String> readFile(String path) throws IOException { return live.readFile(path); }
        @Override public Optional<byte[]> readBytes(String path, int maxBytes) throws IOException { return live.readBytes(path, maxBytes); }
        @Override public List<String> list(String directory) throws IOException { return live.list(directory); }
        @Override public Optional<String> readLink(String path) throws IOException { return live.readLink(path); }
        @Override public boolean exists(String path) { return live.exists(path); }
        @Override public String describe() { return live.describe(); }
        @Override public boolean isRecorded() { return false; }
    }
}
