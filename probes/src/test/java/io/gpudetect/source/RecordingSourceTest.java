package io.gpudetect.source;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a probe reads through a recording source, a replay of the bundle answers the same way. */
class RecordingSourceTest {

    @TempDir
    Path tmp;

    @Test
    void aRecordedSysTreeAndToolReplayAsTheyWereRead() throws Exception {
        Path host = tmp.resolve("host");
        Path device = Files.createDirectories(host.resolve("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"));
        Files.writeString(device.resolve("vendor"), "0x10de\n");
        Files.writeString(device.resolve("unread"), "not read, so not recorded\n");
        Path devices = Files.createDirectories(host.resolve("sys/bus/pci/devices"));
        Files.createSymbolicLink(devices.resolve("0000:01:00.0"),
                Path.of("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0"));

        Path bundleDir = tmp.resolve("bundle");
        RecordingSource recording = new RecordingSource(
                new LiveSource(host, Duration.ofSeconds(5), 1024), bundleDir);
        assertEquals(List.of("0000:01:00.0"), recording.list("/sys/bus/pci/devices"));
        assertEquals("0x10de\n", recording.readFile("/sys/bus/pci/devices/0000:01:00.0/vendor").orElseThrow());
        ToolResult echo = recording.run(ToolCommand.of("echo.txt", "echo", "hello"));
        assertInstanceOf(ToolResult.Completed.class, echo);
        recording.run(ToolCommand.of("missing.txt", "no-such-tool-gpu-detect"));
        assertTrue(recording.finish("test-host", "test").isEmpty());

        BundleSource replay = BundleSource.open(bundleDir);
        assertEquals(List.of("0000:01:00.0"), replay.list("/sys/bus/pci/devices"));
        assertEquals("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0",
                replay.readLink("/sys/bus/pci/devices/0000:01:00.0").orElseThrow());
        assertEquals("0x10de\n", replay.readFile("/sys/bus/pci/devices/0000:01:00.0/vendor").orElseThrow());
        assertTrue(replay.readFile("/sys/bus/pci/devices/0000:01:00.0/unread").isEmpty());
        assertEquals("hello\n", assertInstanceOf(ToolResult.Completed.class,
                replay.run(ToolCommand.of("echo.txt", "echo"))).stdout());
        ToolResult.Absent absent = assertInstanceOf(ToolResult.Absent.class,
                replay.run(ToolCommand.of("missing.txt", "no-such-tool-gpu-detect")));
        assertTrue(absent.reason().contains("not installed"), absent.reason());
        assertEquals("test-host", replay.manifest().host());
    }

    @Test
    void bytesThatAreNotTextAreRecordedAndReplayedExactlyUpToTheLimitAsked() throws Exception {
        Path host = tmp.resolve("host");
        Path device = Files.createDirectories(host.resolve("sys/devices/pci0000:00/0000:00:05.0"));
        byte[] config = new byte[4096];
        for (int i = 0; i < config.length; i++) {
            config[i] = (byte) (i * 7 + 0x80); // bytes >= 0x80 that are not UTF-8: decoded text would change them
        }
        Files.write(device.resolve("config"), config);
        Files.createDirectories(host.resolve("sys/bus/pci/devices"));
        Files.createSymbolicLink(host.resolve("sys/bus/pci/devices/0000:00:05.0"),
                Path.of("../../../devices/pci0000:00/0000:00:05.0"));

        Path bundleDir = tmp.resolve("bundle");
        RecordingSource recording = new RecordingSource(new LiveSource(host, Duration.ofSeconds(5), 1024), bundleDir);
        recording.list("/sys/bus/pci/devices");
        byte[] first = java.util.Arrays.copyOf(config, 256);
        assertArrayEquals(first, recording.readBytes("/sys/bus/pci/devices/0000:00:05.0/config", 256).orElseThrow());
        assertTrue(recording.finish("test-host", "test").isEmpty());

        BundleSource replay = BundleSource.open(bundleDir);
        assertArrayEquals(first, replay.readBytes("/sys/bus/pci/devices/0000:00:05.0/config", 256).orElseThrow());
        assertArrayEquals(java.util.Arrays.copyOf(config, 16),
                replay.readBytes("/sys/bus/pci/devices/0000:00:05.0/config", 16).orElseThrow());
        assertEquals(256, Files.size(bundleDir.resolve("sys/devices/pci0000:00/0000:00:05.0/config")),
                "only the bytes read are recorded");
        assertTrue(replay.readBytes("/sys/bus/pci/devices/0000:00:05.0/missing", 256).isEmpty());
    }
}
