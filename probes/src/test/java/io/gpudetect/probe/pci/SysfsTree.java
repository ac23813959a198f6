package io.gpudetect.probe.pci;

import io.gpudetect.source.LiveSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** A small hand-made {@code /sys} with real symbolic links, laid out as the kernel lays it out. */
final class SysfsTree {

    private SysfsTree() {
    }

    /**
     * A display function under {@code sys/devices/<parent>/<address>} ({@code parent} is the path from the root
     * complex down, {@code pci0000:00/0000:00:01.0}), linked from {@code sys/bus/pci/devices}, its driver linked
     * when not null. Returns the function's folder.
     */
    static Path gpu(Path root, String parent, String address, String vendor, String driver) throws IOException {
        Path dir = root.resolve("sys/devices/" + parent + "/" + address);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("class"), "0x030000\n");
        Files.writeString(dir.resolve("vendor"), vendor + "\n");
        Files.writeString(dir.resolve("device"), "0x2684\n");
        Files.writeString(dir.resolve("subsystem_vendor"), vendor + "\n");
        Files.writeString(dir.resolve("subsystem_device"), "0x0001\n");
        Files.writeString(dir.resolve("revision"), "0xa1\n");
        Path links = root.resolve("sys/bus/pci/devices");
        Files.createDirectories(links);
        Files.createSymbolicLink(links.resolve(address), Path.of("../../../devices/" + parent + "/" + address));
        if (driver != null) {
            int depth = ("devices/" + parent + "/" + address).split("/").length;
            Files.createSymbolicLink(dir.resolve("driver"), Path.of("../".repeat(depth) + "bus/pci/drivers/" + driver));
        }
        return dir;
    }

    /** Writes the four link files as the kernel does, each with its newline. */
    static void link(Path function, String currentSpeed, String maxSpeed, String currentWidth, String maxWidth)
            throws IOException {
        Files.writeString(function.resolve("current_link_speed"), currentSpeed + "\n");
        Files.writeString(function.resolve("max_link_speed"), maxSpeed + "\n");
        Files.writeString(function.resolve("current_link_width"), currentWidth + "\n");
        Files.writeString(function.resolve("max_link_width"), maxWidth + "\n");
    }

    static LiveSource live(Path root) {
        return new LiveSource(root, Duration.ofSeconds(5), LiveSource.DEFAULT_MAX_OUTPUT_BYTES);
    }
}
