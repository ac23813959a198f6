package io.gpudetect.daemonset;

import static io.gpudetect.daemonset.Debian11Root.run;

import io.gpudetect.daemonset.Debian11Root.Result;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Debian's podman and buildah with storage and settings of their own, not the system's: images in
 * {@code target/podman} (vfs: no overlay or fuse needed), run state in the system's temporary folder, one per
 * checkout (socket paths must stay short), runc with cgroupfs (crun fails on our build machines' cgroups),
 * events in a file, and no default rlimits (raising them is not permitted there).
 */
final class Podman {

    static final List<String> PROGRAMS = List.of("podman", "buildah", "runc");

    final Path storageConf;
    final Path containersConf;

    private Podman(Path storageConf, Path containersConf) {
        this.storageConf = storageConf;
        this.containersConf = containersConf;
    }

    /** Why podman cannot be used here, or null when it can. */
    static String unusable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "needs root (podman's vfs storage, runc, mounts)";
        }
        List<String> missing = PROGRAMS.stream().filter(p -> onPath(p) == null).toList();
        if (!missing.isEmpty()) {
            return String.join(", ", missing) + " not installed (Debian packages podman buildah runc; .ci/run installs them)";
        }
        return null;
    }

    private static Path onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
            Path p = Path.of(dir, program);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    static Podman create(Path dir) throws IOException {
        Path storage = Files.createDirectories(dir.resolve("storage"));
        // One per checkout, as the storage is: two builds side by side must not share podman's run state.
        Path runroot = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"),
                "gpu-detect-podman-" + Integer.toHexString(dir.toAbsolutePath().toString().hashCode())));
        Path storageConf = dir.resolve("storage.conf");
        Files.writeString(storageConf, """
                [storage]
                driver = "vfs"
                graphroot = "%s"
                runroot = "%s"
                """.formatted(storage, runroot));
        Path containersConf = dir.resolve("containers.conf");
        Files.writeString(containersConf, """
                [containers]
                default_ulimits = []
                [engine]
                runtime = "runc"
                cgroup_manager = "cgroupfs"
                events_logger = "file"
                tmp_dir = "%s"
                volume_path = "%s"
                """.formatted(runroot.resolve("tmp"), storage.resolve("volumes")));
        return new Podman(storageConf, containersConf);
    }

    ProcessBuilder builder(List<String> command) {
        ProcessBuilder pb = new ProcessBuilder(command);
        Map<String, String> env = pb.environment();
        env.put("CONTAINERS_STORAGE_CONF", storageConf.toString());
        env.put("CONTAINERS_CONF", containersConf.toString());
        return pb;
    }

    Result podman(int seconds, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("podman"));
        command.addAll(List.of(args));
        return run(builder(command), seconds);
    }

    Result podman(int seconds, List<String> args) throws Exception {
        return podman(seconds, args.toArray(String[]::new));
    }

    Result command(int seconds, List<String> command) throws Exception {
        return run(builder(command), seconds);
    }
}
