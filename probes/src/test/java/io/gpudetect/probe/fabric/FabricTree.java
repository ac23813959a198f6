package io.gpudetect.probe.fabric;

import io.gpudetect.source.LiveSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A hand-made {@code /sys} with GPUs and RDMA devices at chosen PCIe places, with real symbolic links laid out as
 * the kernel lays them out: {@code sys/bus/pci/devices/<address>} and {@code sys/class/infiniband/<name>} lead
 * into {@code sys/devices/<root>/<bridges>/<function>}.
 */
public final class FabricTree {

    private final Path root;

    public FabricTree(Path root) {
        this.root = root;
    }

    public LiveSource live() {
        return new LiveSource(root, Duration.ofSeconds(5), LiveSource.DEFAULT_MAX_OUTPUT_BYTES);
    }

    /**
     * A PCI function at {@code parent/address} ({@code parent} from the root complex down:
     * {@code pci0000:15/0000:15:01.0}), linked from {@code sys/bus/pci/devices}, with its class, vendor, NUMA node
     * (-1 for none) and driver. Returns its folder.
     */
    public Path function(String parent, String address, String classCode, String vendor, String deviceId, int numa,
                         String driver) throws IOException {
        Path dir = root.resolve("sys/devices/" + parent + "/" + address);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("class"), classCode + "\n");
        Files.writeString(dir.resolve("vendor"), vendor + "\n");
        Files.writeString(dir.resolve("device"), deviceId + "\n");
        Files.writeString(dir.resolve("subsystem_vendor"), vendor + "\n");
        Files.writeString(dir.resolve("subsystem_device"), "0x0001\n");
        Files.writeString(dir.resolve("revision"), "0xa1\n");
        Files.writeString(dir.resolve("numa_node"), numa + "\n");
        Path links = root.resolve("sys/bus/pci/devices");
        Files.createDirectories(links);
        Files.createSymbolicLink(links.resolve(address), Path.of("../../../devices/" + parent + "/" + address));
        int depth = ("devices/" + parent + "/" + address).split("/").length;
        Files.createSymbolicLink(dir.resolve("driver"), Path.of("../".repeat(depth) + "bus/pci/drivers/" + driver));
        return dir;
    }

    /** An NVIDIA H100 SXM at {@code parent/address}. */
    public Path nvidiaGpu(String parent, String address, int numa) throws IOException {
        return function(parent, address, "0x030200", "0x10de", "0x2330", numa, "nvidia");
    }

    /**
     * A ConnectX-7 function with RDMA device {@code name} whose port 1 has {@code linkLayer}, {@code state}
     * ({@code 4: ACTIVE}) and {@code rate} ({@code 400 Gb/sec (4X NDR)}).
     */
    public Path mlx5(String parent, String address, int numa, String name, String linkLayer, String state, String rate)
            throws IOException {
        Path function = function(parent, address, "0x020700", "0x15b3", "0x1021", numa, "mlx5_core");
        Path ib = function.resolve("infiniband/" + name);
        Files.createDirectories(ib.resolve("ports/1"));
        Files.writeString(ib.resolve("node_type"), "1: CA\n");
        Files.writeString(ib.resolve("ports/1/link_layer"), linkLayer + "\n");
        Files.writeString(ib.resolve("ports/1/state"), state + "\n");
        Files.writeString(ib.resolve("ports/1/phys_state"), state.startsWith("4") ? "5: LinkUp\n" : "3: Disabled\n");
        Files.writeString(ib.resolve("ports/1/rate"), rate + "\n");
        Path cls = root.resolve("sys/class/infiniband");
        Files.createDirectories(cls);
        Files.createSymbolicLink(cls.resolve(name), Path.of("../../devices/" + parent + "/" + address + "/infiniband/" + name));
        // The device's own link to its function, as the kernel makes it.
        Files.createSymbolicLink(ib.resolve("device"), Path.of("../../../" + address));
        return ib;
    }

    /** A software RoCE device (rxe): under {@code devices/virtual}, no PCI function. */
    public Path rxe(String name) throws IOException {
        Path ib = root.resolve("sys/devices/virtual/infiniband/" + name);
        Files.createDirectories(ib.resolve("ports/1"));
        Files.writeString(ib.resolve("node_type"), "1: CA\n");
        Files.writeString(ib.resolve("ports/1/link_layer"), "Ethernet\n");
        Files.writeString(ib.resolve("ports/1/state"), "4: ACTIVE\n");
        Files.writeString(ib.resolve("ports/1/rate"), "10 Gb/sec (1X QDR)\n");
        Path cls = root.resolve("sys/class/infiniband");
        Files.createDirectories(cls);
        Files.createSymbolicLink(cls.resolve(name), Path.of("../../devices/virtual/infiniband/" + name));
        return ib;
    }

    /** Writes a host file ({@code sys/module/nvidia_peermem/initstate}, {@code proc/driver/nvidia/version}). */
    public void file(String hostPath, String content) throws IOException {
        Path p = root.resolve(hostPath.substring(1));
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }

    /**
     * The test topology, two sockets:
     * <pre>
     * numa 0, pci0000:15: root port 15:01.0 - switch 16:00.0 - 17:00.0 - GPU 18:00.0
     *                                                        - 17:01.0 - mlx5_0 19:00.0  InfiniBand NDR 400, active
     *                     root port 15:02.0 - GPU 1a:00.0
     *                     root port 15:03.0 - switch 20:00.0 - 21:00.0 - switch 22:00.0 - 23:00.0 - GPU 24:00.0
     *                                                        - 21:01.0 - mlx5_1 25:00.0  RoCE 200, active
     * numa 0, pci0000:40: root port 40:01.0 - GPU 41:00.0
     * numa 1, pci0000:97: root port 97:01.0 - GPU 98:00.0
     * numa 1, pci0000:b0: root port b0:01.0 - mlx5_2 b1:00.0  RoCE 100, down
     * rxe0 (software RoCE)
     * </pre>
     */
    public FabricTree twoSockets() throws IOException {
        nvidiaGpu("pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0", "0000:18:00.0", 0);
        mlx5("pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0", "0000:19:00.0", 0, "mlx5_0", "InfiniBand",
                "4: ACTIVE", "400 Gb/sec (4X NDR)");
        nvidiaGpu("pci0000:15/0000:15:02.0", "0000:1a:00.0", 0);
        nvidiaGpu("pci0000:15/0000:15:03.0/0000:20:00.0/0000:21:00.0/0000:22:00.0/0000:23:00.0", "0000:24:00.0", 0);
        mlx5("pci0000:15/0000:15:03.0/0000:20:00.0/0000:21:01.0", "0000:25:00.0", 0, "mlx5_1", "Ethernet",
                "4: ACTIVE", "200 Gb/sec (4X HDR)");
        nvidiaGpu("pci0000:40/0000:40:01.0", "0000:41:00.0", 0);
        nvidiaGpu("pci0000:97/0000:97:01.0", "0000:98:00.0", 1);
        mlx5("pci0000:b0/0000:b0:01.0", "0000:b1:00.0", 1, "mlx5_2", "Ethernet", "1: DOWN", "100 Gb/sec (4X EDR)");
        rxe("rxe0");
        return this;
    }
}
