package io.gpudetect.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import io.gpudetect.tables.AkashGpus;
import io.gpudetect.tables.Tables;
import io.gpudetect.testing.SharedData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Names without the network (issue 39, class 4): a host with no network, or run with {@code --akash-table none},
 * must give a card the slug Akash's table gives it, from our own rules over pci.ids and the name. Read over every
 * entry of the shared copy of Akash's table ({@code shared/data/akash-gpus.json}, never committed here): each
 * entry's PCI ids, the memory it is sold with, and the name pci.ids gives those ids, normalised without the table.
 * The entries our rules cannot reach are listed below with the reason; any other disagreement fails, and so does an
 * exception that our rules have come to agree with (it would be stale).
 */
class OfflineSlugTest {

    /**
     * Entries whose slug our rules do not give, by vendor and device id, with why: each is a fact the ids and name
     * do not carry, or a spelling of Akash's that contradicts its own other entries (a rule that gave it would
     * break those).
     */
    private static final Map<String, String> EXCEPTIONS = Map.ofEntries(
            Map.entry("10de:f297", "not a PCI device id in pci.ids (no NVIDIA id starts with f); the ids name nothing"),
            Map.entry("10de:147f", "not in the shipped pci.ids; the ids name nothing"),
            Map.entry("10de:1df0", "pci.ids names it by its board number, 'Tesla PG500-216'; that it is a V100 is in no name"),
            Map.entry("1002:66a1", "one id for the Radeon Instinct MI50 (16 and 32 GB), MI60 and Radeon Pro VII, told apart by"
                    + " revision; Akash keys the id alone as 'mi60', pci.ids names 'Radeon Pro VII/Radeon Instinct MI50 32GB'"));

    private static Normaliser offline() {
        return new Normaliser(Tables.shipped(() -> AkashGpus.absent("offline: --akash-table none")));
    }

    /** Each entry of the shared table: vendor id, device id, Akash's slug and memory. */
    private record Entry(String vendorId, String deviceId, String slug, Integer memoryGi) {
        String key() {
            return vendorId + ":" + deviceId;
        }
    }

    private static List<Entry> entries() throws IOException {
        Path file = Path.of(SharedData.akashTableOption());
        JsonNode root = new ObjectMapper().readTree(Files.readString(file));
        List<Entry> entries = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> vendors = root.fields(); vendors.hasNext(); ) {
            Map.Entry<String, JsonNode> vendor = vendors.next();
            for (Iterator<Map.Entry<String, JsonNode>> devices = vendor.getValue().path("devices").fields(); devices.hasNext(); ) {
                Map.Entry<String, JsonNode> device = devices.next();
                String size = device.getValue().path("memory_size").asText("");
                Integer gi = size.matches("\\d+Gi") ? Integer.valueOf(size.substring(0, size.length() - 2)) : null;
                entries.add(new Entry(vendor.getKey().toLowerCase(Locale.ROOT), device.getKey().toLowerCase(Locale.ROOT),
                        device.getValue().path("name").asText(), gi));
            }
        }
        return entries;
    }

    /** What our rules call the card of these ids and this size, without Akash's table. */
    private static String offlineSlug(Entry e) {
        Gpu seen = Gpu.builder("lspci").vendor(Vendor.fromPciVendorId(e.vendorId())).pciVendorId(e.vendorId())
                .pciDeviceId(e.deviceId()).memoryMiB(e.memoryGi() == null ? null : e.memoryGi() * 1024L).build();
        return offline().normalise(seen, new ArrayList<Diagnostic>()).model();
    }

    @Test
    void everyEntryOfAkashsTableGetsItsSlugOfflineOrIsAListedException() throws IOException {
        List<Entry> entries = entries();
        assertTrue(entries.size() > 50, "the shared table has " + entries.size() + " entries; expected Akash's whole table");
        List<String> wrong = new ArrayList<>();
        List<String> stale = new ArrayList<>();
        int agree = 0;
        for (Entry e : entries) {
            String ours = offlineSlug(e);
            boolean same = e.slug().equals(ours);
            agree += same ? 1 : 0;
            if (!same && !EXCEPTIONS.containsKey(e.key())) {
                wrong.add(e.key() + " table '" + e.slug() + "', offline '" + ours + "'");
            }
            if (same && EXCEPTIONS.containsKey(e.key())) {
                stale.add(e.key() + " '" + ours + "' now agrees: take it off the exceptions");
            }
        }
        System.out.println("offline slugs: " + agree + " of " + entries.size() + " entries agree with Akash's table; "
                + EXCEPTIONS.size() + " listed exceptions");
        assertEquals(List.of(), wrong, "offline slugs that differ from Akash's table");
        assertEquals(List.of(), stale, "exceptions our rules now agree with");
    }

    /** Names that are not pci.ids', as tools print them on real hosts: a vGPU profile, the RTX 2000 Ada. */
    @Test
    void aVgpuProfileIsItsCardAndTheRtx2000AdaIsAkashsSpelling() {
        for (String[] c : new String[][] {{"GRID P4-1Q", "p4"}, {"GRID T4-16C", "t4"}, {"NVIDIA A100-4C", "a100"},
                {"GRID V100-8Q", "v100"}, {"NVIDIA RTX 2000 Ada Generation", "rtx2000eada"},
                {"NVIDIA RTX A6000", "rtxa6000"}, {"NVIDIA RTX A5000", "a5000"}, {"NVIDIA GeForce RTX 3060 Laptop GPU", "rtx3060m"}}) {
            assertEquals(c[1], offline().normalise(Gpu.builder("nvidia-smi").vendor(Vendor.NVIDIA).name(c[0]).build(),
                    new ArrayList<>()).model(), c[0]);
        }
    }

    /** The two cards the issue named, by the name NVIDIA's driver prints, which is what a host without lspci sees. */
    @Test
    void theDriversNamesOfTheRtxProBlackwellEditionsAreAkashsSlugs() {
        assertEquals("pro6000mq", offline().normalise(Gpu.builder("nvidia-smi").vendor(Vendor.NVIDIA)
                .name("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition").build(), new ArrayList<>()).model());
        assertEquals("pro6000we", offline().normalise(Gpu.builder("nvidia-smi").vendor(Vendor.NVIDIA)
                .name("NVIDIA RTX PRO 6000 Blackwell Workstation Edition").build(), new ArrayList<>()).model());
        assertEquals("pro6000se", offline().normalise(Gpu.builder("nvidia-smi").vendor(Vendor.NVIDIA)
                .name("NVIDIA RTX PRO 6000 Blackwell Server Edition").build(), new ArrayList<>()).model());
    }
}
