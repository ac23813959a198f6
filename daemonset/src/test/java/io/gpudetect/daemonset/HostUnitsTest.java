package io.gpudetect.daemonset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host archive's systemd units ({@code daemonset/host/}): systemd itself reads them without a warning,
 * and the service runs as the user the sysusers file creates, with AMD's device groups and a state folder
 * that others can read.
 */
class HostUnitsTest {

    private static final Path HOST = Chart.MODULE.resolve("host");
    private static final String INSTALL_DIR = "/opt/gpu-detect/";

    @TempDir
    Path tmp;

    /**
     * {@code systemd-analyze verify} also checks that ExecStart= names an executable: the units are checked
     * as copies whose {@code /opt/gpu-detect/} points at a stand-in launcher, the only change made to them.
     */
    @Test
    void systemdVerifiesTheUnitsWithoutAWarning() throws Exception {
        String analyze = systemdAnalyze();
        Path launcher = Files.createDirectories(tmp.resolve("opt/gpu-detect/bin")).resolve("gpu-detect-json");
        Files.writeString(launcher, "#!/bin/sh\n");
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path units = Files.createDirectories(tmp.resolve("units"));
        for (String unit : List.of("gpu-detect.service", "gpu-detect.timer")) {
            Files.writeString(units.resolve(unit), Files.readString(HOST.resolve(unit))
                    .replace(INSTALL_DIR, tmp.resolve("opt/gpu-detect") + "/"));
        }
        assertEquals("", verify(analyze, units.resolve("gpu-detect.service"), units.resolve("gpu-detect.timer")));

        // The same check reports a misspelt key, so an empty answer above means something.
        Path misspelt = Files.createDirectories(tmp.resolve("misspelt")).resolve("gpu-detect.service");
        Files.writeString(misspelt, Files.readString(units.resolve("gpu-detect.service"))
                .replace("SupplementaryGroups=", "SupplementalGroups="));
        assertTrue(verify(analyze, misspelt).contains("Unknown key 'SupplementalGroups'"));
    }

    @Test
    void theServiceRunsAsTheSysusersUserWithAmdDeviceGroupsAndAReadableStateFolder() throws IOException {
        List<String> service = Files.readAllLines(HOST.resolve("gpu-detect.service"));
        assertTrue(service.contains("SupplementaryGroups=render video"), service.toString());
        assertTrue(service.contains("StateDirectory=gpu-detect"), service.toString());
        assertTrue(service.contains("StateDirectoryMode=0755"), service.toString());
        assertTrue(service.contains("UMask=0022"), service.toString());
        // A dynamic user's state folder is /var/lib/private/gpu-detect, behind a folder of mode 0700.
        assertFalse(service.stream().anyMatch(l -> l.startsWith("DynamicUser=") && !l.equals("DynamicUser=no")),
                service.toString());
        String sysusers = Files.readAllLines(HOST.resolve("gpu-detect.sysusers")).stream()
                .filter(l -> l.startsWith("u ")).findFirst().orElseThrow();
        String user = sysusers.split("\\s+")[1];
        assertTrue(service.contains("User=" + user), service.toString());
        assertTrue(Files.readString(Chart.MODULE.resolve("dist/gpu-detect-json")).contains("chmod 644 \"$tmp\""));
    }

    private static String systemdAnalyze() {
        for (String dir : List.of("/usr/bin", "/bin")) {
            if (Files.isExecutable(Path.of(dir, "systemd-analyze"))) {
                return dir + "/systemd-analyze";
            }
        }
        Assumptions.abort("systemd-analyze is not installed (Debian package systemd; .ci/run installs it): "
                + "the units are not verified");
        return null;
    }

    private String verify(String analyze, Path... units) throws Exception {
        List<String> command = new ArrayList<>(List.of(analyze, "verify", "--man=no"));
        for (Path u : units) {
            command.add(u.toString());
        }
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(tmp.resolve("verify.log").toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("systemd-analyze verify did not finish in 60 s");
        }
        return Files.readString(tmp.resolve("verify.log"), StandardCharsets.UTF_8).strip();
    }
}
