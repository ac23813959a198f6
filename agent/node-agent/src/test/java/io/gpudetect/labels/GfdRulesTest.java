package io.gpudetect.labels;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.testing.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Holds the {@code nvidia} profile to GPU Feature Discovery's rules on every recorded host that has
 * nvidia-smi's XML (the only recording that says everything GFD labels): the labels GFD's {@code internal/lm}
 * would write for that host (k8s-device-plugin at {@code 1b826acc}, default configuration) are worked out
 * here from the raw XML and GFD's rules, not from our code, and compared key by key.
 *
 * <p>The compute capabilities are NVIDIA's, per product, from developer.nvidia.com/cuda-gpus, read by a
 * person. {@code gpu.mode} and {@code vgpu.present} need the PCI class and config space, which these
 * recordings lack: the profile must leave exactly those keys out. The {@code vgpu.*} keys are worked out by
 * GFD's own algorithm from the raw config bytes of every bundle that has them.
 */
class GfdRulesTest {

    /** Compute capability per product name, from NVIDIA's CUDA GPUs list. */
    private static final Map<String, String> CUDA_GPUS = Map.ofEntries(
            Map.entry("NVIDIA GeForce RTX 2080 Ti", "7.5"), Map.entry("GeForce RTX 2080 Ti", "7.5"),
            Map.entry("NVIDIA RTX A5000", "8.6"), Map.entry("NVIDIA A100-SXM4-40GB", "8.0"),
            Map.entry("NVIDIA A10G", "8.6"), Map.entry("NVIDIA GeForce GT 1030", "6.1"),
            Map.entry("NVIDIA GeForce RTX 2080", "7.5"), Map.entry("NVIDIA GeForce RTX 3090", "8.6"),
            Map.entry("NVIDIA GeForce RTX 4090", "8.9"), Map.entry("Quadro P2000", "6.1"),
            Map.entry("NVIDIA RTX 4000 SFF Ada Generation", "8.9"),
            Map.entry("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "12.0"),
            Map.entry("Tesla T4", "7.5"), Map.entry("NVIDIA GeForce RTX 2070", "7.5"),
            Map.entry("NVIDIA A100-SXM4-80GB", "8.0"), Map.entry("Quadro P400", "6.1"),
            Map.entry("NVIDIA GeForce RTX 3060", "8.6"), Map.entry("NVIDIA GeForce RTX 3080", "8.6"),
            // Names the list does not print: a TU116 (GTX 1660) that driver 418 called "Graphics Device",
            // and a vGPU profile of a Tesla P4 (NVML reports the physical GPU's capability to the guest).
            Map.entry("Graphics Device", "7.5"), Map.entry("GRID P4-1Q", "6.1"));

    /** pci.ids' product name of the recorded cards that a driver printed as "Graphics Device", by PCI device id. */
    private static final Map<String, String> PCI_IDS_NAMES = Map.of("218410DE", "GeForce GTX 1660");

    /** Keys GFD writes from facts no recording here holds. */
    private static final Set<String> NOT_RECORDED = Set.of("nvidia.com/gpu.mode", "nvidia.com/vgpu.present");

    static Stream<Path> nvidiaXmlHosts() throws IOException {
        return Fixtures.hosts().stream().filter(p -> Files.isRegularFile(p.resolve("nvidia-smi.xml")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nvidiaXmlHosts")
    void theNvidiaProfileWritesWhatGfdWrites(Path host) throws Exception {
        SortedMap<String, String> gfd = gfdLabels(host.resolve("nvidia-smi.xml"));
        Inventory inventory = Fixtures.detect(host);
        SortedMap<String, String> ours = new NvidiaProfile().labels(inventory);

        Set<String> missing = new TreeSet<>(gfd.keySet());
        missing.removeAll(ours.keySet());
        assertEquals(NOT_RECORDED, missing, "keys GFD writes that we do not");
        Set<String> extra = new TreeSet<>(ours.keySet());
        extra.removeAll(gfd.keySet());
        assertEquals(Set.of(), extra, "keys we write that GFD does not");
        for (Map.Entry<String, String> e : ours.entrySet()) {
            assertEquals(gfd.get(e.getKey()), e.getValue(), host.getFileName() + ": " + e.getKey());
        }
    }

    /** Every bundle, real or hand-made, whose {@code /sys} holds an NVIDIA function's {@code config}. */
    static Stream<Path> nvidiaConfigBundles() throws IOException {
        List<Path> bundles = new ArrayList<>();
        Fixtures.hosts().stream().filter(GfdRulesTest::hasNvidiaConfig).forEach(bundles::add);
        try (Stream<Path> s = Files.list(Fixtures.root().resolve("cases"))) {
            s.filter(GfdRulesTest::hasNvidiaConfig).sorted().forEach(bundles::add);
        }
        return bundles.stream();
    }

    private static boolean hasNvidiaConfig(Path bundle) {
        Path devices = bundle.resolve("sys/bus/pci/devices");
        if (!Files.isDirectory(devices)) {
            return false;
        }
        try (Stream<Path> s = Files.list(devices)) {
            return s.anyMatch(d -> Files.exists(d.resolve("config")) && isNvidia(d));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static boolean isNvidia(Path function) {
        try {
            return Files.readString(function.resolve("vendor")).strip().equals("0x10de");
        } catch (IOException e) {
            return false;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nvidiaConfigBundles")
    void theVgpuKeysAreWhatGfdWrites(Path bundle) throws Exception {
        SortedMap<String, String> gfd = gfdVgpuLabels(bundle.resolve("sys/bus/pci/devices"));
        SortedMap<String, String> ours = new TreeMap<>(new NvidiaProfile().labels(Fixtures.detect(bundle)));
        ours.keySet().removeIf(k -> !k.startsWith("nvidia.com/vgpu."));
        assertEquals(gfd, ours, bundle.getFileName().toString());
    }

    @org.junit.jupiter.api.Test
    void theHandMadeConfigsGiveTheHostDriverTheirBytesName() throws Exception {
        // test-fixtures/tools/make-pci-configs.py: status 0x0010 (list), 0x34 -> 0x60 PM -> 0x68 MSI -> 0x78 PCIe
        // -> 0xc8 id 9, length 0x1f, 'V' 'F'; record 0x01 of length 4 skipped, record 0 at capability byte 9:
        // version "535.104.06" (all 10 bytes), branch "r535_00" (3 NULs trimmed).
        assertEquals(new TreeMap<>(Map.of("nvidia.com/vgpu.present", "true",
                        "nvidia.com/vgpu.host-driver-version", "535.104.06", "nvidia.com/vgpu.host-driver-branch", "r535_00")),
                gfdVgpuLabels(Fixtures.root().resolve("cases/sysfs_nvidia-vgpu-guest/sys/bus/pci/devices")));
        // The passed-through GPU's first vendor-specific capability (0xc8) starts 0x02 0x00, not the vGPU signature.
        assertEquals(new TreeMap<>(Map.of("nvidia.com/vgpu.present", "false")),
                gfdVgpuLabels(Fixtures.root().resolve("cases/sysfs_nvidia-passthrough-gpu/sys/bus/pci/devices")));
        // Without root the kernel shows 64 bytes: GFD errors out of Devices() and writes no vGPU key.
        assertEquals(new TreeMap<>(), gfdVgpuLabels(
                Fixtures.root().resolve("cases/sysfs_nvidia-config-readable-to-root-only/sys/bus/pci/devices")));
    }

    /**
     * internal/lm/vgpu.go over internal/vgpu (k8s-device-plugin {@code 1b826acc}), ported line by line: every
     * function with vendor 0x10de, its whole config; fewer than 256 bytes in any is an error, and then no label at
     * all; the first vendor-specific capability (id 9) on the list from 0x34, offsets as bytes; "VF" at its bytes
     * 3-4; records from byte 5 to record 0, whose next 10 + 10 bytes are the host driver's version and branch.
     */
    private static SortedMap<String, String> gfdVgpuLabels(Path devices) throws IOException {
        SortedMap<String, String> labels = new TreeMap<>();
        List<byte[]> vgpus = new ArrayList<>();
        List<Path> functions;
        try (Stream<Path> s = Files.list(devices)) {
            functions = s.sorted().toList();
        }
        for (Path d : functions) {
            if (!isNvidia(d)) {
                continue;
            }
            byte[] config = Files.readAllBytes(d.resolve("config"));
            if (config.length < 256) {
                return labels;
            }
            if ((config[0x06] & 0x10) == 0) {
                continue;
            }
            boolean[] visited = new boolean[256];
            int pos = config[0x34] & 0xff;
            byte[] capability = null;
            while (pos != 0) {
                int id = config[pos] & 0xff;
                int next = config[(pos + 1) & 0xff] & 0xff;
                int length = config[(pos + 2) & 0xff] & 0xff;
                if (visited[pos] || id == 0xff) {
                    break;
                }
                if (id == 0x09) {
                    capability = java.util.Arrays.copyOfRange(config, pos, pos + length);
                    break;
                }
                visited[pos] = true;
                pos = next;
            }
            if (capability != null && capability.length >= 5 && capability[3] == 0x56 && capability[4] == 0x46) {
                vgpus.add(capability);
            }
        }
        labels.put("nvidia.com/vgpu.present", String.valueOf(!vgpus.isEmpty()));
        for (byte[] c : vgpus) {
            int pos = 5;
            int record = c[pos];
            while (record != 0 && pos < c.length) {
                pos += c[pos + 1] & 0xff;
                record = c[pos];
            }
            if (record != 0 || pos + 22 > c.length) {
                throw new AssertionError("GFD fails its pass: no driver version record");
            }
            labels.put("nvidia.com/vgpu.host-driver-version",
                    new String(c, pos + 2, 10, java.nio.charset.StandardCharsets.ISO_8859_1).replaceAll("^\\x00+|\\x00+$", ""));
            labels.put("nvidia.com/vgpu.host-driver-branch",
                    new String(c, pos + 12, 10, java.nio.charset.StandardCharsets.ISO_8859_1).replaceAll("^\\x00+|\\x00+$", ""));
        }
        return labels;
    }

    /** GFD's labels for the host the XML describes, by GFD's rules (default config: MIG strategy none, no sharing). */
    private static SortedMap<String, String> gfdLabels(Path xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        Document doc = f.newDocumentBuilder().parse(xml.toFile());
        Element log = doc.getDocumentElement();
        SortedMap<String, String> l = new TreeMap<>();
        // machine-type.go: the DMI product name, "unknown" when the file cannot be read (no recording has it).
        l.put("nvidia.com/gpu.machine", "unknown");
        // nvml.go newVersionLabeler: driver version split on '.', CUDA version as major.minor.
        String driver = text(log, "driver_version");
        String[] d = driver.split("\\.");
        String rev = d.length > 2 ? d[2] : "";
        for (String name : List.of("cuda.driver.", "cuda.driver-version.")) {
            l.put("nvidia.com/" + name + "major", d[0]);
            l.put("nvidia.com/" + name + "minor", d[1]);
        }
        l.put("nvidia.com/cuda.driver.rev", rev);
        l.put("nvidia.com/cuda.driver-version.revision", rev);
        l.put("nvidia.com/cuda.driver-version.full", driver);
        String cuda = text(log, "cuda_version");
        if (cuda != null) {
            String[] c = cuda.split("\\.");
            l.put("nvidia.com/cuda.runtime.major", c[0]);
            l.put("nvidia.com/cuda.runtime.minor", c[1]);
            l.put("nvidia.com/cuda.runtime-version.major", c[0]);
            l.put("nvidia.com/cuda.runtime-version.minor", c[1]);
            l.put("nvidia.com/cuda.runtime-version.full", Integer.parseInt(c[0]) + "." + Integer.parseInt(c[1]));
        }
        NodeList gpus = log.getElementsByTagName("gpu");
        boolean migCapable = false;
        boolean allMigEnabled = true;
        for (int i = 0; i < gpus.getLength(); i++) {
            Element gpu = (Element) gpus.item(i);
            String current = text(gpu, "current_mig");
            // NVML's GetMigMode succeeds on a card with MIG: nvidia-smi prints its mode there, N/A elsewhere.
            migCapable |= current != null && !current.equals("N/A");
            allMigEnabled &= "Enabled".equals(current);
        }
        l.put("nvidia.com/mig.capable", String.valueOf(migCapable));
        // nvml.go newSharingLabeler: false unless MPS sharing is configured.
        l.put("nvidia.com/mps.capable", "false");
        l.put("nvidia.com/gpu.mode", "(needs the PCI class)");
        l.put("nvidia.com/vgpu.present", "(needs PCI config space)");
        // resource.go: one product per recorded host here.
        Element first = (Element) gpus.item(0);
        String product = text(first, "product_name");
        // A difference on purpose (docs/labels.md): where the driver could not name the card, GFD writes its
        // placeholder and we write pci.ids' name for the device id, read here by a person.
        String named = "Graphics Device".equals(product) ? PCI_IDS_NAMES.get(text(first, "pci_device_id")) : product;
        l.put("nvidia.com/gpu.product", sanitise(named));
        l.put("nvidia.com/gpu.count", String.valueOf(gpus.getLength()));
        // MIG-enabled cards are labelled without sharing: replicas 0.
        l.put("nvidia.com/gpu.replicas", allMigEnabled ? "0" : "1");
        l.put("nvidia.com/gpu.sharing-strategy", "none");
        Element fb = null;
        for (org.w3c.dom.Node n = first.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals("fb_memory_usage")) {
                fb = e; // the card's own, not a MIG device's
            }
        }
        l.put("nvidia.com/gpu.memory", text(fb, "total").replace(" MiB", ""));
        String[] cc = CUDA_GPUS.get(product).split("\\.");
        l.put("nvidia.com/gpu.compute.major", cc[0]);
        l.put("nvidia.com/gpu.compute.minor", cc[1]);
        l.put("nvidia.com/gpu.family", family(Integer.parseInt(cc[0]), Integer.parseInt(cc[1])));
        return l;
    }

    /** resource.go getArchFamily, as GFD has it. */
    private static String family(int major, int minor) {
        switch (major) {
            case 6: return "pascal";
            case 7: return minor < 5 ? "volta" : "turing";
            case 8: return minor < 9 ? "ampere" : "ada-lovelace";
            case 9: return "hopper";
            case 10: case 12: return "blackwell";
            default: return "undefined";
        }
    }

    /** resource.go sanitise: delete all but [A-Za-z0-9-_. ], then join the words with '-'. */
    private static String sanitise(String s) {
        return String.join("-", s.replaceAll("[^A-Za-z0-9\\-_. ]", "").trim().split(" +"));
    }

    /** The first element's text under {@code parent} (direct or deeper), trimmed; null when absent. */
    private static String text(Element parent, String tag) {
        NodeList n = parent.getElementsByTagName(tag);
        return n.getLength() == 0 ? null : n.item(0).getTextContent().strip();
    }
}
