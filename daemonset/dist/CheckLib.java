import java.io.IOException;
import java.net.URI;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Run by build-dist.sh (java CheckLib.java STAGE RUNTIME_CLASSPATH ABSENT_MODULES): fails the build, with one line, when the
 * staged archive lacks something the agent needs. The first archive left 16 fabric8 model jars out of lib/ on
 * the belief that the client never loads them; it loads one at the informer's first list, and every test,
 * run from Maven's class path, passed. Two checks:
 * <ol>
 *   <li>every jar of the agent's runtime dependency set (agent/cli/target/runtime.classpath, as Maven resolved it)
 *       is in lib/, by file name, so the version too;</li>
 *   <li>every class the agent's training runs loaded on Maven's class path (lib/*.classlist: the command's
 *       detections, an agent pass against fabric8's mock API server: informers, lists, watches, writes) is in
 *       a jar in lib/ or, for a JDK class, in a module of the jlinked runtime or one of ABSENT_MODULES (left
 *       out on purpose: build-dist.sh says why for each).</li>
 * </ol>
 * Exit status 0 when both hold, 1 with one line naming what is missing otherwise.
 */
public final class CheckLib {

    /** Dynamic proxies, made at run time: no jar holds them. */
    private static final Pattern PROXY = Pattern.compile("(jdk/proxy\\d+|com/sun/proxy(/jdk/proxy\\d+)?)/\\$Proxy\\d+");

    private CheckLib() {
    }

    public static void main(String[] args) {
        try {
            check(args);
        } catch (IOException | RuntimeException e) {
            fail("cannot check lib/: " + e);
        }
    }

    private static void check(String[] args) throws IOException {
        if (args.length != 3) {
            fail("usage: java CheckLib.java STAGE_DIR RUNTIME_CLASSPATH_FILE ABSENT_MODULES");
        }
        Path stage = Path.of(args[0]);
        Path lib = stage.resolve("lib");
        List<String> missingJars = new ArrayList<>();
        int jars = 0;
        for (String entry : Files.readString(Path.of(args[1])).strip().split(":")) {
            String jar = Path.of(entry).getFileName().toString();
            jars++;
            if (!Files.isRegularFile(lib.resolve(jar))) {
                missingJars.add(jar);
            }
        }
        if (!missingJars.isEmpty()) {
            fail(missingJars.size() + " jar(s) of the agent's runtime dependencies are not in " + lib + ": "
                    + String.join(", ", missingJars));
        }
        Set<String> loaded = new TreeSet<>();
        List<Path> lists;
        try (Stream<Path> s = Files.list(lib)) {
            lists = s.filter(p -> p.getFileName().toString().endsWith(".classlist")).sorted().toList();
        }
        for (Path list : lists) {
            for (String line : Files.readAllLines(list)) {
                // "# comment", "@lambda-proxy ..." and "@lambda-form-invoker ..." lines name no class to find.
                if (!line.isBlank() && !line.startsWith("#") && !line.startsWith("@")) {
                    loaded.add(line.split(" ", 2)[0]);
                }
            }
        }
        // A JDK class is judged by its module, as this (the build's) JDK places it: the runtime is cut from another
        // build of JDK 17 (Debian 11's), whose internal classes differ, so a class-by-class match would not hold.
        Map<String, String> jdkPackages = new HashMap<>();
        try (Stream<Path> packages = Files.list(FileSystems.getFileSystem(URI.create("jrt:/")).getPath("/packages"))) {
            for (Path p : packages.toList()) {
                try (Stream<Path> modules = Files.list(p)) {
                    modules.findFirst().ifPresent(m -> jdkPackages.put(p.getFileName().toString(), m.getFileName().toString()));
                }
            }
        }
        // Every module jlink put in (runtime/MODULES lists only those asked for, not those they require).
        Set<String> runtimeModules = new HashSet<>();
        for (String line : Files.readAllLines(stage.resolve("runtime/release"))) {
            if (line.startsWith("MODULES=")) {
                runtimeModules.addAll(List.of(line.substring("MODULES=".length()).replace("\"", "").strip().split(" ")));
            }
        }
        Set<String> absentOnPurpose = Set.of(args[2].split(","));
        Set<String> inJars = new HashSet<>();
        try (Stream<Path> s = Files.list(lib)) {
            for (Path jar : s.filter(p -> p.getFileName().toString().endsWith(".jar")).toList()) {
                try (ZipFile zip = new ZipFile(jar.toFile())) {
                    zip.stream().map(ZipEntry::getName).filter(n -> n.endsWith(".class"))
                            // Multi-release jars keep versioned copies under META-INF/versions/N/.
                            .map(n -> n.replaceFirst("^META-INF/versions/\\d+/", ""))
                            .forEach(n -> inJars.add(n.substring(0, n.length() - ".class".length())));
                }
            }
        }
        List<String> missing = new ArrayList<>();
        for (String c : loaded) {
            if (PROXY.matcher(c).matches()) {
                continue;
            }
            int slash = c.lastIndexOf('/');
            String module = jdkPackages.get(slash < 0 ? "" : c.substring(0, slash).replace('/', '.'));
            boolean found = module == null ? inJars.contains(c)
                    : runtimeModules.contains(module) || absentOnPurpose.contains(module);
            if (!found) {
                missing.add(module == null ? c : c + " (module " + module + ")");
            }
        }
        if (!missing.isEmpty()) {
            fail(missing.size() + " class(es) the agent loaded in its training runs on Maven's class path ("
                    + String.join(", ", lists.stream().map(p -> p.getFileName().toString()).toList())
                    + ") are in neither runtime/ nor lib/: " + String.join(", ", missing.subList(0, Math.min(5, missing.size())))
                    + (missing.size() > 5 ? ", ..." : ""));
        }
        System.out.println("gpu-detect: lib/ holds the agent's " + jars + " runtime jars and every one of the "
                + loaded.size() + " classes its training runs loaded");
    }

    private static void fail(String line) {
        System.err.println("gpu-detect dist: " + line);
        System.exit(1);
    }
}
