package io.gpudetect.nvml;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where {@code libnvidia-ml.so.1} is looked for, in order: under the driver root when one is given (a
 * DaemonSet mounts the host's driver at {@code /run/nvidia/driver} or {@code /host}), then the dynamic
 * linker's own search by name, then the usual library folders of the distributions and of WSL, in case
 * the linker cache of a container does not list them.
 */
public final class NvmlLocator {

    public static final String LIBRARY_NAME = "libnvidia-ml.so.1";

    /** Library folders relative to a root, most common first: where a driver root keeps its libraries. */
    public static final List<String> LIBRARY_DIRS = List.of(
            "usr/lib64", "usr/lib/x86_64-linux-gnu", "usr/lib/aarch64-linux-gnu", "usr/lib",
            "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu", "lib", "usr/lib/wsl/lib");

    private NvmlLocator() {
    }

    /**
     * The candidates, each an absolute path to a file, or the bare name for the dynamic linker's search. The
     * caller tries them in order and keeps the first that loads. A relative driver root is taken from the
     * working folder: JNA reads a relative path as a library name to decorate ({@code libX.so}).
     */
    public static List<String> candidates(Optional<Path> driverRoot) {
        List<String> out = new ArrayList<>();
        driverRoot.ifPresent(root -> {
            for (String dir : LIBRARY_DIRS) {
                out.add(root.toAbsolutePath().resolve(dir).resolve(LIBRARY_NAME).toString());
            }
        });
        out.add(LIBRARY_NAME);
        for (String dir : LIBRARY_DIRS) {
            out.add("/" + dir + "/" + LIBRARY_NAME);
        }
        return out;
    }
}
