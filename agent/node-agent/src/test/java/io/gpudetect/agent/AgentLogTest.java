package io.gpudetect.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class AgentLogTest {

    @Test
    void valuesThatALogShipperCouldSplitAreQuoted() {
        assertEquals("node-1", AgentLog.quote("node-1"));
        assertEquals("gpu-detect.io/gpu.model:a@b+c_d", AgentLog.quote("gpu-detect.io/gpu.model:a@b+c_d"));
        assertEquals("\"\"", AgentLog.quote(""), "an empty value is quoted, so the key still has one");
        assertEquals("\"pass done\"", AgentLog.quote("pass done"));
        assertEquals("\"a=b\"", AgentLog.quote("a=b"));
        assertEquals("\"say \\\"hi\\\"\"", AgentLog.quote("say \"hi\""));
        assertEquals("\"two\\nlines\"", AgentLog.quote("two\nlines"));
        assertEquals("\"caf\u00e9\"", AgentLog.quote("caf\u00e9"), "only ASCII letters stand bare");
    }

    @Test
    void oneEventIsOneLogfmtLine() {
        StringWriter out = new StringWriter();
        new AgentLog(new PrintWriter(out), Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC))
                .info("pass done", "node", "node-1", "error", "none", "labels", "+2 -1");
        assertEquals("time=2026-01-01T00:00:00Z level=info msg=\"pass done\" node=node-1 error=none labels=\"+2 -1\""
                + System.lineSeparator(), out.toString());
    }
}
