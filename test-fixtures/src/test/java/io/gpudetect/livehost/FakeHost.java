package io.gpudetect.livehost;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.source.LiveSource;
import io.gpudetect.source.ToolSearch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

/**
 * A host in a temporary folder, as a live pass sees one: a sysfs tree of PCI functions under {@code root},
 * tools in {@code bin} that write each call to a log before they answer (with a real recorded output, or
 * failing the way the real tool fails on a host without its vendor's GPU), and, when asked for, a driver
 * root holding the compiled stand-in {@code libnvidia-ml.so.1} serving one scenario.
 */
public final class FakeHost {

    /** What each AMD and NVIDIA tool prints, and its exit status, on a host without its vendor's GPU or driver. */
    static final String NVIDIA_SMI_NO_DRIVER = "echo 'NVIDIA-SMI has failed because it couldn'\\''t communicate with the"
            + " NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.'; exit 9";
    static final String ROCM_SMI_NO_AMDGPU = "echo 'ERROR:root:Driver not initialized (amdgpu not found in modules)' >&2; exit 1";
    static final String AMD_SMI_NO_AMDGPU = "echo 'AMD SMI initialization failed: amdgpu driver not loaded' >&2; exit 1";
    static final String ROCMINFO_NO_KFD = "echo 'ROCk module is NOT loaded, possibly no GPU devices'; exit 1";
    static final String CLINFO_NO_PLATFORM = "echo 'Number of platforms                               0'";

    public final Path root;
    public final Path bin;
    public final Path log;
    private final Path dir;
    private Path driverRoot;

    public FakeHost(Path dir) throws IOException {
        this.dir = dir;
        this.root = Files.createDirectories(dir.resolve("host"));
        this.bin = Files.createDirectories(dir.resolve("bin"));
        this.log = dir.resolve("calls.log");
        Files.createDirectories(root.resolve("sys/bus/pci/devices"));
        Files.createDirectories(root.resolve("sys/bus/pci/drivers"));
    }

    /** A PCI function: class {@code 0x030000} (VGA), {@code 0x030200} (3D) or {@code 0x120000} (accelerator). */
    public FakeHost function(String address, String vendor, String device, String classCode, String revision, String driver)
            throws IOException {
        Path f = Files.createDirectories(root.resolve("sys/devices/pci0000:00").resolve(address));
        Files.writeString(f.resolve("class"), classCode + "\n");
        Files.writeString(f.resolve("vendor"), "0x" + vendor + "\n");
        Files.writeString(f.resolve("device"), "0x" + device + "\n");
        Files.writeString(f.resolve("subsystem_vendor"), "0x" + vendor + "\n");
        Files.writeString(f.resolve("subsystem_device"), "0x0000\n");
        Files.writeString(f.resolve("revision"), "0x" + revision + "\n");
        if (driver != null) {
            Path d = Files.createDirectories(root.resolve("sys/bus/pci/drivers").resolve(driver));
            Files.createSymbolicLink(f.resolve("driver"), f.relativize(d));
        }
        Files.createSymbolicLink(root.resolve("sys/bus/pci/devices").resolve(address),
                root.resolve("sys/bus/pci/devices").relativize(f));
        return this;
    }

    /** A tool that logs its call, then runs {@code body} (shell). */
    public FakeHost tool(String name, String body) throws IOException {
        Path p = bin.resolve(name);
        Files.writeString(p, "#!/bin/sh\necho \"" + name + " $*\" >> '" + log + "'\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return this;
    }

    /** A tool that logs its call and prints a recorded output. */
    public FakeHost toolPrinting(String name, Path output) throws IOException {
        assertTrue(Files.isRegularFile(output), output.toString());
        return tool(name, "cat '" + output.toAbsolutePath() + "'");
    }

    /** Every vendor tool installed, each failing as it does on a host without its vendor's GPU. */
    public FakeHost everyToolFailingWithoutItsGpu() throws IOException {
        return tool("nvidia-smi", NVIDIA_SMI_NO_DRIVER).tool("amd-smi", AMD_SMI_NO_AMDGPU)
                .tool("rocm-smi", ROCM_SMI_NO_AMDGPU).tool("rocminfo", ROCMINFO_NO_KFD).tool("clinfo", CLINFO_NO_PLATFORM);
    }

    /** A driver root with the compiled stand-in NVML serving {@code scenario} (see native/src/test/c/fake_nvml.c). */
    public FakeHost nvml(String scenario) throws IOException {
        Path built = Path.of(System.getProperty("gpudetect.fakeNvml", "target/fake-nvml"))
                .resolve("current/usr/lib64/libnvidia-ml.so.1");
        assertTrue(Files.isRegularFile(built), "the stand-in NVML library is not built at " + built + " (needs gcc)");
        return nvml(scenario, built);
    }

    /** The same with a library built elsewhere (the {@code old} variant, without the newer symbols). */
    public FakeHost nvml(String scenario, Path built) throws IOException {
        driverRoot = dir.resolve("driver");
        Path lib = Files.createDirectories(driverRoot.resolve("usr/lib64"));
        Files.copy(built, lib.resolve("libnvidia-ml.so.1"));
        Files.writeString(lib.resolve("fake-nvml-scenario"), scenario + "\n");
        return this;
    }

    /** The driver root, or null when there is none; where a driver root's own nvidia-smi goes. */
    public Path driverRoot() {
        return driverRoot;
    }

    /** The tools called so far, one line each: name and arguments. */
    public List<String> calls() throws IOException {
        return Files.exists(log) ? Files.readAllLines(log).stream().map(String::strip).toList() : List.of();
    }

    public String pathVariable() {
        return bin.toString();
    }

    public LiveSource source() {
        return new LiveSource(root, new ToolSearch(driverRoot, List.of(bin)), Duration.ofSeconds(10),
                LiveSource.DEFAULT_MAX_OUTPUT_BYTES);
    }
}
