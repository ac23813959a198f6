package io.gpudetect.labels;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.NvidiaArchitecture;
import io.gpudetect.model.Partition;
import io.gpudetect.model.Vendor;
import io.gpudetect.model.Vgpu;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code nvidia.com/*} labels as NVIDIA's GPU Feature Discovery writes them (k8s-device-plugin
 * {@code internal/lm}), for workloads that already select on them, under GFD's MIG strategies
 * {@code none} (its default), {@code single} and {@code mixed} and its sharing settings. docs/labels.md lists
 * each key, its source and where it differs from GFD.
 *
 * <p>Differences from GFD, on purpose: on a node with several products the single-valued keys describe the
 * most numerous product (ties to the first name in sort order) instead of whichever card a Go map visited
 * last, and {@code gpu.count} counts all NVIDIA cards, so nothing flaps between passes; product names that
 * would not be valid label values are fitted ({@link LabelText}) where GFD's write would be refused; no
 * {@code gfd.timestamp}. {@code nvidia.com/gpu.present} belongs to the {@code akash} profile.
 */
public final class NvidiaProfile implements LabelProfile {

    public static final String NAME = "nvidia";
    public static final String PREFIX = "nvidia.com";
    private static final String GPU = "gpu";

    /** GFD's {@code --mig-strategy}. */
    public enum MigStrategy {
        NONE, SINGLE, MIXED;

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** @throws IllegalArgumentException naming the value and the accepted ones */
        public static MigStrategy parse(String text) {
            for (MigStrategy s : values()) {
                if (s.id().equals(text.strip().toLowerCase(Locale.ROOT))) {
                    return s;
                }
            }
            throw new IllegalArgumentException("unknown MIG strategy '" + text + "' (expected none, single or mixed)");
        }
    }

    /** GFD's sharing strategies: its config's {@code sharing.timeSlicing} or {@code sharing.mps}. */
    public enum SharingStrategy {
        NONE("none"), TIME_SLICING("time-slicing"), MPS("mps");

        private final String id;

        SharingStrategy(String id) {
            this.id = id;
        }

        public String id() {
            return id;
        }

        /** @throws IllegalArgumentException naming the value and the accepted ones */
        public static SharingStrategy parse(String text) {
            for (SharingStrategy s : values()) {
                if (s.id.equals(text.strip().toLowerCase(Locale.ROOT))) {
                    return s;
                }
            }
            throw new IllegalArgumentException("unknown sharing strategy '" + text
                    + "' (expected none, time-slicing or mps)");
        }
    }

    /**
     * How the device plugin beside us is configured, which GFD's labels describe: its MIG strategy, and the
     * sharing strategy with the replicas of {@code nvidia.com/gpu} (1 when the GPU is not shared).
     */
    public record Settings(MigStrategy migStrategy, SharingStrategy sharing, int replicas) {
        public static final Settings DEFAULT = new Settings(MigStrategy.NONE, SharingStrategy.NONE, 1);

        public Settings {
            Objects.requireNonNull(migStrategy);
            Objects.requireNonNull(sharing);
            if (replicas < 1) {
                throw new IllegalArgumentException("replicas must be at least 1, got " + replicas);
            }
            if (sharing == SharingStrategy.NONE && replicas != 1) {
                throw new IllegalArgumentException(replicas + " replicas need a sharing strategy (time-slicing or mps)");
            }
        }

        /** GFD shares a resource (and names it {@code -SHARED}) only with more than one replica. */
        boolean shared() {
            return sharing != SharingStrategy.NONE && replicas > 1;
        }
    }

    /** A MIG profile name as NVML prints it: {@code 1g.10gb}, {@code 1c.3g.20gb}, {@code 1g.10gb+me}. */
    private static final Pattern MIG_PROFILE = Pattern.compile("^(?:(\\d+)c\\.)?(\\d+)g\\..*");

    private final Settings settings;

    public NvidiaProfile() {
        this(Settings.DEFAULT);
    }

    public NvidiaProfile(Settings settings) {
        this.settings = Objects.requireNonNull(settings);
    }

    public Settings settings() {
        return settings;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SortedMap<String, String> labels(Inventory inventory) {
        List<Gpu> gpus = GpuFacts.ofVendor(inventory.realGpus(), Vendor.NVIDIA);
        SortedMap<String, String> out = new TreeMap<>();
        if (gpus.isEmpty()) {
            return out;
        }
        out.put(key("gpu.machine"), inventory.machine() == null ? "unknown" : gfdValue(inventory.machine()));
        versionLabels(out, gpus);
        out.put(key("mig.capable"), String.valueOf(gpus.stream().anyMatch(MigFacts::isMigCapable)));
        boolean anyMigEnabled = gpus.stream().anyMatch(MigFacts::isMigEnabled);
        // GFD checks MPS only when MPS is configured, and refuses it on a node with MIG on.
        out.put(key("mps.capable"), String.valueOf(settings.sharing() == SharingStrategy.MPS && !anyMigEnabled));
        String mode = gpuMode(gpus);
        if (mode != null) {
            out.put(key("gpu.mode"), mode);
        }
        vgpuLabels(out, gpus);
        String clique = InterconnectLabels.gfdClique(gpus);
        if (clique != null) {
            out.put(key("gpu.clique"), clique);
        }
        fullGpuLabels(out, gpus);
        if (settings.migStrategy() != MigStrategy.NONE) {
            out.put(key("mig.strategy"), settings.migStrategy().id());
        }
        if (settings.migStrategy() == MigStrategy.SINGLE) {
            migSingleLabels(out, gpus);
        } else if (settings.migStrategy() == MigStrategy.MIXED) {
            migMixedLabels(out, gpus);
        }
        return out;
    }

    /** GFD's {@code newGPULabelers}: product, count, replicas, sharing, memory and architecture of the cards. */
    private void fullGpuLabels(SortedMap<String, String> out, List<Gpu> gpus) {
        // A card no tool could name still counts, as "unknown", so that gpu.product is never missing.
        String product = GpuFacts.mostNumerous(GpuFacts.countBy(gpus, g -> productPart(g.name()), v -> v));
        List<Gpu> primary = gpus.stream().filter(g -> productPart(g.name()).equals(product)).toList();
        // Cards with MIG on are labelled without sharing (replicas 0); any card of the product without MIG
        // overrides that, as GFD merges the MIG-enabled labelers first.
        boolean shareable = primary.stream().anyMatch(g -> !MigFacts.isMigEnabled(g));
        put(out, GPU, "count", String.valueOf(gpus.size()));
        put(out, GPU, "product", shareable ? productName(product) : product);
        put(out, GPU, "replicas", String.valueOf(shareable ? settings.replicas() : 0));
        put(out, GPU, "sharing-strategy", shareable && settings.shared() ? settings.sharing().id() : "none");
        Long mib = GpuFacts.min(primary, Gpu::memoryMiB);
        if (mib != null && mib != 0) {
            put(out, GPU, "memory", String.valueOf(mib));
        }
        String cc = GpuFacts.mostNumerous(GpuFacts.countBy(primary, Gpu::computeCapability, LabelText::value));
        int[] ccParts = computeCapability(cc);
        if (ccParts != null && ccParts[0] != 0) {
            put(out, GPU, "family", archFamily(ccParts[0], ccParts[1]));
            put(out, GPU, "compute.major", String.valueOf(ccParts[0]));
            put(out, GPU, "compute.minor", String.valueOf(ccParts[1]));
        }
    }

    /**
     * GFD's {@code vgpuLabeler}: {@code vgpu.present} is whether any NVIDIA function carries the vGPU signature,
     * written {@code false} too, and for each vGPU the host driver's version and branch (the last card's win). GFD
     * writes none of them when it cannot read every function's full config space, so nothing is written unless
     * every card's was read. A vGPU without a host driver record fails GFD's whole pass; here its keys are left
     * out. A version that is not a valid label value, which GFD's write would have refused, is fitted.
     */
    private static void vgpuLabels(SortedMap<String, String> out, List<Gpu> gpus) {
        if (gpus.stream().anyMatch(g -> g.vgpu() == null)) {
            return;
        }
        boolean present = false;
        for (Gpu g : gpus) {
            Vgpu v = g.vgpu();
            present |= v.present();
            if (v.present() && v.hostDriverVersion() != null) {
                out.put(key("vgpu.host-driver-version"), labelValue(v.hostDriverVersion()));
                out.put(key("vgpu.host-driver-branch"), labelValue(v.hostDriverBranch()));
            }
        }
        out.put(key("vgpu.present"), String.valueOf(present));
    }

    private static String labelValue(String raw) {
        return raw.isEmpty() || LabelText.isValid(raw) ? raw : LabelText.value(raw);
    }

    /**
     * GFD's {@code mig-strategy=single}: when every card has MIG on and all its MIG devices share one profile,
     * {@code nvidia.com/gpu.*} describes that profile; any other layout is labelled {@code -MIG-INVALID}.
     */
    private void migSingleLabels(SortedMap<String, String> out, List<Gpu> gpus) {
        List<Gpu> migEnabled = gpus.stream().filter(MigFacts::isMigEnabled).toList();
        if (migEnabled.isEmpty()) {
            return;
        }
        if (migEnabled.stream().flatMap(g -> g.partitioning().instances().stream())
                .anyMatch(p -> p.profile() == null || p.profile().isBlank())) {
            // nvidia-smi's XML names no MIG profile: which one GFD would see is unknown, so no label claims it.
            return;
        }
        boolean anyEmpty = migEnabled.stream().anyMatch(g -> g.partitioning().instances().isEmpty());
        boolean anyDisabled = migEnabled.size() != gpus.size();
        Map<String, List<MigDevice>> byProfile = migDevices(migEnabled);
        if (anyEmpty || anyDisabled || byProfile.size() != 1) {
            put(out, GPU, "product", productPart(migEnabled.get(0).name()) + "-MIG-INVALID");
            put(out, GPU, "count", "0");
            put(out, GPU, "replicas", "0");
            put(out, GPU, "sharing-strategy", "");
            put(out, GPU, "memory", "0");
            return;
        }
        Map.Entry<String, List<MigDevice>> only = byProfile.entrySet().iterator().next();
        migResourceLabels(out, GPU, only.getKey(), only.getValue());
    }

    /** GFD's {@code mig-strategy=mixed}: one {@code nvidia.com/mig-<profile>.*} resource per MIG profile. */
    private void migMixedLabels(SortedMap<String, String> out, List<Gpu> gpus) {
        migDevices(gpus.stream().filter(MigFacts::isMigEnabled).toList())
                .forEach((profile, devices) -> migResourceLabels(out, "mig-" + profile, profile, devices));
    }

    private void migResourceLabels(SortedMap<String, String> out, String resource, String profile,
                                   List<MigDevice> devices) {
        String parent = GpuFacts.mostNumerous(GpuFacts.countBy(devices.stream().map(MigDevice::parent).toList(),
                g -> productPart(g.name()), v -> v));
        // The sharing settings name nvidia.com/gpu; a mixed strategy's mig-<profile> resources are not shared.
        boolean shared = resource.equals(GPU) && settings.shared();
        String product = parent + "-MIG-" + gfdValue(profile);
        put(out, resource, "product", shared ? LabelText.value(product + "-SHARED") : product);
        put(out, resource, "count", String.valueOf(devices.size()));
        put(out, resource, "replicas", String.valueOf(resource.equals(GPU) ? settings.replicas() : 1));
        put(out, resource, "sharing-strategy", shared ? settings.sharing().id() : "none");
        Partition first = devices.get(0).partition();
        if (first.memoryMiB() != null) {
            put(out, resource, "memory", String.valueOf(first.memoryMiB()));
        }
        if (first.multiprocessors() != null) {
            put(out, resource, "multiprocessors", String.valueOf(first.multiprocessors()));
        }
        Matcher m = MIG_PROFILE.matcher(profile);
        if (m.matches()) {
            put(out, resource, "slices.gi", m.group(2));
            put(out, resource, "slices.ci", m.group(1) != null ? m.group(1) : m.group(2));
        }
    }

    private record MigDevice(Gpu parent, Partition partition) {
    }

    /** MIG devices with a known profile by profile, named as GFD names resources ({@code +} as {@code .}). */
    private static Map<String, List<MigDevice>> migDevices(List<Gpu> migEnabled) {
        Map<String, List<MigDevice>> byProfile = new TreeMap<>();
        for (Gpu g : migEnabled) {
            for (Partition p : g.partitioning().instances()) {
                if (p.profile() != null && !p.profile().isBlank()) {
                    byProfile.computeIfAbsent(p.profile().strip().replace('+', '.'), k -> new java.util.ArrayList<>())
                            .add(new MigDevice(g, p));
                }
            }
        }
        return byProfile;
    }

    /** GFD's {@code getProductName}: the name with {@code -SHARED} appended when the resource is shared. */
    private String productName(String product) {
        return settings.shared() ? LabelText.value(product + "-SHARED") : product;
    }

    /**
     * GFD's {@code newVersionLabeler}: the driver version in parts under both its names, and the CUDA version
     * the driver supports as {@code major.minor}.
     */
    private static void versionLabels(SortedMap<String, String> out, List<Gpu> gpus) {
        String driver = GpuFacts.mostNumerous(GpuFacts.countBy(gpus, Gpu::driverVersion, LabelText::value));
        String[] d = GpuFacts.versionParts(driver);
        if (d.length == 2 || d.length == 3) {
            String rev = d.length == 3 ? d[2] : "";
            out.put(key("cuda.driver.major"), d[0]);
            out.put(key("cuda.driver.minor"), d[1]);
            out.put(key("cuda.driver.rev"), rev);
            out.put(key("cuda.driver-version.major"), d[0]);
            out.put(key("cuda.driver-version.minor"), d[1]);
            out.put(key("cuda.driver-version.revision"), rev);
            out.put(key("cuda.driver-version.full"), driver);
        }
        String runtime = GpuFacts.mostNumerous(GpuFacts.countBy(gpus, Gpu::runtimeVersion, LabelText::value));
        int[] r = computeCapability(runtime);
        if (r != null) {
            out.put(key("cuda.runtime.major"), String.valueOf(r[0]));
            out.put(key("cuda.runtime.minor"), String.valueOf(r[1]));
            out.put(key("cuda.runtime-version.major"), String.valueOf(r[0]));
            out.put(key("cuda.runtime-version.minor"), String.valueOf(r[1]));
            out.put(key("cuda.runtime-version.full"), r[0] + "." + r[1]);
        }
    }

    /**
     * GFD's {@code newGPUModeLabeler}: {@code graphics} when every card is a VGA controller (class 0300),
     * {@code compute} when every card is a 3D controller (0302), else {@code unknown}. Null when a card's
     * class is not known (no sysfs or lspci -nn): no label rather than a guess.
     */
    private static String gpuMode(List<Gpu> gpus) {
        java.util.Set<String> classes = new java.util.TreeSet<>();
        for (Gpu g : gpus) {
            String c = g.pciClass();
            if (c == null) {
                return null;
            }
            classes.add(c);
        }
        if (classes.size() != 1) {
            return "unknown";
        }
        return switch (classes.iterator().next()) {
            case "0300" -> "graphics";
            case "0302" -> "compute";
            default -> "unknown";
        };
    }

    /**
     * GFD's {@code getArchFamily}: the family of {@link NvidiaArchitecture}, except for 11.x (Thor), which GFD
     * leaves {@code undefined}.
     */
    static String archFamily(int major, int minor) {
        if (major == 11) {
            return "undefined";
        }
        return NvidiaArchitecture.ofComputeCapability(major, minor).map(NvidiaArchitecture::gfdFamily)
                .orElse("undefined");
    }

    /** {@code 8.6} as {@code [8, 6]}; null when it is not two whole numbers. */
    private static int[] computeCapability(String text) {
        String[] parts = GpuFacts.versionParts(text);
        if (parts.length < 2) {
            return null;
        }
        try {
            return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A product name part as GFD's {@code sanitise} makes it, fitted to a label value; unknown when absent. */
    private static String productPart(String name) {
        return name == null ? "unknown" : gfdValue(name);
    }

    /**
     * GFD's {@code sanitise}: characters other than letters, digits, {@code -_. } and space are deleted
     * ({@code NVIDIA RTX A4000/A4500} becomes {@code NVIDIA-RTX-A4000A4500}), then runs of spaces become one
     * {@code -}. What remains is fitted to a valid label value, which GFD does not do (its write is refused).
     */
    static String gfdValue(String raw) {
        String kept = raw.replaceAll("[^A-Za-z0-9-_. ]", "");
        String joined = String.join("-", kept.strip().split("\\s+"));
        return LabelText.isValid(joined) ? joined : LabelText.value(joined);
    }

    private static void put(SortedMap<String, String> out, String resource, String suffix, String value) {
        out.put(key(resource + "." + suffix), value);
    }

    private static String key(String name) {
        return LabelText.key(PREFIX, name);
    }
}
