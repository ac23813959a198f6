package io.gpudetect.nvml;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What reading NVLink adds to a full detection on the stand-in: the link, fabric and P2P calls of every GPU of a
 * scenario, with the library held initialised as the agent holds it, timed over many rounds after a warm-up. Run by
 * hand (docs/performance.md, "NVLink at a full detection"):
 * {@code java -cp native/target/test-classes:native/target/classes:$JNA io.gpudetect.nvml.NvLinkCostBenchmark 8xh100-nvswitch}.
 */
public final class NvLinkCostBenchmark {

    private NvLinkCostBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        String scenario = args.length > 0 ? args[0] : "8xh100-nvswitch";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        Path root = FakeNvml.driverRoot(Files.createTempDirectory("nvlink-cost"), "current", scenario);
        NvmlLibrary lib = NvmlLibrary.open(NvmlLocator.candidates(Optional.of(root)));
        lib.init();
        int n = lib.deviceCount().value();
        List<NvmlDevice> handles = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            handles.add(lib.deviceHandle(i).value());
        }
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        long[] samples = new long[rounds];
        long[] cpuSamples = new long[rounds];
        int warmup = rounds / 2;
        for (int r = 0; r < rounds + warmup; r++) {
            long start = System.nanoTime();
            long cpuStart = cpu.getCurrentThreadCpuTime();
            List<NvmlSnapshot.Device> devices = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                NvmlDevice d = handles.get(i);
                devices.add(new NvmlSnapshot.Device(i, null, null, null, null, null, null, null, null, null, null, null,
                        null, null, null, null, List.of(), null, null, null, null, null, null, null, null,
                        NvLinks.read(lib, d), lib.gpuFabricInfo(d), null, null, null, null, null));
            }
            NvLinks.withPeers(lib, devices, handles);
            if (r >= warmup) {
                samples[r - warmup] = System.nanoTime() - start;
                cpuSamples[r - warmup] = cpu.getCurrentThreadCpuTime() - cpuStart;
            }
        }
        java.util.Arrays.sort(samples);
        java.util.Arrays.sort(cpuSamples);
        System.out.printf("%s: %d GPUs, NVLink+fabric+P2P per full pass: CPU median %.3f ms; wall median %.3f ms,"
                + " p90 %.3f ms (%d rounds)%n", scenario, n, cpuSamples[rounds / 2] / 1e6, samples[rounds / 2] / 1e6,
                samples[rounds * 9 / 10] / 1e6, rounds);
        lib.shutdown();
    }
}
