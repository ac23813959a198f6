package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Who made the GPU, decided from the PCI vendor id wherever one is known. */
public enum Vendor {
    NVIDIA("10de"),
    AMD("1002"),
    INTEL("8086"),
    ARM("13b5"),
    APPLE("106b"),
    QUALCOMM("5143", "17cb"),
    IMAGINATION("1010"),
    MOORE_THREADS("1ed5"),
    HUAWEI("19e5"),
    /** Hygon's DCUs (Chengdu Haiguang IC Design), AMD-derived accelerators that ROCm's tools list. */
    HYGON("1d94"),
    MATROX("102b"),
    ASPEED("1a03"),
    SILICON_MOTION("126f"),
    CIRRUS_LOGIC("1013"),
    VMWARE("15ad"),
    MICROSOFT("1414"),
    VIRTUALBOX("80ee"),
    REDHAT("1af4", "1b36"),
    QEMU("1234"),
    OTHER();

    private final String[] pciVendorIds;

    /** {@link #id}, made once: a 10,000-node cluster's records ask it some hundred thousand times. */
    private final String id;

    Vendor(String... pciVendorIds) {
        this.pciVendorIds = pciVendorIds;
        this.id = name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The vendor's PCI id (4 lower-case hex digits), or null for {@link #OTHER}. */
    public String pciVendorId() {
        return pciVendorIds.length == 0 ? null : pciVendorIds[0];
    }

    /** The vendor owning a PCI vendor id; {@link #OTHER} for any id we do not name. */
    public static Vendor fromPciVendorId(String id) {
        if (id != null) {
            String normalised = id.toLowerCase(Locale.ROOT).replaceFirst("^0x", "");
            for (Vendor v : values()) {
                for (String own : v.pciVendorIds) {
                    if (normalised.equals(own)) {
                        return v;
                    }
                }
            }
            // 1022 is AMD's CPU-side id, never a GPU; 1002 is the GPU (ATI) id.
        }
        return OTHER;
    }

    /**
     * Guess from a product, vendor or platform name: "NVIDIA CUDA", "AMD Accelerated Parallel Processing",
     * OpenCL's "ARM Platform" or "Apple", or a product line only one vendor sells (Mali, Adreno, PowerVR).
     */
    public static Vendor fromName(String name) {
        if (name == null) {
            return OTHER;
        }
        String n = " " + name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", " ") + " ";
        if (n.contains("nvidia") || n.contains("geforce") || n.contains("quadro") || n.contains(" tesla ")) {
            return NVIDIA;
        }
        if (n.contains(" amd ") || n.contains("radeon") || n.contains("advanced micro devices") || n.contains(" ati ")) {
            return AMD;
        }
        if (n.contains("haiguang") || n.contains(" hygon ")) {
            return HYGON;
        }
        if (n.contains("intel")) {
            return INTEL;
        }
        if (n.contains(" arm ") || n.contains(" mali ")) {
            return ARM;
        }
        if (n.contains(" apple ")) {
            return APPLE;
        }
        if (n.contains("qualcomm") || n.contains("adreno")) {
            return QUALCOMM;
        }
        if (n.contains("imagination") || n.contains("powervr")) {
            return IMAGINATION;
        }
        if (n.contains("moore threads") || n.contains("mthreads")) {
            return MOORE_THREADS;
        }
        return OTHER;
    }

    @JsonValue
    public String id() {
        return id;
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
