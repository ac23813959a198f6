package io.gpudetect.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.probe.ToolProbe;
import io.gpudetect.probe.nvidia.NvidiaSmiListParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a live tool misbehaves, with real shell scripts standing in for nvidia-smi: each runs through
 * {@link LiveSource} and {@link ToolProbe} exactly as the agent runs the real tool. Time limits are short
 * (300 ms) so the whole class stays around two seconds.
 */
class LiveToolBehaviourTest {

    private static final Duration LIMIT = Duration.ofMillis(300);

    @TempDir
    Path dir;

    @BeforeAll
    static void needsAPosixShell() {
        assumeTrue(Files.isExecutable(Path.of("/bin/sh")), "these tests run shell scripts");
    }

    private Path script(String name, String body) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }

    private ProbeResult probe(Path tool, LiveSource source) {
        ToolCommand command = ToolCommand.of("nvidia-smi-L.txt", tool.toString(), "-L");
        return new ToolProbe(NvidiaSmiListParser.PROBE, command, NvidiaSmiListParser::parse, io.gpudetect.probe.ProbeRole.NVIDIA_TOOL).probe(source);
    }

    private LiveSource source(Duration limit, int maxBytes) {
        return new LiveSource(dir, limit, maxBytes);
    }

    /** Waits up to two seconds for the process the script recorded to be gone. */
    private boolean exited(Path pidFile) throws Exception {
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        for (int i = 0; i < 40; i++) {
            Optional<ProcessHandle> p = ProcessHandle.of(pid);
            if (p.isEmpty() || !p.get().isAlive() || isZombie(pid)) {
                return true;
            }
            Thread.sleep(50);
        }
        return false;
    }

    /**
     * A process that has exited but was not reaped: its parent died first, and where PID 1 of a container
     * reaps nobody it stays a zombie, which ProcessHandle still calls alive. It holds no pipes and runs no
     * code: for these tests it has exited.
     */
    private static boolean isZombie(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int afterName = stat.lastIndexOf(')');
            return afterName > 0 && afterName + 2 < stat.length() && stat.charAt(afterName + 2) == 'Z';
        } catch (java.io.IOException e) {
            return false;
        }
    }

    @Test
    void aHungToolIsKilledAtTheTimeoutAndReported() throws Exception {
        Path pid = dir.resolve("hang.pid");
        Path tool = script("hang", "echo $$ > " + pid + "\nexec sleep 30");

        long start = System.nanoTime();
        ProbeResult result = probe(tool, source(LIMIT, 1 << 20));
        long ms = (System.nanoTime() - start) / 1_000_000;

        assertEquals(ProbeResult.Outcome.FAILED, result.outcome());
        Diagnostic d = result.diagnostics().get(0);
        assertEquals(Diagnostic.Severity.ERROR, d.severity());
        assertTrue(d.message().contains("did not finish within 300 ms and was killed"), d.message());
        assertTrue(ms < 3000, "returned after " + ms + " ms");
        assertTrue(exited(pid), "the hung tool is still running");
    }

    @Test
    void aToolThatIgnoresSigtermIsStillKilled() throws Exception {
        Path pid = dir.resolve("stubborn.pid");
        Path tool = script("stubborn", "trap '' TERM\necho $$ > " + pid + "\nwhile true; do :; done");

        ProbeResult result = probe(tool, source(LIMIT, 1 << 20));

        assertEquals(ProbeResult.Outcome.FAILED, result.outcome());
        assertTrue(result.diagnostics().get(0).message().contains("was killed"));
        assertTrue(exited(pid), "a tool that ignores SIGTERM survived");
    }

    @Test
    void aChildThatHoldsThePipesIsKilledWithItsParent() throws Exception {
        Path pid = dir.resolve("child.pid");
        // The shell waits on a child that keeps stdout open: killing only the shell would leave the pipe open.
        Path tool = script("parent", "sh -c 'echo $$ > " + pid + "; exec sleep 30'\n");

        // A longer limit than the others: the child must exist before the kill, even on a loaded machine.
        ProbeResult result = probe(tool, source(Duration.ofSeconds(2), 1 << 20));

        assertEquals(ProbeResult.Outcome.FAILED, result.outcome());
        assertTrue(exited(pid), "the child of a killed tool is still running");
    }

    @Test
    void aChildThatIgnoresSigtermOutlivesNoParentThatObeys() throws Exception {
        Path pid = dir.resolve("stubborn-child.pid");
        // The shell obeys SIGTERM; its child ignores it and would keep the pipes open as an orphan.
        Path tool = script("wrapper", "sh -c 'trap \"\" TERM; echo $$ > " + pid + "; while true; do sleep 1; done'\nwait\n");

        ProbeResult result = probe(tool, source(Duration.ofSeconds(2), 1 << 20));

        assertEquals(ProbeResult.Outcome.FAILED, result.outcome());
        assertTrue(exited(pid), "a child that ignores SIGTERM survived its parent");
    }

    @Test
    void aFailingToolGivesAnErrorWithItsOwnMessage() throws Exception {
        Path tool = script("failing", "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\" >&2\nexit 9");

        ProbeResult result = probe(tool, source(Duration.ofSeconds(5), 1 << 20));

        assertEquals(ProbeResult.Outcome.FAILED, result.outcome());
        Diagnostic d = result.diagnostics().get(0);
        assertEquals(Diagnostic.Severity.ERROR, d.severity());
        assertEquals("nvidia-smi-L.txt", d.file());
        assertTrue(d.message().contains("exited with status 9"), d.message());
        assertTrue(d.message().contains("couldn't communicate with the NVIDIA driver"), d.message());
    }

    @Test
    void aToolThatPrintsWithoutEndIsCappedAndKilled() throws Exception {
        Path tool = script("endless", "while true; do echo 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)'; done");
        int cap = 64 * 1024;

        ToolResult result = source(LIMIT, cap).run(ToolCommand.of("nvidia-smi-L.txt", tool.toString()));

        ToolResult.TimedOut timedOut = assertInstanceOf(ToolResult.TimedOut.class, result);
        assertTrue(timedOut.partialStdout().length() <= cap, "kept " + timedOut.partialStdout().length() + " bytes");
        assertTrue(timedOut.partialStdout().startsWith("GPU 0:"));
    }

    @Test
    void outputBeyondTheCapIsCutAndSaidSo() throws Exception {
        int cap = 4096;
        Path tool = script("verbose", "i=0\nwhile [ $i -lt 2000 ]; do echo \"GPU $i: NVIDIA L40S (UUID: GPU-00000000-0000-0000-0000-000000000000)\"; i=$((i+1)); done");

        ProbeResult result = probe(tool, source(Duration.ofSeconds(10), cap));

        assertTrue(result.diagnostics().stream().anyMatch(d -> d.severity() == Diagnostic.Severity.WARNING
                && d.message().contains("cut off at the size limit")), result.diagnostics().toString());
        assertTrue(result.gpus().size() < 2000 && result.gpus().size() > 10, result.gpus().size() + " GPUs");
        assertFalse(result.isComplete());
    }

    @Test
    void aToolThatIsNotInstalledIsAbsentNotAnError() {
        ProbeResult result = probe(dir.resolve("no-such-nvidia-smi"), source(LIMIT, 1 << 20));

        assertEquals(ProbeResult.Outcome.ABSENT, result.outcome());
        assertEquals(Diagnostic.Severity.INFO, result.diagnostics().get(0).severity());
        assertTrue(result.isComplete());
    }

    @Test
    void aWorkingToolIsRead() throws Exception {
        Path tool = script("good", "echo 'GPU 0: NVIDIA L40S (UUID: GPU-5b2f3b3e-8c8e-4d3c-9f4c-2c2b0b1f8a11)'");

        ProbeResult result = probe(tool, source(Duration.ofSeconds(5), 1 << 20));

        assertEquals(ProbeResult.Outcome.OK, result.outcome());
        assertEquals("NVIDIA L40S", result.gpus().get(0).name());
    }
}
