import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Run by build-dist.sh (java -cp 'STAGE/lib/*' Licenses.java STAGE COMMON_LICENSES BOM [SOURCES]): writes STAGE/licenses/,
 * the licence texts of what the archive bundles, so that they travel with the bytes:
 * <ul>
 *   <li>{@code jars/NAME/}: each jar's own licence and notice files (META-INF/LICENSE*, NOTICE*, and the like);</li>
 *   <li>{@code common/ID}: the full text of each licence a jar's pom names (as the cyclonedx plugin resolved it,
 *       parents included: BOM, target/bom.json) but whose text the jar does not carry, from COMMON_LICENSES
 *       (Debian's /usr/share/common-licenses) where it has that licence;</li>
 *   <li>{@code jars/NAME/LICENSE.MIT}: for an MIT jar that carries no text (OSHI), the MIT text with the
 *       copyright lines of its sources jar (SOURCES/NAME-sources.jar, which the build fetches for such jars):
 *       MIT's text names its holders, and Debian's common-licenses has no MIT file to point to.</li>
 *   <li>{@code tables/}: the id tables' licences (pci.ids: GPL-2.0-or-later or BSD-3-Clause; amdgpu.ids: MIT,
 *       libdrm's), with the texts;</li>
 *   <li>{@code README}: per jar its licences as its pom names them and where the text is. The runtime's own
 *       (OpenJDK's) are in runtime/legal/, where jlink writes them.</li>
 * </ul>
 * Exit status 1 with one line when the stage cannot be read or written.
 */
public final class Licenses {

    private static final Pattern LICENSE = Pattern.compile(
            "<license>\\s*<name>([^<]+)</name>(?:\\s*<url>([^<]+)</url>)?", Pattern.DOTALL);
    /** Licence names as poms write them, and the file Debian's common-licenses holds for each. */
    private static final List<String[]> COMMON = List.of(
            new String[] {"apache", "Apache-2.0"}, new String[] {"lgpl-2.1", "LGPL-2.1"}, new String[] {"lgpl", "LGPL-2.1"},
            new String[] {"eclipse public license", null}, new String[] {"mit", null});

    /** The MIT licence's terms, after its copyright lines (the text as the Open Source Initiative gives it). */
    private static final String MIT_TERMS = """
                Permission is hereby granted, free of charge, to any person obtaining a copy of this software and \
                associated documentation files (the "Software"), to deal in the Software without restriction, \
                including without limitation the rights to use, copy, modify, merge, publish, distribute, \
                sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is \
                furnished to do so, subject to the following conditions:

                The above copyright notice and this permission notice shall be included in all copies or \
                substantial portions of the Software.

                THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT \
                NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND \
                NONINFRINGEMENT. IN NO EVENT SHALL THE COPYRIGHT HOLDER(S) OR AUTHOR(S) BE LIABLE FOR ANY CLAIM, \
                DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT \
                OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
                """;
    /** A copyright line in a source file's header: years, then the holder. */
    private static final Pattern COPYRIGHT = Pattern.compile(
            "Copyright\\s+(?:\\(c\\)\\s*|©\\s*)?((?:19|20)\\d\\d)(?:\\s*[-,]\\s*((?:19|20)\\d\\d))?,?\\s+(.+?)\\s*$",
            Pattern.CASE_INSENSITIVE);

    private Licenses() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3 && args.length != 4) {
            System.err.println("usage: java -cp 'STAGE/lib/*' Licenses.java STAGE COMMON_LICENSES BOM [SOURCES]");
            System.exit(1);
        }
        Path stage = Path.of(args[0]);
        Path common = Path.of(args[1]);
        Path sources = args.length == 4 ? Path.of(args[3]) : null;
        // name-version -> the licences the SBOM gives (SPDX ids, else names).
        TreeMap<String, List<String>> bomLicences = new TreeMap<>();
        if (Files.isRegularFile(Path.of(args[2]))) {
            com.fasterxml.jackson.databind.JsonNode bom = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(Path.of(args[2]).toFile());
            for (com.fasterxml.jackson.databind.JsonNode c : bom.path("components")) {
                List<String> ids = new ArrayList<>();
                for (com.fasterxml.jackson.databind.JsonNode l : c.path("licenses")) {
                    com.fasterxml.jackson.databind.JsonNode lic = l.path("license");
                    ids.add(lic.hasNonNull("id") ? lic.path("id").asText() : lic.path("name").asText(l.path("expression").asText()));
                }
                bomLicences.put(c.path("name").asText() + "-" + c.path("version").asText(), ids);
            }
        } else {
            System.err.println("Licenses: " + args[2] + " is missing: licences are named from the jars' own poms only");
        }
        Path out = stage.resolve("licenses");
        deleteTree(out);
        Files.createDirectories(out);
        StringBuilder readme = new StringBuilder("""
                Licences of what this archive bundles. OpenJDK's (the runtime, cut from Debian 11's OpenJDK 17): \
                runtime/legal/.
                Each jar below: its licences as its Maven pom names them, and the files holding their texts.

                """);
        Set<String> commonNeeded = new TreeSet<>();
        List<Path> jars;
        try (Stream<Path> list = Files.list(stage.resolve("lib"))) {
            jars = list.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
        }
        for (Path jar : jars) {
            String name = jar.getFileName().toString().replaceFirst("\\.jar$", "");
            List<String> texts = new ArrayList<>();
            TreeMap<String, String> licences = new TreeMap<>();
            try (ZipFile zip = new ZipFile(jar.toFile())) {
                for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
                    ZipEntry entry = e.nextElement();
                    String path = entry.getName();
                    if (entry.isDirectory() || !path.startsWith("META-INF/")) {
                        continue;
                    }
                    String base = path.substring(path.lastIndexOf('/') + 1).toUpperCase(Locale.ROOT);
                    if (base.startsWith("LICENSE") || base.startsWith("LICENCE") || base.startsWith("NOTICE")
                            || base.startsWith("COPYING") || base.startsWith("AL2.0") || base.startsWith("LGPL2.1")) {
                        Path target = out.resolve("jars").resolve(name).resolve(path.substring("META-INF/".length()));
                        Files.createDirectories(target.getParent());
                        try (InputStream in = zip.getInputStream(entry)) {
                            Files.copy(in, target);
                        }
                        texts.add("jars/" + name + "/" + path.substring("META-INF/".length()));
                    } else if (path.startsWith("META-INF/maven/") && base.equals("POM.XML")) {
                        try (InputStream in = zip.getInputStream(entry)) {
                            Matcher m = LICENSE.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                            while (m.find()) {
                                licences.put(m.group(1).strip(), m.group(2) == null ? "" : m.group(2).strip());
                            }
                        }
                    }
                }
            }
            for (String id : bomLicences.getOrDefault(name, List.of())) {
                licences.putIfAbsent(id, "");
            }
            readme.append(name).append('\n');
            if (name.startsWith("gpu-detect-")) {
                readme.append("  gpu-detect's own code\n");
            }
            licences.forEach((licence, url) -> readme.append("  licence: ").append(licence)
                    .append(url.isEmpty() ? "" : " <" + url + ">").append('\n'));
            if (texts.isEmpty() && !name.startsWith("gpu-detect-")) {
                for (String licence : licences.keySet()) {
                    String file = commonFile(licence);
                    if (file != null && Files.isRegularFile(common.resolve(file))) {
                        commonNeeded.add(file);
                        texts.add("common/" + file);
                    }
                }
            }
            Path sourcesJar = sources == null ? null : sources.resolve(name + "-sources.jar");
            if (texts.isEmpty() && !name.startsWith("gpu-detect-") && isMit(licences.keySet())
                    && sourcesJar != null && Files.isRegularFile(sourcesJar)) {
                List<String> holders = copyrightLines(sourcesJar);
                if (!holders.isEmpty()) {
                    Path target = out.resolve("jars").resolve(name).resolve("LICENSE.MIT");
                    Files.createDirectories(target.getParent());
                    Files.writeString(target, String.join("\n", holders) + "\n\n" + MIT_TERMS);
                    texts.add("jars/" + name + "/LICENSE.MIT (MIT's text with the copyright lines of "
                            + sourcesJar.getFileName() + ")");
                }
            }
            texts.forEach(t -> readme.append("  text: ").append(t).append('\n'));
            if (texts.isEmpty() && !name.startsWith("gpu-detect-")) {
                readme.append("  text: none in the jar, and none in ").append(common)
                        .append(" for its licence: the licence named above, at its address\n");
            }
        }
        for (String file : commonNeeded) {
            Files.createDirectories(out.resolve("common"));
            Files.copy(common.resolve(file), out.resolve("common").resolve(file));
        }
        Path tables = Files.createDirectories(out.resolve("tables"));
        Files.writeString(tables.resolve("pci.ids"), """
                pci.ids (in gpu-detect-probes-*.jar, io/gpudetect/tables/pci.ids), from the PCI ID Project
                <https://pci-ids.ucw.cz/>, maintained by Albert Pool, Martin Mares and other volunteers. Its header: \
                "This file can be distributed under either the GNU General Public License (version 2 or higher) or \
                the 3-clause BSD License." Texts: GPL-2, BSD (beside this file).
                """);
        for (String file : List.of("GPL-2", "BSD")) {
            if (Files.isRegularFile(common.resolve(file))) {
                Files.copy(common.resolve(file), tables.resolve(file));
            }
        }
        Files.writeString(tables.resolve("amdgpu.ids"), """
                amdgpu.ids (in gpu-detect-probes-*.jar, io/gpudetect/tables/amdgpu.ids, where the build could fetch \
                it; its first line names the Debian libdrm-common package it came from), from libdrm \
                <https://gitlab.freedesktop.org/mesa/drm>, data/amdgpu.ids, under libdrm's MIT licence:

                Copyright © 2017 Advanced Micro Devices, Inc.

                """ + MIT_TERMS);
        readme.append("""

                The id tables: tables/pci.ids (GPL-2.0-or-later or BSD-3-Clause), tables/amdgpu.ids (MIT).
                """);
        Files.writeString(out.resolve("README"), readme.toString());
    }

    private static boolean isMit(Set<String> licences) {
        for (String licence : licences) {
            String l = licence.toLowerCase(Locale.ROOT);
            if (l.equals("mit") || l.endsWith(": mit") || l.contains("mit license") || l.contains("mit licence")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The copyright lines of a sources jar's file headers, one per holder with the years all its files span
     * (OSHI's files say 2016-2022, 2020-2024 and so on: its holder's line becomes 2016-2024).
     */
    private static List<String> copyrightLines(Path sourcesJar) throws IOException {
        TreeMap<String, int[]> years = new TreeMap<>();
        try (ZipFile zip = new ZipFile(sourcesJar.toFile())) {
            for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
                ZipEntry entry = e.nextElement();
                if (entry.isDirectory() || !entry.getName().endsWith(".java")) {
                    continue;
                }
                try (InputStream in = zip.getInputStream(entry)) {
                    // The header: the first lines only, so that a string in the code is never taken for one.
                    String head = new String(in.readNBytes(1024), StandardCharsets.UTF_8);
                    for (String line : head.split("\n")) {
                        Matcher m = COPYRIGHT.matcher(line.replaceFirst("^\\s*(?:/?\\*+|//)\\s*", ""));
                        if (m.find()) {
                            int from = Integer.parseInt(m.group(1));
                            int to = m.group(2) == null ? from : Integer.parseInt(m.group(2));
                            years.merge(m.group(3), new int[] {from, to},
                                    (a, b) -> new int[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
                        }
                    }
                }
            }
        }
        List<String> lines = new ArrayList<>();
        years.forEach((holder, span) -> lines.add("Copyright " + span[0] + (span[1] == span[0] ? "" : "-" + span[1])
                + " " + holder));
        return lines;
    }

    private static String commonFile(String licence) {
        String l = licence.toLowerCase(Locale.ROOT);
        for (String[] c : COMMON) {
            if (l.contains(c[0])) {
                return c[1];
            }
        }
        return null;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
