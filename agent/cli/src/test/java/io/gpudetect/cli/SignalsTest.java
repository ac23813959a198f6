package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Whether SIGHUP was ignored when the process started, read from the kernel's status file as the agent reads it. */
class SignalsTest {

    @TempDir
    Path tmp;

    private Path status(String sigIgn) throws Exception {
        return Files.writeString(tmp.resolve("status"), "Name:\tjava\nSigBlk:\t0000000000000000\nSigIgn:\t" + sigIgn
                + "\nSigCgt:\t2000000181005ccf\n");
    }

    @Test
    void bitZeroOfSigIgnIsSighup() throws Exception {
        // nohup: SIGHUP (1) ignored, as is SIGPIPE (13) in many shells' children.
        assertTrue(Signals.hangupIgnored(status("0000000000001001")));
        // SIGPIPE only, and SIGINT (2) only: SIGHUP is not ignored.
        assertFalse(Signals.hangupIgnored(status("0000000000001000")));
        assertFalse(Signals.hangupIgnored(status("0000000000000002")));
    }

    @Test
    void aMissingOrOddStatusFileIsTakenAsNotIgnored() throws Exception {
        assertFalse(Signals.hangupIgnored(tmp.resolve("absent")));
        assertFalse(Signals.hangupIgnored(status("not hex")));
    }
}
