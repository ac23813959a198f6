package io.gpudetect.daemonset;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a program to its end (or a time limit) and returns its status and output, stdout and stderr together. */
final class Processes {

    private Processes() {
    }

    record Result(int exit, String output) {
    }

    static Result run(List<String> command, int seconds) throws Exception {
        return run(new ProcessBuilder(command), seconds);
    }

    static Result run(ProcessBuilder pb, int seconds) throws Exception {
        Path log = Files.createTempFile("gpu-detect-test", ".log");
        try {
            Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                throw new AssertionError(pb.command() + " did not finish in " + seconds + " s");
            }
            return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
