package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The host archive carries the licence text of every jar it bundles (issue 36: licences travel with the bytes),
 * read from the archive itself as a provider unpacks it. OSHI's jar carries none and Debian has no MIT file:
 * dist/Licenses.java writes MIT's text with the copyright lines of OSHI's sources jar.
 */
class ArchiveLicencesTest {

    /** A jar's line in licenses/README: its file name without .jar, ending in its version. */
    private static final Pattern JAR = Pattern.compile("[A-Za-z0-9_.]+(?:-[A-Za-z0-9_.]+)*-\\d[A-Za-z0-9_.-]*");
    private static final String TOP = "gpu-detect-" + Debian11Root.VERSION + "/";

    @BeforeEach
    void afterPackage() {
        // -Dtest=ArchiveLicencesTest also selects it for the test phase, before `package` has built the archive.
        Assumptions.assumeTrue("integration-test".equals(System.getProperty("gpudetect.phase")),
                "runs in the integration-test phase, after package has built the archive");
    }

    @Test
    void everyBundledJarHasItsLicenceTextInTheArchive() throws Exception {
        assertTrue(Files.isRegularFile(Debian11Root.ARCHIVE),
                Debian11Root.ARCHIVE + " is missing: it is built by `package` (profile dist)");
        String readme = fromArchive("licenses/README");
        List<String> without = new ArrayList<>();
        String jar = null;
        boolean text = false;
        for (String line : (readme + "\n").split("\n")) {
            if (!line.startsWith(" ")) {
                if (jar != null && JAR.matcher(jar).matches() && !jar.startsWith("gpu-detect-") && !text) {
                    without.add(jar);
                }
                jar = line.strip();
                text = false;
            } else if (line.startsWith("  text: ") && !line.startsWith("  text: none")) {
                String file = line.substring("  text: ".length()).replaceFirst(" \\(.*", "");
                assertTrue(!fromArchive("licenses/" + file).isBlank(), "licenses/" + file + " is empty or missing");
                text = true;
            }
            if (line.startsWith("The id tables")) {
                break;
            }
        }
        assertEquals(List.of(), without, "jars whose licence text the archive does not carry:\n" + readme);
    }

    @Test
    void oshisMitTextNamesItsHoldersFromItsSources() throws Exception {
        String readme = fromArchive("licenses/README");
        String oshi = readme.lines().filter(l -> l.startsWith("oshi-core-")).findFirst().orElseThrow();
        String licence = fromArchive("licenses/jars/" + oshi + "/LICENSE.MIT");
        // Read from oshi-core's sources jar: every file's header says "Copyright YYYY-YYYY The OSHI Project
        // Contributors", the earliest year 2016.
        assertTrue(Pattern.compile("(?m)^Copyright 2016-20\\d\\d The OSHI Project Contributors$").matcher(licence).find(),
                licence);
        assertTrue(licence.contains("Permission is hereby granted, free of charge"), licence);
        assertTrue(licence.contains("THE SOFTWARE IS PROVIDED \"AS IS\""), licence);
    }

    private static String fromArchive(String path) throws Exception {
        Process tar = new ProcessBuilder("tar", "-xzOf", Debian11Root.ARCHIVE.toString(), TOP + path)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, tar.waitFor(), TOP + path + " is not in " + Debian11Root.ARCHIVE);
        return out;
    }
}
