package io.gpudetect.labels;

import io.gpudetect.inventory.Inventory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The profiles a provider switched on, always merged in one fixed order ({@code gpu-detect}, {@code nvidia},
 * {@code amd}, {@code akash}) whatever order they were named in. Two profiles never share a key: if they
 * ever did, {@link #render} fails loudly instead of letting one silently win (the GFD flapping lesson).
 */
public final class LabelProfiles {

    /** Every known profile in merge order. */
    public static final List<LabelProfile> ALL = List.of(
            new GpuDetectProfile(), new NvidiaProfile(), new AmdProfile(), new AkashProfile());

    /** Used when nothing selects profiles: only our own prefix, so installing the agent changes no one else's keys. */
    public static final String DEFAULT_SELECTION = GpuDetectProfile.NAME;

    private final List<LabelProfile> enabled;
    /** Our own profile's prefix, kept when that profile is off: its labels must still be withdrawable. */
    private final String ownPrefix;

    private LabelProfiles(List<LabelProfile> enabled, String ownPrefix) {
        this.enabled = List.copyOf(enabled);
        this.ownPrefix = ownPrefix;
    }

    public static LabelProfiles of(LabelProfile... profiles) {
        String own = GpuDetectProfile.PREFIX;
        for (LabelProfile p : profiles) {
            if (p instanceof GpuDetectProfile g) {
                own = g.prefix();
            }
        }
        return new LabelProfiles(List.of(profiles), own);
    }

    /**
     * Parses {@code gpu-detect,akash} (commas or spaces, any order, any case); {@code none} switches all off. Our own
     * profile writes under {@code prefix}; the {@code nvidia} profile describes the device plugin's {@code nvidia}
     * settings.
     *
     * @throws IllegalArgumentException naming the unknown profile and the known ones
     */
    public static LabelProfiles parse(String selection, String prefix, NvidiaProfile.Settings nvidia) {
        List<LabelProfile> all = ALL.stream()
                .map(p -> p instanceof GpuDetectProfile ? new GpuDetectProfile(prefix)
                        : p instanceof NvidiaProfile ? new NvidiaProfile(nvidia) : p).toList();
        Set<String> wanted = new LinkedHashSet<>();
        for (String part : selection.split("[,\\s]+")) {
            String name = part.strip().toLowerCase(Locale.ROOT);
            if (name.isEmpty() || name.equals("none")) {
                continue;
            }
            if (ALL.stream().noneMatch(p -> p.name().equals(name))) {
                throw new IllegalArgumentException("unknown label profile '" + part.strip() + "' (expected any of "
                        + String.join(", ", names(ALL)) + ", or none)");
            }
            wanted.add(name);
        }
        List<LabelProfile> enabled = new ArrayList<>();
        for (LabelProfile p : all) {
            if (wanted.contains(p.name())) {
                enabled.add(p);
            }
        }
        return new LabelProfiles(enabled, prefix);
    }

    /**
     * Whether {@code key} is under a prefix some profile writes (our own, as configured or the default, or a
     * vendor's), or is Akash's {@code akash.network} itself, so that the agent may have written it and may
     * withdraw it when its annotation lists it.
     */
    public boolean mayRemove(String key) {
        return key.startsWith(ownPrefix + "/") || key.startsWith(GpuDetectProfile.PREFIX + "/")
                || key.startsWith(NvidiaProfile.PREFIX + "/") || AmdProfile.KEY_PREFIXES.stream().anyMatch(key::startsWith)
                || key.startsWith(AkashProfile.PREFIX + "/") || key.equals(AkashProfile.PREFIX);
    }

    public List<String> names() {
        return names(enabled);
    }

    private static List<String> names(List<LabelProfile> profiles) {
        return profiles.stream().map(LabelProfile::name).toList();
    }

    /**
     * Every enabled profile's labels, merged and sorted.
     *
     * @throws IllegalStateException when two profiles produce one key, or a profile produced an invalid label
     */
    public SortedMap<String, String> render(Inventory inventory) {
        SortedMap<String, String> merged = new TreeMap<>();
        Map<String, String> writer = new HashMap<>();
        for (LabelProfile p : enabled) {
            for (Map.Entry<String, String> e : p.labels(inventory).entrySet()) {
                String previous = writer.putIfAbsent(e.getKey(), p.name());
                if (previous != null) {
                    throw new IllegalStateException("label profiles '" + previous + "' and '" + p.name()
                            + "' both write " + e.getKey());
                }
                requireValid(p, e.getKey(), e.getValue());
                merged.put(e.getKey(), e.getValue());
            }
        }
        return Collections.unmodifiableSortedMap(merged);
    }

    private static void requireValid(LabelProfile p, String key, String value) {
        int slash = key.indexOf('/');
        String name = slash < 0 ? key : key.substring(slash + 1);
        if (!LabelText.isValid(name) || name.isEmpty() || !LabelText.isValid(value)) {
            throw new IllegalStateException("label profile '" + p.name() + "' produced an invalid label "
                    + key + "=" + value);
        }
    }
}
