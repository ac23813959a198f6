package io.gpudetect.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.source.BundleException;
import io.gpudetect.source.BundleSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a host or a tool can do to the agent on purpose or by breaking: each case must end, quickly, in
 * a diagnostic, with the output bounded. Inputs are replayed through a bundle, the way a user's report
 * or a test fixture is, so they pass through the same {@link BundleSource} and {@link ToolProbe} code.
 */
class HostileInputTest {

    /** Generous for a shared CI machine; every case here finishes in milliseconds. */
    private static final Duration QUICKLY = Duration.ofSeconds(5);

    @TempDir
    Path bundle;

    private ProbeResult replay(String probeName, String file, byte[] content) throws Exception {
        Files.write(bundle.resolve(file), content);
        Probe probe = Probes.defaults().stream().filter(p -> p.name().equals(probeName)).findFirst().orElseThrow();
        BundleSource source = BundleSource.open(bundle);
        return assertTimeoutPreemptively(QUICKLY, () -> probe.probe(source));
    }

    private ProbeResult replay(String probeName, String file, String content) throws Exception {
        return replay(probeName, file, content.getBytes(StandardCharsets.UTF_8));
    }

    private static String xml(String gpuBody) {
        return "<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n<nvidia_smi_log>\n"
                + "<driver_version>535.86.05</driver_version>\n<attached_gpus>1</attached_gpus>\n"
                + "<gpu id=\"00000000:01:00.0\">\n" + gpuBody + "\n</gpu>\n</nvidia_smi_log>\n";
    }

    private static boolean mentions(ProbeResult r, String text) {
        return r.diagnostics().stream().anyMatch(d -> d.message().contains(text));
    }

    @Test
    void anEntityBombIsRefusedBeforeExpansion() throws Exception {
        StringBuilder dtd = new StringBuilder("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n");
        for (int i = 1; i <= 9; i++) {
            dtd.append("<!ENTITY lol").append(i).append(" \"").append(("&lol" + (i == 1 ? "" : i - 1) + ";").repeat(10))
                    .append("\">\n");
        }
        String bomb = dtd + "]>\n<nvidia_smi_log><driver_version>&lol9;</driver_version></nvidia_smi_log>\n";
        ProbeResult r = replay("nvidia-smi-xml", "nvidia-smi.xml", bomb);
        assertEquals(ProbeResult.Outcome.FAILED, r.outcome());
        Diagnostic d = r.diagnostics().get(0);
        assertTrue(d.message().contains("entity declarations are not accepted"), d.message());
        assertEquals(3, d.line(), "the line of the first <!ENTITY");
    }

    @Test
    void anExternalDoctypeIsNeverFetched(@TempDir Path elsewhere) throws Exception {
        Path secret = Files.writeString(elsewhere.resolve("secret.dtd"), "<!ENTITY name \"SECRET-4711\">");
        String text = "<?xml version=\"1.0\"?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"" + secret.toUri() + "\">\n"
                + "<nvidia_smi_log><gpu id=\"00000000:01:00.0\"><product_name>&name;</product_name></gpu></nvidia_smi_log>\n";
        ProbeResult r = replay("nvidia-smi-xml", "nvidia-smi.xml", text);
        assertFalse(r.toString().contains("SECRET-4711"), r.toString());
    }

    @Test
    void deeplyNestedXmlStopsAtTheDepthLimit() throws Exception {
        String deep = "<nvidia_smi_log>" + "<a>".repeat(200_000) + "</a>".repeat(200_000) + "</nvidia_smi_log>";
        ProbeResult r = replay("nvidia-smi-xml", "nvidia-smi.xml", deep);
        assertTrue(mentions(r, "nested deeper than 64"), r.diagnostics().toString());
    }

    @Test
    void deeplyNestedJsonInTheManifestIsAClearRefusal() throws IOException {
        // Under a key the manifest does not know, so that only the nesting limit can refuse it.
        Files.writeString(bundle.resolve("bundle.json"), "{\"extra\": " + "[".repeat(100_000) + "]".repeat(100_000) + "}");
        BundleException e = assertThrows(BundleException.class,
                () -> assertTimeoutPreemptively(QUICKLY, () -> BundleSource.open(bundle)));
        // The object is level 1, so the 32nd bracket (column 42, after the 10 characters of {"extra": ) is level 33;
        // the parser stops just after it.
        assertTrue(e.getMessage().endsWith("bundle.json:1:43: not a valid bundle manifest: Document nesting depth (33)"
                + " exceeds the maximum allowed (32)"), e.getMessage());
    }

    @Test
    void aHugeManifestIsRefusedAtTheSizeLimit() throws IOException {
        Files.writeString(bundle.resolve("bundle.json"), "{\"host\": \"" + "x".repeat(5 * 1024 * 1024) + "\"}");
        BundleException e = assertThrows(BundleException.class, () -> BundleSource.open(bundle));
        assertTrue(e.getMessage().contains("not a valid bundle manifest") && e.getMessage().contains("exceeds the maximum"),
                e.getMessage());
        assertEquals(1, e.getMessage().lines().count());
    }

    @Test
    void aOneMegabyteLineIsCutToAShortName() throws Exception {
        String name = "NVIDIA " + "X".repeat(1024 * 1024);
        ProbeResult r = replay("nvidia-smi-list", "nvidia-smi-L.txt",
                "GPU 0: " + name + " (UUID: GPU-27b94a00-ed54-5c24-b1fd-1054085de32a)\n");
        Gpu gpu = r.gpus().get(0);
        assertEquals(FieldLimits.MAX_VALUE_CHARS, gpu.name().length());
        assertTrue(gpu.name().startsWith("NVIDIA XXX") && gpu.name().endsWith("..."), gpu.name());
        assertEquals(ProbeResult.Outcome.PARTIAL, r.outcome());
        assertTrue(mentions(r, "name had control characters or more than 256 characters; cut to fit"), r.toString());
        r.diagnostics().forEach(d -> assertTrue(d.message().length() <= FieldLimits.MAX_MESSAGE_CHARS));
    }

    @Test
    void aHundredThousandCharacterProductNameIsCut() throws Exception {
        ProbeResult r = replay("nvidia-smi-xml", "nvidia-smi.xml",
                xml("<product_name>" + "NVIDIA H100 ".repeat(9000) + "</product_name>"));
        assertEquals(FieldLimits.MAX_VALUE_CHARS, r.gpus().get(0).name().length());
        assertTrue(mentions(r, "GPU 0000:01:00.0: name had"), r.diagnostics().toString());
    }

    @Test
    void aLongGarbageValueIsQuotedOnlyInPart() throws Exception {
        ProbeResult r = replay("nvidia-smi-xml", "nvidia-smi.xml",
                xml("<fb_memory_usage><total>" + "lots ".repeat(100_000) + "</total></fb_memory_usage>"));
        Diagnostic d = r.diagnostics().stream().filter(x -> x.message().contains("is not a size")
                || x.message().contains("lots lots")).findFirst().orElseThrow(() -> new AssertionError(r.diagnostics()));
        assertTrue(d.message().length() <= FieldLimits.MAX_MESSAGE_CHARS, "message of " + d.message().length());
        assertNull(r.gpus().get(0).memoryMiB());
    }

    @Test
    void hugeNumbersAreRefusedNotSaturated() throws Exception {
        ProbeResult r = replay("nvidia-smi-xml", "nvidia-smi.xml", xml(
                "<fb_memory_usage>\n<total>99999999999999999999 MiB</total>\n</fb_memory_usage>\n"
                        + "<gpu_power_readings>\n<current_power_limit>" + "9".repeat(400) + " W</current_power_limit>\n"
                        + "</gpu_power_readings>"));
        Gpu gpu = r.gpus().get(0);
        assertNull(gpu.memoryMiB(), "not Long.MAX_VALUE");
        assertNull(gpu.powerLimitWatts(), "not Infinity");
        assertTrue(mentions(r, "'99999999999999999999 MiB' is not a plausible GPU memory size (more than 16 TiB)"),
                r.diagnostics().toString());
        assertTrue(r.diagnostics().stream().allMatch(d -> d.line() != null && d.line() > 0), r.diagnostics().toString());
    }

    @Test
    void nulBytesAreBinaryNotText() throws Exception {
        ProbeResult r = replay("nvidia-smi-list", "nvidia-smi-L.txt",
                "GPU 0: NVIDIA A10G\0\0\0 (UUID: GPU-27b94a00-ed54-5c24-b1fd-1054085de32a)\n");
        assertEquals(ProbeResult.Outcome.FAILED, r.outcome());
        assertTrue(mentions(r, "binary data (NUL bytes)"), r.toString());
    }

    @Test
    void controlCharactersNeverReachTheInventory() throws Exception {
        // An escape sequence that would retitle the terminal and ring its bell if a table printed it raw.
        ProbeResult r = replay("nvidia-smi-list", "nvidia-smi-L.txt",
                "GPU 0: NVIDIA A10G\u001b]0;owned\u0007\u009b31m (UUID: GPU-27b94a00-ed54-5c24-b1fd-1054085de32a)\n");
        String name = r.gpus().get(0).name();
        assertEquals("NVIDIA A10G\uFFFD]0;owned\uFFFD\uFFFD31m", name);
        assertTrue(mentions(r, "name had control characters"), r.toString());
    }

    @Test
    void xmlRefusesControlCharactersItself() throws Exception {
        ProbeResult r = replay("nvidia-smi-xml", "nvidia-smi.xml", xml("<product_name>NVIDIA A10G\u001b]0;x</product_name>"));
        assertTrue(r.gpus().isEmpty());
        assertTrue(r.diagnostics().get(0).line() > 0, r.toString());
    }

    @Test
    void invalidUtf8BecomesReplacementCharacters() throws Exception {
        byte[] line = "GPU 0: NVIDIA A10G \u00ff\u00fe (UUID: GPU-27b94a00-ed54-5c24-b1fd-1054085de32a)\n"
                .getBytes(StandardCharsets.ISO_8859_1);
        ProbeResult r = replay("nvidia-smi-list", "nvidia-smi-L.txt", line);
        List<Gpu> gpus = r.gpus();
        assertEquals(1, gpus.size(), r.toString());
        assertEquals("NVIDIA A10G \uFFFD\uFFFD", gpus.get(0).name());
        assertEquals("GPU-27b94a00-ed54-5c24-b1fd-1054085de32a", gpus.get(0).uuid());
    }
}
