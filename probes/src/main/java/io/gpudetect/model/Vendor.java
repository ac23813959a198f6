package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Who made the GPU, decided from the PCI vendor id wherever one is known. */
public enum Vendor {
    NVIDIA("10de"),
    AMD("1002"),
    INTEL("8086"),
    OTHER(null);

    private final String pciVendorId;

    Vendor(String pciVendorId) {
        this.pciVendorId = pciVendorId;
    }

    /** The vendor's PCI id (4 lower-case hex digits), or null for {@link #OTHER}. */
    public String pciVendorId() {
        return pciVendorId;
    }

    /** The vendor owning a PCI vendor id; {@link #OTHER} for any id we do not name. */
    public static Vendor fromPciVendorId(String id) {
        if (id != null) {
            String normalised = id.toLowerCase(Locale.ROOT).replaceFirst("^0x", "");
            for (Vendor v : values()) {
                if (normalised.equals(v.pciVendorId)) {
                    return v;
                }
            }
            // ATI Technologies' old id (1002 is AMD/ATI); 1022 is AMD's CPU-side id, never a GPU.
        }
        return OTHER;
    }

    /** Guess from a product or platform name: "NVIDIA CUDA", "AMD Accelerated Parallel Processing". */
    public static Vendor fromName(String name) {
        if (name == null) {
            return OTHER;
        }
        String n = name.toLowerCase(Locale.ROOT);
        if (n.contains("nvidia") || n.contains("geforce") || n.contains("quadro") || n.contains("tesla")) {
            return NVIDIA;
        }
        if (n.contains("amd") || n.contains("radeon") || n.contains("advanced micro devices") || n.contains("ati ")) {
            return AMD;
        }
        if (n.contains("intel")) {
            return INTEL;
        }
        return OTHER;
    }

    @JsonValue
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static Vendor fromId(String id) {
        for (Vendor v : values()) {
            if (v.id().equalsIgnoreCase(id)) {
                return v;
            }
        }
        return OTHER;
    }
}
