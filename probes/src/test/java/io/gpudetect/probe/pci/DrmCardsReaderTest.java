package io.gpudetect.probe.pci;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.gpudetect.model.PciAddress;
import io.gpudetect.source.LiveSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent reads {@code /sys/class/drm} at every pass through one {@link DrmCards.Reader}, which answers its last
 * value while the cards' links are as they were: each read must still say what a first read of the host says now.
 */
class DrmCardsReaderTest {

    @TempDir
    Path root;

    private Path drm() {
        return root.resolve("sys/class/drm");
    }

    /** A {@code cardN}-like link in {@code /sys/class/drm} to the DRM folder of the function at {@code address}. */
    private void link(String name, String address) throws IOException {
        String bus = address.substring(5, 7);
        Files.createSymbolicLink(drm().resolve(name),
                Path.of("../../devices/pci0000:" + bus + "/0000:" + bus + ":01.1/" + address + "/drm/" + name.replaceAll("-.*", "")));
    }

    private static DrmCards.Card card(String name, String address) {
        return new DrmCards.Card(name, PciAddress.parse(address).orElseThrow());
    }

    @Test
    void eachReadSaysWhatTheHostHoldsNowAndTheSameValueWhileNothingChanged() throws IOException {
        LiveSource source = new LiveSource(root, Duration.ofSeconds(5), LiveSource.DEFAULT_MAX_OUTPUT_BYTES);
        DrmCards.Reader reader = new DrmCards.Reader(source);
        DrmCards absent = reader.read();
        assertEquals(new DrmCards.Listed(false, List.of()), absent, "no /sys/class/drm");
        assertSame(absent, reader.read());

        // The BMC's VGA (ast) and nvidia_drm's first GPU, with a connector and a render node ghw does not count.
        Files.createDirectories(drm());
        link("card0", "0000:e1:00.0");
        link("card0-VGA-1", "0000:e1:00.0");
        link("card1", "0000:07:00.0");
        link("renderD128", "0000:07:00.0");
        Files.writeString(drm().resolve("version"), "drm 1.1.0 20060810\n");
        DrmCards first = reader.read();
        assertEquals(new DrmCards.Listed(true, List.of(card("card0", "0000:e1:00.0"), card("card1", "0000:07:00.0"))), first);
        assertEquals(DrmCards.read(source), first);
        assertSame(first, reader.read(), "unchanged: the very value");

        // nvidia_drm loaded again with its cards in another order: the same names, other targets.
        Files.delete(drm().resolve("card1"));
        link("card1", "0000:0f:00.0");
        DrmCards retargeted = reader.read();
        assertEquals(new DrmCards.Listed(true, List.of(card("card0", "0000:e1:00.0"), card("card1", "0000:0f:00.0"))), retargeted);
        assertEquals(DrmCards.read(source), retargeted);

        link("card2", "0000:47:00.0");
        DrmCards added = reader.read();
        assertEquals(List.of(card("card0", "0000:e1:00.0"), card("card1", "0000:0f:00.0"), card("card2", "0000:47:00.0")),
                ((DrmCards.Listed) added).cards());
        assertSame(added, reader.read());

        // A card that is no link any more (ghw skips it), then nvidia_drm unloaded, then no folder at all.
        Files.delete(drm().resolve("card2"));
        Files.writeString(drm().resolve("card2"), "not a link");
        assertEquals(retargeted, reader.read());
        Files.delete(drm().resolve("card2"));
        Files.delete(drm().resolve("card1"));
        Files.delete(drm().resolve("renderD128"));
        assertEquals(new DrmCards.Listed(true, List.of(card("card0", "0000:e1:00.0"))), reader.read());
        try (var entries = Files.list(drm())) {
            for (Path p : entries.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(drm());
        assertEquals(new DrmCards.Listed(false, List.of()), reader.read(), "the folder gone");
    }
}
