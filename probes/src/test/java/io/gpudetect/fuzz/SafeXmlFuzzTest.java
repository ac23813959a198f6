package io.gpudetect.fuzz;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.gpudetect.probe.nvidia.SafeXml;
import java.nio.charset.StandardCharsets;

/** The XML reader on its own: any text gives a tree or an error with a line, never an exception. */
class SafeXmlFuzzTest {

    @FuzzTest
    void document(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        SafeXml.Parsed parsed = SafeXml.parse(text);
        assertNotNull(parsed);
        if (parsed.error() == null) {
            assertNotNull(parsed.root(), "no error and no root");
        } else {
            assertTrue(!parsed.error().isBlank(), "blank error");
            assertTrue(parsed.errorLine() == null
                            || parsed.errorLine() > 0 && parsed.errorLine() <= FuzzInvariants.lines(text) + 1,
                    () -> "error line " + parsed.errorLine() + " outside the input: " + parsed.error());
        }
    }
}
