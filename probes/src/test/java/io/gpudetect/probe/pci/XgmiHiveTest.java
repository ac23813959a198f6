package io.gpudetect.probe.pci;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuLinks;
import io.gpudetect.model.Interconnect;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.source.BundleSource;
import io.gpudetect.source.LiveSource;
import io.gpudetect.source.RecordingSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * AMD's XGMI hives from a fake {@code /sys}: as amdgpu lays them out, the first card of a hive holds the
 * {@code xgmi_hive_info} folder with {@code xgmi_hive_id}, the others link to it.
 */
class XgmiHiveTest {

    @TempDir
    Path tmp;

    private Path root() {
        return tmp.resolve("host");
    }

    private Path card(String address) throws IOException {
        Path dir = root().resolve("sys/devices/pci0000:00/" + address);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("class"), "0x120000\n");
        Files.writeString(dir.resolve("vendor"), "0x1002\n");
        Files.writeString(dir.resolve("device"), "0x74a1\n");
        Files.writeString(dir.resolve("subsystem_vendor"), "0x1002\n");
        Files.writeString(dir.resolve("subsystem_device"), "0x74a1\n");
        Files.writeString(dir.resolve("revision"), "0x00\n");
        Path links = root().resolve("sys/bus/pci/devices");
        Files.createDirectories(links);
        Files.createSymbolicLink(links.resolve(address), Path.of("../../../devices/pci0000:00/" + address));
        Files.createDirectories(root().resolve("sys/bus/pci/drivers/amdgpu"));
        Files.createSymbolicLink(dir.resolve("driver"), Path.of("../../../bus/pci/drivers/amdgpu"));
        return dir;
    }

    /** A hive: its folder under the first card, with {@code id}, and a link to it from each other card. */
    private void hive(String id, Path first, Path... others) throws IOException {
        Files.createDirectories(first.resolve("xgmi_hive_info"));
        Files.writeString(first.resolve("xgmi_hive_info/xgmi_hive_id"), id + "\n");
        for (Path o : others) {
            Files.createSymbolicLink(o.resolve("xgmi_hive_info"), Path.of("../" + first.getFileName() + "/xgmi_hive_info"));
        }
    }

    private ProbeResult probe() {
        return new SysfsPciProbe().probe(new LiveSource(root(), Duration.ofSeconds(5), LiveSource.DEFAULT_MAX_OUTPUT_BYTES));
    }

    private static String address(int i) {
        return String.format("0000:%02x:00.0", 0x05 + 0x10 * i);
    }

    @Test
    void eightCardsOfOneHiveAreAllToAllOverXgmi() throws IOException {
        List<Path> cards = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            cards.add(card(address(i)));
        }
        // A hive id past the signed 64-bit range, as the kernel prints it (%llu).
        hive("17293822569102704640", cards.get(0), cards.subList(1, 8).toArray(Path[]::new));

        ProbeResult r = probe();

        assertEquals(List.of(), r.diagnostics().stream().filter(d -> d.severity() != Diagnostic.Severity.INFO).toList());
        Gpu first = r.gpus().get(0);
        assertEquals(7, first.links().links().size());
        assertEquals(new GpuLinks.Link(GpuLinks.Kind.XGMI, true, null, GpuLinks.Remote.GPU, address(1), 1),
                first.links().links().get(0));
        Interconnect i = Interconnect.of(r.gpus());
        assertEquals("all-to-all", i.topology(), i.summary());
        assertEquals("8 GPUs all-to-all over XGMI", i.summary());
        assertEquals("xgmi", i.kind());
        assertTrue(i.allPairsJoined());
    }

    @Test
    void cardsOfTwoHivesACardInNoneAndOneWithoutTheFolder() throws IOException {
        Path a = card(address(0));
        Path b = card(address(1));
        Path c = card(address(2));
        Path d = card(address(3));
        Path alone = card(address(4));
        card(address(5));
        hive("42", a, b);
        hive("43", c, d);
        hive("0", alone);

        List<Gpu> gpus = probe().gpus();

        assertEquals(List.of(address(1)), gpus.get(0).links().links().stream().map(GpuLinks.Link::remotePciAddress).toList());
        assertEquals(List.of(address(2)), gpus.get(3).links().links().stream().map(GpuLinks.Link::remotePciAddress).toList());
        assertEquals(new GpuLinks(List.of(), null), gpus.get(4).links(), "hive 0: in no hive, a fact");
        assertNull(gpus.get(5).links(), "no xgmi_hive_info: not read");
        assertEquals("pairs", Interconnect.of(gpus.subList(0, 4)).topology());
    }

    @Test
    void aRecordingKeepsTheHiveAndReplaysToTheSameLinks() throws Exception {
        Path a = card(address(0));
        Path b = card(address(1));
        hive("42", a, b);
        Path bundle = tmp.resolve("bundle");
        RecordingSource recording = new RecordingSource(new LiveSource(root(), Duration.ofSeconds(5),
                LiveSource.DEFAULT_MAX_OUTPUT_BYTES), bundle);

        ProbeResult live = new SysfsPciProbe().probe(recording);
        List<String> problems = recording.finish("test", "test");
        ProbeResult replayed = new SysfsPciProbe().probe(BundleSource.open(bundle));

        assertTrue(problems.isEmpty(), problems.toString());
        assertEquals(1, live.gpus().get(1).links().links().size());
        assertEquals(live, replayed);
    }

    @Test
    void aHiveIdThatIsNoNumberIsWarnedWithItsFile() throws IOException {
        Path a = card(address(0));
        hive("hive-1", a);

        ProbeResult r = probe();

        assertNull(r.gpus().get(0).links());
        Diagnostic w = r.diagnostics().stream().filter(d -> d.severity() == Diagnostic.Severity.WARNING).findFirst().orElseThrow();
        assertTrue(w.file().endsWith("/xgmi_hive_info/xgmi_hive_id"), w.file());
        assertTrue(w.message().contains("'hive-1'"), w.message());
    }
}
