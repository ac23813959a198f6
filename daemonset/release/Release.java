import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The release's Java steps, run by build-release.sh with helm-java and Jackson on the class path:
 * <ul>
 *   <li>{@code chart CHART_DIR WORK_DIR OUT_DIR VERSION}: the chart with its version and appVersion set to
 *       VERSION (so its default image is the release's: the templates default the tag to appVersion), linted with
 *       {@code helm lint --strict}, packaged by helm-java as OUT_DIR/gpu-detect-VERSION.tgz;</li>
 *   <li>{@code sbom BOM OUT VERSION DATE COMPONENTS}: the cyclonedx plugin's SBOM of the jars (BOM) with what
 *       Maven does not see added: one component per line of COMPONENTS (tab-separated: Debian package, version,
 *       architecture, Debian release, where it ships, licence or empty), as package URLs; its time DATE and a
 *       serial number made from VERSION and DATE, so two builds of one commit write the same file.</li>
 *   <li>{@code recipe DOCKERFILE}: the {@code buildah config} arguments, one a line, that give an image the
 *       Dockerfile's last stage's USER, ENTRYPOINT, CMD and ENV (ImageTest's DockerfileRecipe checks the result
 *       against the same file).</li>
 * </ul>
 * Exit status 1 with one line naming what failed.
 */
public final class Release {

    private Release() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length == 5 && args[0].equals("chart")) {
            chart(Path.of(args[1]), Path.of(args[2]), Path.of(args[3]), args[4]);
        } else if (args.length == 6 && args[0].equals("sbom")) {
            sbom(Path.of(args[1]), Path.of(args[2]), args[3], args[4], Path.of(args[5]));
        } else if (args.length == 2 && args[0].equals("recipe")) {
            recipe(Path.of(args[1]));
        } else {
            fail("usage: Release recipe DOCKERFILE | chart CHART_DIR WORK_DIR OUT_DIR VERSION | sbom BOM OUT VERSION DATE COMPONENTS");
        }
    }

    private static void fail(String message) {
        System.err.println("release: " + message);
        System.exit(1);
    }

    static void chart(Path source, Path work, Path out, String version) throws IOException {
        Path chart = work.resolve(source.getFileName());
        deleteTree(work);
        copyTree(source, chart);
        Path chartYaml = chart.resolve("Chart.yaml");
        String text = Files.readString(chartYaml);
        String versioned = text.replaceFirst("(?m)^version: .*$", "version: " + version)
                .replaceFirst("(?m)^appVersion: .*$", "appVersion: \"" + version + "\"");
        if (!versioned.contains("\nversion: " + version + "\n") || !versioned.contains("\nappVersion: \"" + version + "\"\n")) {
            fail(chartYaml + ": no version: or appVersion: line to set to " + version);
        }
        Files.writeString(chartYaml, versioned);
        LintResult lint = new Helm(chart).lint().strict().call();
        if (lint.isFailed()) {
            fail("helm lint --strict " + chart + ": " + String.join("; ", lint.getMessages()));
        }
        Files.createDirectories(out);
        new Helm(chart).packageIt().withDestination(out).call();
        Path packaged = out.resolve("gpu-detect-" + version + ".tgz");
        if (!Files.isRegularFile(packaged)) {
            fail("helm package wrote no " + packaged);
        }
        System.out.println("release: wrote " + packaged + " (helm lint --strict: "
                + (lint.getMessages().isEmpty() ? "no messages" : String.join("; ", lint.getMessages())) + ")");
    }

    static void sbom(Path bomFile, Path out, String version, String date, Path components) throws IOException {
        if (!Files.isRegularFile(bomFile)) {
            // The host archive's build goes on without it (its licences then come from the jars' poms); a release
            // without its SBOM is not one.
            fail(bomFile + " is missing: CycloneDX's makeBom (daemonset/pom.xml) wrote no SBOM; run the release "
                    + "build without -q to see its warnings (offline, Maven may lack the plugin or what it reads)");
        }
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode bom = (ObjectNode) json.readTree(bomFile.toFile());
        ObjectNode metadata = (ObjectNode) bom.path("metadata");
        metadata.put("timestamp", date);
        bom.put("serialNumber", "urn:uuid:"
                + UUID.nameUUIDFromBytes(("gpu-detect " + version + " " + date).getBytes(StandardCharsets.UTF_8)));
        // The release as a whole is the subject, not the Maven module the plugin ran in.
        ObjectNode subject = metadata.putObject("component");
        subject.put("type", "application");
        subject.put("bom-ref", "gpu-detect@" + version);
        subject.put("name", "gpu-detect");
        subject.put("version", version);
        subject.put("description", "gpu-detect's release: host archives (x86_64, aarch64), the image index "
                + "(linux/amd64, linux/arm64) and the Helm chart");
        ArrayNode list = bom.withArray("components");
        int line = 0;
        for (String row : Files.readAllLines(components)) {
            line++;
            if (row.isBlank()) {
                continue;
            }
            String[] f = row.split("\t", -1);
            if (f.length != 6) {
                fail(components + ":" + line + ": expected 6 tab-separated fields (package, version, architecture, "
                        + "Debian release, where, licence), found " + f.length);
            }
            String purl = "pkg:deb/debian/" + f[0] + "@" + f[1].replace(":", "%3A").replace("+", "%2B") + "?arch="
                    + f[2] + "&distro=debian-" + f[3];
            ObjectNode c = list.addObject();
            c.put("type", f[0].startsWith("openjdk") ? "framework" : "library");
            c.put("bom-ref", purl);
            c.put("publisher", "Debian");
            c.put("name", f[0]);
            c.put("version", f[1]);
            c.put("description", f[4]);
            if (!f[5].isEmpty()) {
                c.putArray("licenses").addObject().put("expression", f[5]);
            }
            c.put("purl", purl);
        }
        Files.writeString(out, json.writeValueAsString(bom) + "\n");
        System.out.println("release: wrote " + out + " (" + list.size() + " components)");
    }

    static void recipe(Path dockerfile) throws IOException {
        List<String> instructions = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : Files.readAllLines(dockerfile)) {
            String stripped = line.strip();
            if (stripped.startsWith("#") || (current.isEmpty() && stripped.isEmpty())) {
                continue;
            }
            if (stripped.endsWith("\\")) {
                current.append(stripped, 0, stripped.length() - 1).append(' ');
            } else {
                instructions.add(current.append(stripped).toString().strip());
                current.setLength(0);
            }
        }
        int last = -1;
        for (int i = 0; i < instructions.size(); i++) {
            if (instructions.get(i).toUpperCase(Locale.ROOT).startsWith("FROM ")) {
                last = i;
            }
        }
        if (last < 0) {
            fail(dockerfile + ": no FROM");
        }
        ObjectMapper json = new ObjectMapper();
        List<String> out = new ArrayList<>();
        for (String instruction : instructions.subList(last + 1, instructions.size())) {
            String[] parts = instruction.split("\\s+", 2);
            String argument = parts.length > 1 ? parts[1].strip() : "";
            switch (parts[0].toUpperCase(Locale.ROOT)) {
                case "USER" -> out.addAll(List.of("--user", argument));
                // Read and written again as JSON: exec form only, as the image has no shell.
                case "ENTRYPOINT" -> out.addAll(List.of("--entrypoint", json.writeValueAsString(json.readTree(argument))));
                case "CMD" -> out.addAll(List.of("--cmd", json.writeValueAsString(json.readTree(argument))));
                case "ENV" -> {
                    for (String pair : argument.split("\\s+")) {
                        out.addAll(List.of("--env", pair));
                    }
                }
                case "COPY" -> { } // build-image-index.sh does the copies, and ImageTest checks them
                default -> fail(dockerfile + ": the release's image build does not read " + instruction);
            }
        }
        out.forEach(System.out::println);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        // Links followed: crds/ is a link to the CRDs beside the chart (daemonset/crds).
        try (Stream<Path> walk = Files.walk(from, FileVisitOption.FOLLOW_LINKS)) {
            for (Path p : walk.sorted().toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

}
