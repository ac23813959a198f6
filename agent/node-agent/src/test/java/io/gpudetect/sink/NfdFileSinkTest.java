package io.gpudetect.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.testing.Targets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The features file sink's decisions, (file on disk, pass output) -> change, and the file it writes. */
class NfdFileSinkTest {

    private static DesiredState output(Map<String, String> labels, boolean complete) {
        return Targets.labels(labels, complete);
    }

    @Test
    void decisions(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("features.d/gpu-detect");
        NfdFileSink sink = new NfdFileSink(file);
        Map<String, String> labels = Map.of("gpu-detect.io/gpu.count", "2");

        assertFalse(Targets.decide(sink, output(labels, false)).writes(), "incomplete: no file is written");
        NfdFileSink.FileChange first = Targets.decide(sink, output(labels, true));
        assertTrue(first.writes(), "no file yet");
        assertEquals(0, sink.apply(first), "a file is no API request");
        assertEquals("# Written by gpu-detect; rewritten after every complete pass.\ngpu-detect.io/gpu.count=2\n",
                Files.readString(file));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)),
                "NFD's worker runs as another user");
        assertFalse(Targets.decide(sink, output(labels, true)).writes(), "same content: not written again");
        assertTrue(Targets.decide(sink, output(Map.of("gpu-detect.io/gpu.count", "3"), true)).writes());
        assertFalse(Targets.decide(sink, output(Map.of("gpu-detect.io/gpu.count", "3"), false)).writes(),
                "incomplete: the file keeps the last complete pass's labels");
    }
}
