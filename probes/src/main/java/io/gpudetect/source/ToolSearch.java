package io.gpudetect.source;

import io.gpudetect.nvml.NvmlLocator;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a tool is looked for: first the driver root's own tools (the NVIDIA GPU operator's driver container,
 * mounted at {@code /run/nvidia/driver}: its {@code nvidia-smi} matches the loaded driver, and the agent's
 * image has none), run with the driver root's libraries first on {@code LD_LIBRARY_PATH}; then the folders of
 * {@code PATH}.
 *
 * @param driverRoot where the host's driver is mounted; null for none
 * @param path       the folders of {@code PATH}, in order
 */
public record ToolSearch(Path driverRoot, List<Path> path) {

    /** The driver root's folders of tools, most common first. */
    static final List<String> DRIVER_TOOL_DIRS = List.of("usr/bin", "bin", "usr/sbin", "sbin");

    public ToolSearch {
        path = List.copyOf(path);
    }

    /** The driver root (may be null) and this process's {@code PATH}. */
    public static ToolSearch of(Path driverRoot, String pathVariable) {
        List<Path> dirs = new ArrayList<>();
        if (pathVariable != null) {
            for (String part : pathVariable.split(File.pathSeparator)) {
                if (part.isEmpty()) {
                    continue;
                }
                try {
                    dirs.add(Path.of(part));
                } catch (InvalidPathException ignored) {
                    // A folder name no file system has cannot hold a tool.
                }
            }
        }
        return new ToolSearch(driverRoot, dirs);
    }

    /** The system's {@code PATH} alone. */
    public static ToolSearch systemPath() {
        return of(null, System.getenv("PATH"));
    }

    /** A tool found: the file to run and what to add to its environment. */
    public record Located(Path executable, Map<String, String> environment) {
    }

    /** The tool by its name (a name with a slash is taken as it is), or empty when no folder has it. */
    public Optional<Located> locate(String name) {
        if (name.contains("/")) {
            Path p = Path.of(name);
            return Files.isExecutable(p) ? Optional.of(new Located(p, Map.of())) : Optional.empty();
        }
        if (driverRoot != null) {
            for (String dir : DRIVER_TOOL_DIRS) {
                Path p = driverRoot.resolve(dir).resolve(name);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                    return Optional.of(new Located(p, Map.of("LD_LIBRARY_PATH", driverLibraries())));
                }
            }
        }
        for (Path dir : path) {
            Path p = dir.resolve(name);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(new Located(p, Map.of()));
            }
        }
        return Optional.empty();
    }

    private String driverLibraries() {
        List<String> dirs = new ArrayList<>();
        for (String dir : NvmlLocator.LIBRARY_DIRS) {
            Path p = driverRoot.resolve(dir);
            if (Files.isDirectory(p)) {
                dirs.add(p.toString());
            }
        }
        String inherited = System.getenv("LD_LIBRARY_PATH");
        if (inherited != null && !inherited.isEmpty()) {
            dirs.add(inherited);
        }
        return String.join(File.pathSeparator, dirs);
    }
}
