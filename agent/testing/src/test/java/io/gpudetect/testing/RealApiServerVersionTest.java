package io.gpudetect.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which supplied kube-apiserver the real-server tests start, and the flags that make it serve DRA. */
class RealApiServerVersionTest {

    @TempDir
    Path dir;

    private void binary(String folder, boolean executable) throws IOException {
        Path bin = Files.createDirectories(dir.resolve("k8s").resolve(folder)).resolve("kube-apiserver");
        Files.writeString(bin, "#!/bin/sh\n");
        Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString(executable ? "rwxr-xr-x" : "rw-r--r--"));
    }

    @Test
    void theNewestFolderWithAnExecutableApiServerWins() throws IOException {
        assertEquals(Optional.empty(), RealApiServer.suppliedVersion(dir), "no k8s folder");
        binary("1.26.1-linux-amd64", true);
        binary("1.9.0-linux-amd64", true);
        binary("1.35.0-linux-amd64", false);
        Files.createDirectories(dir.resolve("k8s/1.40.0-linux-amd64"));
        assertEquals(Optional.of("1.26.1"), RealApiServer.suppliedVersion(dir),
                "1.9 is older than 1.26 (compared as numbers); 1.35's is not executable; 1.40 has none");
        binary("1.34.1-linux-amd64", true);
        assertEquals(Optional.of("1.34.1"), RealApiServer.suppliedVersion(dir));
    }

    @Test
    void draIsTurnedOnWhereItIsOffByDefault() {
        assertEquals(Map.of(), RealApiServer.draFlags("1.26.1"), "no resource.k8s.io to turn on");
        assertEquals(Map.of("--runtime-config", "resource.k8s.io/v1beta1=true",
                "--feature-gates", "DynamicResourceAllocation=true"), RealApiServer.draFlags("1.32.4"));
        assertEquals(Map.of("--runtime-config", "resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true",
                "--feature-gates", "DynamicResourceAllocation=true"), RealApiServer.draFlags("1.33.0"));
        assertEquals(Map.of(), RealApiServer.draFlags("1.34.1"), "v1 is on by default (GA)");
        assertTrue(RealApiServer.atLeast("1.32.0", 1, 32));
        assertFalse(RealApiServer.atLeast("1.31.9", 1, 32));
        assertTrue(RealApiServer.atLeast("2.0.0", 1, 32));
    }
}
